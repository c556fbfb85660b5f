import { randomUUID } from 'node:crypto';
import type { Admin, Batch, Kafka as KafkaJs } from 'kafkajs';
import { fromKafkaJsError, KafkaError } from './errors.ts';

export interface OneOffReadOptions {
  readonly topic: string;
  /** Names the read's group: `<groupPrefix>.<topic>.<uuid>`. */
  readonly groupPrefix: string;
  /** Where a partition without a start of its own begins: its first record, or its end. */
  readonly fromBeginning: boolean;
  /** Partitions that begin at an offset of their own. */
  readonly starts?: ReadonlyMap<number, string>;
  /** Gives up after this long (default 30 s). */
  readonly timeoutMs?: number | undefined;
  /** What is read, for the error: "reading <what>". */
  readonly what: string;
}

/**
 * Reads a topic off the hot path (an operator's listing or replay) with a consumer of a group of its own,
 * which commits nothing and is deleted afterwards. `onBatch` sees each batch fetched, may stop fetching
 * its partition (`pause`), and returns true once it has read what it wanted; the read then ends. It fails
 * with KAFKA_UNAVAILABLE after `timeoutMs`.
 */
export async function readOnce(
  deps: { kafka: KafkaJs; admin(): Promise<Admin> },
  options: OneOffReadOptions,
  onBatch: (batch: Batch, pause: () => void) => boolean,
): Promise<void> {
  const { topic } = options;
  const groupId = `${options.groupPrefix}.${topic}.${randomUUID()}`;
  const consumer = deps.kafka.consumer({ groupId, maxWaitTimeInMs: 200, allowAutoTopicCreation: false });
  let finish: () => void = () => {};
  const finished = new Promise<void>((resolve) => {
    finish = resolve;
  });
  let timer: NodeJS.Timeout | undefined;
  const timeoutMs = options.timeoutMs ?? 30_000;
  try {
    await consumer.connect();
    await consumer.subscribe({ topics: [topic], fromBeginning: options.fromBeginning });
    await consumer.run({
      autoCommit: false,
      eachBatch: async ({ batch }) => {
        const pause = () => consumer.pause([{ topic, partitions: [batch.partition] }]);
        if (onBatch(batch, pause)) finish();
      },
    });
    // Applied when each partition is fetched first.
    for (const [partition, offset] of options.starts ?? []) consumer.seek({ topic, partition, offset });
    await Promise.race([
      finished,
      new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new KafkaError('KAFKA_UNAVAILABLE', `reading ${topic} took over ${timeoutMs} ms`)),
          timeoutMs,
        );
      }),
    ]);
  } catch (error) {
    throw fromKafkaJsError(error, `reading ${options.what}`);
  } finally {
    clearTimeout(timer);
    await consumer.disconnect().catch(() => {});
    await (await deps.admin()).deleteGroups([groupId]).catch(() => {});
  }
}
