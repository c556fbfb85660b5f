import type { Admin, Kafka as KafkaJs, Producer as KafkaJsProducer, KafkaMessage } from 'kafkajs';
import { fromKafkaJsError, KafkaError } from './errors.ts';
import { retryTopicName } from './names.ts';
import { readOnce } from './one-off-read.ts';
import {
  headersToStrings,
  type RecordOrigin,
  type RetryState,
  retryHeader,
  retryHeaders,
  userHeaders,
} from './retry-headers.ts';
import type { DeadLetterReason } from './retry-policy.ts';

const deadLetterSuffix = '.dlq';
const retryTierPattern = /\.retry\.\d+$/;

/** One dead-letter topic: its consumer group and how many records it holds. */
export interface DeadLetterTopic {
  readonly topic: string;
  readonly group: string;
  /** Records between each partition's low and high watermark (retention may have removed older ones). */
  readonly records: number;
}

/** A dead-lettered record with the reason and origin its headers carry. */
export interface DeadLetterRecord {
  /** `<partition>:<offset>` on the dead-letter topic: what redrive names. */
  readonly id: string;
  readonly topic: string;
  readonly partition: number;
  readonly offset: string;
  readonly key: string;
  /** When it was dead-lettered. */
  readonly deadLetteredAt: string;
  readonly reason: DeadLetterReason | 'unknown';
  readonly group: string;
  readonly origin: RecordOrigin;
  /** Handler failures before it was dead-lettered (0 for a record that could not be read). */
  readonly attempts: number;
  readonly firstFailureAt?: string;
  readonly errorCode?: string;
  readonly errorMessage?: string;
  /** The record's own headers (traceparent, rp-state, ...). */
  readonly headers: Readonly<Record<string, string>>;
  readonly value: Buffer | null;
  /** Whether it can go back to its group: false for records whose origin is a retry tier. */
  readonly redrivable: boolean;
}

export interface DeadLetterAdmin {
  /** Every dead-letter topic on the cluster, with its record count. */
  topics(): Promise<DeadLetterTopic[]>;
  /** The oldest `limit` records of a dead-letter topic (default 100), oldest first. */
  read(topic: string, options?: { limit?: number; timeoutMs?: number }): Promise<DeadLetterRecord[]>;
  /**
   * Hands records back to their consumer group through its first retry tier, due now, with a fresh
   * attempt count; only that group handles them again, and in order behind its key's waiting records.
   */
  redrive(records: readonly DeadLetterRecord[]): Promise<void>;
}

export function isDeadLetterTopic(topic: string): boolean {
  return topic.endsWith(deadLetterSuffix) && topic.length > deadLetterSuffix.length;
}

function groupOf(topic: string): string {
  return topic.slice(0, -deadLetterSuffix.length);
}

