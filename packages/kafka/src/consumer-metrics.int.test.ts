import { createMetrics } from '@rp/runtime';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  avroOptions,
  endpoints,
  type PaymentStep,
  paymentStepV1,
  signal,
  uniqueName,
  within,
} from '../test/fixtures.ts';
import { type AvroCodec, createAvroSerde } from './avro-serde.ts';
import { type ConsumerObserver, kafkaConsumerMetrics } from './consumer-metrics.ts';
import { createKafka, type KafkaClient } from './kafka.ts';

const metrics = createMetrics({ service: 'kafka-test', defaultMetrics: false });
const observed = kafkaConsumerMetrics(metrics);
let deadLetterCounted = false;
/**
 * Resolves with the first offset commit answered after a dead letter was counted: the commit of the batch
 * that held it, made once the batch's offsets were recorded as handled.
 */
const committedAfterDeadLetter = signal();
/** The metrics' observer, telling the test when a dead letter was counted. */
const consumers: ConsumerObserver = {
  ...observed,
  deadLettered(...args) {
    observed.deadLettered(...args);
    deadLetterCounted = true;
  },
};

let kafka: KafkaClient;
let codec: AvroCodec<PaymentStep>;
let brokers: string[];

beforeAll(async () => {
  const found = await endpoints();
  brokers = found.brokers;
  kafka = createKafka({
    brokers,
    clientId: 'kafka-test-consumer-metrics',
    consumers,
    onRequest: (event) => {
      if (event.api === 'OffsetCommit' && deadLetterCounted) committedAfterDeadLetter.resolve();
    },
  });
  const serde = createAvroSerde({ registryUrl: found.registryUrl, avro: avroOptions });
  codec = await serde.codec<PaymentStep>(`${uniqueName('consumer-metrics')}-value`, paymentStepV1);
});

afterAll(async () => {
  await kafka.close();
});

/** The metric's series as the scrape reads them (a collected gauge is collected by this read). */
async function series(name: string): Promise<{ labels: Record<string, string | number>; value: number }[]> {
  const metric = metrics.registry.getSingleMetric(name);
  if (!metric) throw new Error(`${name} is not registered`);
  return (await metric.get()).values as { labels: Record<string, string | number>; value: number }[];
}

describe("a consumer's metrics", () => {
  test('the lag of an owned partition, records dead-lettered by reason, and no lag once stopped', async () => {
    const topic = uniqueName('consumer-metrics');
    const groupId = uniqueName('consumer-metrics-group');
    await kafka.ensureTopics([{ topic, partitions: 1 }]);
    const producer = kafka.createProducer<{ [topic]: PaymentStep }>({ codecs: { [topic]: codec } });
    const entered = signal();
    const gate = signal();
    const last = signal();
    const consumer = await kafka.runConsumer({
      groupId,
      topics: [topic],
      codec,
      handleRecord: async (record) => {
        const { sequence } = record.value;
        if (sequence === 1) {
          entered.resolve();
          await gate.promise;
        }
        if (sequence === 3) {
          throw Object.assign(new Error('creditor account closed'), { code: 'AC04', retriable: false });
        }
        if (sequence === 4) last.resolve();
      },
    });
    const step = (key: string, sequence: number) => ({ key, value: { uetr: key, sequence, amount: '1.00' } });
    const lagOf = async () =>
      (await series('rp_kafka_consumer_lag_records')).filter(({ labels }) => labels.group === groupId);
    try {
      await producer.send(topic, [step('a', 1)]);
      await within(entered.promise, 30_000, 'the first record in its handler');
      // Fetched and not handled: the record in the handler is the partition's lag.
      expect(await lagOf()).toEqual([{ labels: { group: groupId, topic, partition: '0' }, value: 1 }]);

      await producer.send(topic, [step('b', 2), step('c', 3), step('d', 4)]);
      gate.resolve();
      await within(last.promise, 30_000, 'the last record handled');
      await within(committedAfterDeadLetter.promise, 30_000, 'the batch with the dead letter committed');
      expect(await lagOf()).toEqual([{ labels: { group: groupId, topic, partition: '0' }, value: 0 }]);
      const dead = (await series('rp_kafka_dead_letters_total')).filter(
        ({ labels }) => labels.group === groupId,
      );
      // Every reason's series from the start, at zero but the one.
      expect(dead).toEqual(
        expect.arrayContaining([
          { labels: { group: groupId, topic, reason: 'non-retriable' }, value: 1 },
          { labels: { group: groupId, topic, reason: 'retries-exhausted' }, value: 0 },
          { labels: { group: groupId, topic, reason: 'poison' }, value: 0 },
        ]),
      );
      expect(dead).toHaveLength(3);
    } finally {
      await consumer.stop();
      await producer.disconnect();
    }
    // A stopped consumer owns no partition: its series are gone.
    expect(await lagOf()).toEqual([]);
  });
});
