import type { EventPosting } from '@rp/contracts';
import { type AvroCodec, type KafkaClient, positionKey, type StoredRecord } from '@rp/kafka';
import type { Logger } from '@rp/runtime';
import type { EventPostingSource } from '@rp/store';
import type { StoredPosting } from './delivery-store.ts';
import { describePosting } from './postings.ts';

/** A posting read back from its topic: everything a stored posting holds but the banks it waits for. */
export type ReadPosting = Omit<StoredPosting, 'memberIds'>;

/** Reads postings again from the records they were read from (what a replay sends). */
export interface PostingReader {
  /**
   * The postings at `sources`, keyed by posting id. A posting whose record the topic no longer holds
   * (past its retention) is missing, and so is one whose record no longer describes it.
   */
  read(sources: readonly EventPostingSource[]): Promise<Map<string, ReadPosting>>;
}

export function createPostingReader(deps: {
  readonly kafka: Pick<KafkaClient, 'readAt'>;
  readonly codec: Pick<AvroCodec<EventPosting>, 'decodeMany'>;
  readonly logger: Logger;
  /** How long one topic's read may take (default 60 s). */
  readonly timeoutMs?: number;
}): PostingReader {
  return {
    async read(sources) {
      const found = new Map<string, ReadPosting>();
      const byTopic = new Map<string, EventPostingSource[]>();
      for (const source of sources) {
        const list = byTopic.get(source.topic);
        if (list) list.push(source);
        else byTopic.set(source.topic, [source]);
      }
      for (const [topic, ofTopic] of byTopic) {
        const positions = ofTopic.map((source) => ({
          partition: source.partition,
          offset: String(source.offset),
        }));
        const records = await deps.kafka.readAt(topic, positions, { timeoutMs: deps.timeoutMs ?? 60_000 });
        const located: { source: EventPostingSource; record: StoredRecord }[] = [];
        for (const [index, source] of ofTopic.entries()) {
          const record = records.get(positionKey(positions[index] as (typeof positions)[number]));
          if (record) located.push({ source, record });
        }
        const decoded = await deps.codec.decodeMany(located.map(({ record }) => record.value));
        for (const [index, { source, record }] of located.entries()) {
          const outcome = decoded[index];
          if (!outcome?.ok) {
            deps.logger.warn(
              { topic, partition: record.partition, offset: record.offset, err: outcome?.error },
              'a posting to replay could not be read from its record',
            );
            continue;
          }
          const posting = describePosting(outcome.value, record.key, record.headers);
          if (posting.eventId !== source.postingId) {
            deps.logger.warn(
              { topic, partition: record.partition, offset: record.offset, postingId: source.postingId },
              'the record at a posting’s place on the topic is another posting; it is not replayed',
            );
            continue;
          }
          found.set(posting.eventId, {
            eventId: posting.eventId,
            uetr: posting.uetr,
            eventClass: posting.eventClass,
            eventName: posting.eventName,
            ...(posting.stageVersion === undefined ? {} : { stageVersion: posting.stageVersion }),
            topic,
            partition: record.partition,
            offset: Number(record.offset),
            producedAt: new Date(Number(record.timestamp)),
            body: posting.body,
            ...(record.headers.traceparent ? { traceparent: record.headers.traceparent } : {}),
          });
        }
      }
      return found;
    },
  };
}