export function createDeadLetterAdmin(deps: {
  kafka: KafkaJs;
  admin(): Promise<Admin>;
  createKafkaJsProducer(): KafkaJsProducer;
}): DeadLetterAdmin {
  async function watermarks(topic: string): Promise<{ partition: number; low: bigint; high: bigint }[]> {
    const admin = await deps.admin();
    const offsets = await admin.fetchTopicOffsets(topic);
    return offsets.map((entry) => ({
      partition: entry.partition,
      low: BigInt(entry.low),
      high: BigInt(entry.high),
    }));
  }

  function requireDeadLetterTopic(topic: string): void {
    if (!isDeadLetterTopic(topic)) {
      throw new KafkaError('KAFKA_TOPIC_MISCONFIGURED', `${topic} is not a dead-letter topic (<group>.dlq)`);
    }
  }

  return {
    async topics() {
      try {
        const admin = await deps.admin();
        const names = (await admin.listTopics()).filter(isDeadLetterTopic).sort();
        return await Promise.all(
          names.map(async (topic) => {
            const marks = await watermarks(topic);
            const records = marks.reduce((sum, mark) => sum + Number(mark.high - mark.low), 0);
            return { topic, group: groupOf(topic), records };
          }),
        );
      } catch (error) {
        throw fromKafkaJsError(error, 'listing the dead-letter topics');
      }
    },

    async read(topic, options = {}) {
      requireDeadLetterTopic(topic);
      const limit = options.limit ?? 100;
      let marks: Awaited<ReturnType<typeof watermarks>>;
      try {
        const admin = await deps.admin();
        if (!(await admin.listTopics()).includes(topic)) {
          throw new KafkaError('KAFKA_TOPIC_MISCONFIGURED', `no dead-letter topic ${topic}`);
        }
        marks = await watermarks(topic);
      } catch (error) {
        throw fromKafkaJsError(error, `reading the watermarks of ${topic}`);
      }
      // Read up to where each partition ended when asked; later arrivals wait for the next listing.
      const pending = new Map(
        marks.filter((mark) => mark.high > mark.low).map((mark) => [mark.partition, mark]),
      );
      if (pending.size === 0) return [];
      const found: DeadLetterRecord[] = [];
      await readOnce(
        deps,
        { topic, groupPrefix: 'rp-admin', fromBeginning: true, timeoutMs: options.timeoutMs, what: topic },
        (batch) => {
          const mark = pending.get(batch.partition);
          if (!mark) return false;
          for (const message of batch.messages) {
            const offset = BigInt(message.offset);
            if (offset >= mark.high || found.length >= limit) break;
            found.push(toDeadLetterRecord(topic, batch.partition, message));
          }
          const last = batch.messages.at(-1);
          if (last && BigInt(last.offset) + 1n >= mark.high) pending.delete(batch.partition);
          return pending.size === 0 || found.length >= limit;
        },
      );
      return found
        .sort((a, b) => a.deadLetteredAt.localeCompare(b.deadLetteredAt) || a.partition - b.partition)
        .slice(0, limit);
    },

    async redrive(records) {
      if (records.length === 0) return;
      const byTier = new Map<
        string,
        { key: string; value: Buffer | null; partition: number; headers: Record<string, string> }[]
      >();
      const now = Date.now();
      for (const record of records) {
        requireDeadLetterTopic(record.topic);
        if (!record.redrivable) {
          throw new KafkaError(
            'KAFKA_REQUEST_REJECTED',
            `${record.topic} ${record.id} came from a retry tier, not a source topic; it cannot be redriven`,
          );
        }
        const state: RetryState = {
          origin: record.origin,
          attempt: 0,
          reason: 'failed',
          dueAt: now,
          ...(record.firstFailureAt ? { firstFailureAt: record.firstFailureAt } : {}),
          ...(record.errorCode ? { errorCode: record.errorCode } : {}),
          ...(record.errorMessage ? { errorMessage: record.errorMessage } : {}),
        };
        const tier = retryTopicName(record.group, 1);
        const list = byTier.get(tier) ?? [];
        list.push({
          key: record.key,
          value: record.value,
          partition: record.origin.partition,
          headers: retryHeaders(record.group, record.headers, state),
        });
        byTier.set(tier, list);
      }
      const producer = deps.createKafkaJsProducer();
      try {
        const admin = await deps.admin();
        const existing = new Set(await admin.listTopics());
        for (const tier of byTier.keys()) {
          if (!existing.has(tier)) {
            throw new KafkaError(
              'KAFKA_TOPIC_MISCONFIGURED',
              `${tier} does not exist: the group has no retry tier`,
            );
          }
        }
        await producer.connect();
        await producer.sendBatch({
          acks: -1,
          topicMessages: [...byTier].map(([topic, messages]) => ({ topic, messages })),
        });
      } catch (error) {
        throw fromKafkaJsError(error, 'redriving dead-lettered records');
      } finally {
        await producer.disconnect().catch(() => {});
      }
    },
  };
}

function toDeadLetterRecord(topic: string, partition: number, message: KafkaMessage): DeadLetterRecord {
  const headers = headersToStrings(message.headers);
  const originTopic = headers[retryHeader.originTopic] ?? '';
  const attempts = Number(headers[retryHeader.attempt] ?? 0);
  const reason = headers[retryHeader.deadLetterReason];
  return {
    id: `${partition}:${message.offset}`,
    topic,
    partition,
    offset: message.offset,
    key: message.key?.toString('utf8') ?? '',
    deadLetteredAt: headers[retryHeader.deadLetterAt] ?? new Date(Number(message.timestamp)).toISOString(),
    reason:
      reason === 'retries-exhausted' || reason === 'non-retriable' || reason === 'poison'
        ? reason
        : 'unknown',
    group: headers[retryHeader.group] ?? groupOf(topic),
    origin: {
      topic: originTopic,
      partition: Number(headers[retryHeader.originPartition] ?? partition),
      offset: headers[retryHeader.originOffset] ?? '',
      timestamp: headers[retryHeader.originTimestamp] ?? '',
    },
    attempts: Number.isSafeInteger(attempts) ? attempts : 0,
    ...(headers[retryHeader.firstFailureAt] ? { firstFailureAt: headers[retryHeader.firstFailureAt] } : {}),
    ...(headers[retryHeader.errorCode] ? { errorCode: headers[retryHeader.errorCode] } : {}),
    ...(headers[retryHeader.errorMessage] ? { errorMessage: headers[retryHeader.errorMessage] } : {}),
    headers: userHeaders(headers),
    value: message.value,
    redrivable:
      originTopic !== '' &&
      !retryTierPattern.test(originTopic) &&
      headers[retryHeader.originOffset] !== undefined,
  };
}
