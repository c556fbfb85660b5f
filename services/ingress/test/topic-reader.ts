import type { TopicName, TopicValue } from '@rp/contracts';
import type { ConsumedRecord, KafkaClient } from '@rp/kafka';
import type { PipelineCodecs, TopicNames } from '@rp/pipeline';
import { uniqueName } from '@rp/testkit';

/** Records of one topic as a test sees them, with a way to wait for the ones it expects. */
export interface TopicReader<T extends TopicName> {
  readonly records: readonly ConsumedRecord<TopicValue<T>>[];
  /** Resolves with the first record matching, as soon as it has been read; rejects after `timeoutMs`. */
  waitFor(
    match: (record: ConsumedRecord<TopicValue<T>>) => boolean,
    timeoutMs?: number,
  ): Promise<ConsumedRecord<TopicValue<T>>>;
  stop(): Promise<void>;
}

/**
 * A plain consumer of one topic in a group of its own: no retry tiers, no dead-letter topic, every record
 * kept in arrival order. Waiting is on arrivals, never on a timer (the timeout only fails the test).
 */
export async function readTopic<T extends TopicName>(
  kafka: KafkaClient,
  names: TopicNames,
  codecs: Partial<PipelineCodecs>,
  topic: T,
): Promise<TopicReader<T>> {
  const records: ConsumedRecord<TopicValue<T>>[] = [];
  const waiters = new Set<() => void>();
  const codec = codecs[topic];
  if (!codec) throw new Error(`no codec for ${topic}`);
  const runner = await kafka.runConsumer<TopicValue<T>>({
    groupId: uniqueName('test-reader'),
    topics: [names[topic]],
    codec: codec as never,
    // The handler never fails: no retry tiers, and no dead-letter topic is ever written.
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
    waitFor(match, timeoutMs = 20_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = records.find(match);
          if (!found) return;
          waiters.delete(check);
          clearTimeout(timer);
          resolve(found);
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`no matching record on ${topic} within ${timeoutMs} ms (${records.length} read)`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    stop: () => runner.stop(),
  };
}
