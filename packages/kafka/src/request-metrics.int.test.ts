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
import { createKafka, type KafkaClient } from './kafka.ts';
import type { KafkaRequestEvent } from './request-metrics.ts';

let kafka: KafkaClient;
let codec: AvroCodec<PaymentStep>;
const requests: KafkaRequestEvent[] = [];

beforeAll(async () => {
  const found = await endpoints();
  kafka = createKafka({
    brokers: found.brokers,
    clientId: 'kafka-test-requests',
    onRequest: (event) => requests.push(event),
  });
  const serde = createAvroSerde({ registryUrl: found.registryUrl, avro: avroOptions });
  codec = await serde.codec<PaymentStep>(`${uniqueName('requests')}-value`, paymentStepV1);
});

afterAll(async () => {
  await kafka.close();
});

const apis = (from: number) => new Set(requests.slice(from).map((event) => event.api));

describe('requests reported by the client', () => {
  test("every producer's, consumer's and admin's requests reach onRequest, by API", async () => {
    const topic = uniqueName('requests');
    await kafka.ensureTopics([{ topic, partitions: 1 }]);
    expect(apis(0)).toContain('CreateTopics');

    const handled = signal();
    const consumer = await kafka.runConsumer({
      groupId: uniqueName('requests-group'),
      topics: [topic],
      codec,
      retry: { maxAttempts: 1 },
      handleRecord: async () => handled.resolve(),
    });
    try {
      const beforeProduce = requests.length;
      const producer = kafka.createProducer<{ [topic]: PaymentStep }>({ codecs: { [topic]: codec } });
      await producer.send(topic, [{ key: 'uetr-1', value: { uetr: 'uetr-1', sequence: 1, amount: '1.00' } }]);
      const produced = requests.slice(beforeProduce).filter((event) => event.api === 'Produce');
      expect(produced.length).toBeGreaterThan(0);
      expect(produced.every((event) => event.bytes > 0 && event.durationMs >= 0)).toBe(true);
      await within(handled.promise, 30_000, 'the record handled');
      for (const api of ['JoinGroup', 'SyncGroup', 'Fetch']) expect(apis(0)).toContain(api);
      await producer.disconnect();
    } finally {
      await consumer.stop();
    }
    // A graceful stop commits what was handled and leaves the group.
    for (const api of ['OffsetCommit', 'LeaveGroup']) expect(apis(0)).toContain(api);
  });
});
