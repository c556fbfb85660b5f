import type { AvroCodec, ConsumedRecord, KafkaClient } from '@rp/kafka';
import { uniqueName } from '@rp/testkit';

/** Records of one topic as a test sees them, with a way to wait for the ones it expects. */
export interface TopicReader<T> {
  readonly records: readonly ConsumedRecord<T>[];
  /** Resolves once `ready` holds for the records read so far; rejects after `timeoutMs`. */
  waitUntil<R>(
    ready: (records: readonly ConsumedRecord<T>[]) => R | undefined,
    timeoutMs?: number,
  ): Promise<R>;
  stop(): Promise<void>;
}

/**
 * A plain consumer of one topic in a group of its own: no retry tiers, no dead-letter topic, every record
 * kept in arrival order. Waiting is on arrivals, never on a timer (the timeout only fails the test).
 */
export async function readTopic<T>(
  kafka: KafkaClient,
  topic: string,
  codec: AvroCodec<T>,
): Promise<TopicReader<T>> {
  const records: ConsumedRecord<T>[] = [];
  const waiters = new Set<() => void>();
  const runner = await kafka.runConsumer<T>({
    groupId: uniqueName('test-reader'),
    topics: [topic],
    codec,
    retry: { maxAttempts: 1, delaysMs: [] },
    declareTopics: false,
    fromBeginning: true,
    maxWaitTimeMs: 100,
    handleRecord: async (record) => {
      records.push(record);
      for (const wake of [...waiters]) wake();
    },
  });
  return {
    records,
    waitUntil(ready, timeoutMs = 30_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const result = ready(records);
          if (result === undefined) return;
          waiters.delete(check);
          clearTimeout(timer);
          resolve(result);
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`${topic}: not ready within ${timeoutMs} ms (${records.length} read)`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    stop: () => runner.stop(),
  };
}

/** Polls `probe` until it returns a value (for state outside Kafka, e.g. a snapshot); rejects after `timeoutMs`. */
export async function eventually<R>(probe: () => Promise<R | undefined>, timeoutMs = 30_000): Promise<R> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
