import type { Admin, Kafka as KafkaJs } from 'kafkajs';
import { fromKafkaJsError } from './errors.ts';
import { readOnce } from './one-off-read.ts';
import { headersToStrings } from './retry-headers.ts';

/** Where a record is: a partition of the topic read and an offset on it. */
export interface RecordPosition {
  readonly partition: number;
  readonly offset: string;
}

/** A record read back by its position, undecoded. */
export interface StoredRecord extends RecordPosition {
  readonly key: string;
  readonly value: Buffer | null;
  readonly headers: Readonly<Record<string, string>>;
  /** The record's timestamp (milliseconds since the epoch, as a string). */
  readonly timestamp: string;
}

export interface ReadAtOptions {
  /** Gives up after this long (default 30 s). */
  readonly timeoutMs?: number;
}

/** `<partition>/<offset>`: how `readRecordsAt` keys what it found. */
export function positionKey(position: RecordPosition): string {
  return `${position.partition}/${BigInt(position.offset)}`;
}

/**
 * Reads the records of `topic` at `positions`, off the hot path (an operator's replay): a consumer of a
 * group of its own, which commits nothing and is deleted afterwards, starts each partition that holds a
 * wanted record at the first of them and reads it up to the last. Positions the topic no longer holds
 * (removed by retention, below the low watermark) or never held (at or past the high watermark) are
 * missing from the result, which is keyed by `positionKey`. Records between the wanted ones are read and
 * skipped, so many positions spread thinly over a long stretch cost the whole stretch.
 */
export async function readRecordsAt(
  deps: { kafka: KafkaJs; admin(): Promise<Admin> },
  topic: string,
  positions: readonly RecordPosition[],
  options: ReadAtOptions = {},
): Promise<Map<string, StoredRecord>> {
  const found = new Map<string, StoredRecord>();
  /** Per partition: the offsets still wanted, and the last of them. */
  const pending = new Map<number, { wanted: Set<bigint>; first: bigint; last: bigint }>();
  try {
    const marks = await (await deps.admin()).fetchTopicOffsets(topic);
    const bounds = new Map(
      marks.map((mark) => [mark.partition, { low: BigInt(mark.low), high: BigInt(mark.high) }]),
    );
    for (const position of positions) {
      const offset = BigInt(position.offset);
      const bound = bounds.get(position.partition);
      if (!bound || offset < bound.low || offset >= bound.high) continue;
      const entry = pending.get(position.partition);
      if (!entry) pending.set(position.partition, { wanted: new Set([offset]), first: offset, last: offset });
      else {
        entry.wanted.add(offset);
        if (offset < entry.first) entry.first = offset;
        if (offset > entry.last) entry.last = offset;
      }
    }
  } catch (error) {
    throw fromKafkaJsError(error, `reading the watermarks of ${topic}`);
  }
  if (pending.size === 0) return found;

  // The partitions not wanted start at their end.
  const starts = new Map([...pending].map(([partition, entry]) => [partition, entry.first.toString()]));
  await readOnce(
    deps,
    {
      topic,
      groupPrefix: 'rp-reader',
      fromBeginning: false,
      starts,
      timeoutMs: options.timeoutMs,
      what: `${positions.length} records of ${topic}`,
    },
    (batch, pause) => {
      const entry = pending.get(batch.partition);
      if (!entry) return false;
      for (const message of batch.messages) {
        const offset = BigInt(message.offset);
        if (offset > entry.last) break;
        if (!entry.wanted.has(offset)) continue;
        const record: StoredRecord = {
          partition: batch.partition,
          offset: message.offset,
          key: message.key?.toString('utf8') ?? '',
          value: message.value,
          headers: headersToStrings(message.headers),
          timestamp: message.timestamp,
        };
        found.set(positionKey(record), record);
      }
      // A wanted offset that is not there (a transaction marker, a compacted record) ends at the last.
      const last = batch.messages.at(-1);
      if (last && BigInt(last.offset) >= entry.last) {
        pending.delete(batch.partition);
        pause();
      }
      return pending.size === 0;
    },
  );
  return found;
}
