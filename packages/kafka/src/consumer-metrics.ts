import type { Metrics } from '@rp/runtime';
import type { KafkaRequestEvent } from './request-metrics.ts';
import { kafkaRequestMetrics } from './request-metrics.ts';
import { type DeadLetterReason, deadLetterReasons } from './retry-policy.ts';

/** How far one source partition of a consumer is behind its end. */
export interface LagReading {
  readonly topic: string;
  readonly partition: number;
  /** Records between the next one the consumer would handle and the partition's end as last seen. */
  readonly records: bigint;
}

/**
 * Told what the consumers of a `createKafka` go through, for metrics: every runner of the client reports
 * to the same observer, naming its group.
 */
export interface ConsumerObserver {
  /** A record written to the group's dead-letter topic (told once the broker has it). */
  deadLettered(groupId: string, topic: string, reason: DeadLetterReason): void;
  /** A source partition that handled nothing for the stall period with records waiting (it is resumed). */
  stalled(groupId: string, topic: string): void;
  /** The consumer crashed; `restarted`: kafkajs starts it again itself (else the runner does, later). */
  crashed(groupId: string, restarted: boolean): void;
  /**
   * A consumer of `topics` runs: its counters' series start at zero (so that an alert on their increase
   * sees the first one), and `lag` is read at each scrape until the returned removal (at its stop).
   */
  started(groupId: string, topics: readonly string[], lag: () => readonly LagReading[]): () => void;
}

/**
 * A service's consumers, as metrics: the `consumers` option of `createKafka`.
 * - `rp_kafka_consumer_lag_records{group,topic,partition}`: records on each partition the process owns
 *   that it has not handled yet, read at the scrape (the partition's end is the one its last fetch, or
 *   its last stall check, saw; a partition that is not fetched at all shows its last figure).
 * - `rp_kafka_dead_letters_total{group,topic,reason}`: records moved to `<group>.dlq`.
 * - `rp_kafka_partition_stalls_total{group,topic}`: a partition found handling nothing with records waiting.
 * - `rp_kafka_consumer_crashes_total{group,restarted}`: the consumer crashed (it is started again).
 */
export function kafkaConsumerMetrics(metrics: Metrics): ConsumerObserver {
  const readers = new Map<symbol, { groupId: string; read: () => readonly LagReading[] }>();
  metrics.gauge(
    'rp_kafka_consumer_lag_records',
    'Records on a partition this process owns that it has not handled yet, by consumer group (read at the scrape)',
    ['group', 'topic', 'partition'],
    {
      collect(gauge) {
        gauge.reset();
        for (const { groupId, read } of readers.values()) {
          for (const reading of read()) {
            const labels = { group: groupId, topic: reading.topic, partition: String(reading.partition) };
            gauge.set(labels, Number(reading.records > 0n ? reading.records : 0n));
          }
        }
      },
    },
  );
  const deadLetters = metrics.counter(
    'rp_kafka_dead_letters_total',
    "Records moved to a consumer group's dead-letter topic, by the topic they came from and why",
    ['group', 'topic', 'reason'],
  );
  const stalls = metrics.counter(
    'rp_kafka_partition_stalls_total',
    'Partitions found handling nothing for the stall period with records waiting (each is resumed)',
    ['group', 'topic'],
  );
  const crashes = metrics.counter(
    'rp_kafka_consumer_crashes_total',
    'Consumer crashes; restarted="true" when kafkajs starts the consumer again itself, else the runner does',
    ['group', 'restarted'],
  );
  return {
    deadLettered: (groupId, topic, reason) => deadLetters.inc({ group: groupId, topic, reason }),
    stalled: (groupId, topic) => stalls.inc({ group: groupId, topic }),
    crashed: (groupId, restarted) => crashes.inc({ group: groupId, restarted: String(restarted) }),
    started(groupId, topics, read) {
      for (const topic of topics) {
        for (const reason of deadLetterReasons) deadLetters.inc({ group: groupId, topic, reason }, 0);
        stalls.inc({ group: groupId, topic }, 0);
      }
      for (const restarted of ['true', 'false']) crashes.inc({ group: groupId, restarted }, 0);
      const id = Symbol(groupId);
      readers.set(id, { groupId, read });
      return () => {
        readers.delete(id);
      };
    },
  };
}

/**
 * Every Kafka metric of a service, spread into `createKafka`'s options: its requests
 * (`kafkaRequestMetrics`) and its consumers (`kafkaConsumerMetrics`).
 */
export function kafkaMetrics(metrics: Metrics): {
  onRequest: (event: KafkaRequestEvent) => void;
  consumers: ConsumerObserver;
} {
  return { onRequest: kafkaRequestMetrics(metrics), consumers: kafkaConsumerMetrics(metrics) };
}
