import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  avroOptions,
  endpoints,
  type PaymentStep,
  paymentStepV1,
  rawProducer,
  signal,
  uniqueName,
  within,
} from '../test/fixtures.ts';
import { type AvroCodec, createAvroSerde } from './avro-serde.ts';
import type { ConsumerRunner } from './consumer.ts';
import type { DeadLetterRecord } from './dead-letters.ts';
import { createKafka, type KafkaClient } from './kafka.ts';

let brokers: string[];
let kafka: KafkaClient;
let codec: AvroCodec<PaymentStep>;
let runner: ConsumerRunner | undefined;

beforeAll(async () => {
  const found = await endpoints();
  brokers = found.brokers;
  kafka = createKafka({ brokers, clientId: 'kafka-test-dead-letters' });
  const serde = createAvroSerde({ registryUrl: found.registryUrl, avro: avroOptions });
  codec = await serde.codec<PaymentStep>(`${uniqueName('dead-letters')}-value`, paymentStepV1);
});

afterAll(async () => {
  await runner?.stop();
  await kafka.close();
});

describe('dead-letter admin', () => {
  test('lists a group’s dead letters with their reasons and hands a refused record back to that group alone', async () => {
    const topic = uniqueName('dlq-source');
    await kafka.ensureTopics([{ topic, partitions: 2 }]);
    const groupId = uniqueName('dlq-group');
    let refusing = true;
    const handled: {
      key: string;
      sequence: number;
      attempt: number;
      offset: string;
      trace?: string;
      possiblyHandled?: true;
    }[] = [];
    const goodDone = signal();
    const redriven = signal();
    runner = await kafka.runConsumer({
      groupId,
      topics: [topic],
      codec,
      retry: { delaysMs: [200], maxAttempts: 2 },
      handleRecord: async (record) => {
        if (record.key === 'refused' && refusing) {
          throw Object.assign(new Error('debtor account closed'), { code: 'AC04', retriable: false });
        }
        handled.push({
          key: record.key,
          sequence: record.value.sequence,
          attempt: record.attempt,
          offset: record.offset,
          ...(record.headers.traceparent ? { trace: record.headers.traceparent } : {}),
          ...(record.possiblyHandled ? { possiblyHandled: record.possiblyHandled } : {}),
        });
        if (handled.filter((entry) => entry.key === 'good').length === 2) goodDone.resolve();
        if (record.key === 'refused') redriven.resolve();
      },
    });
    const producer = kafka.createProducer<{ [topic]: PaymentStep }>({ codecs: { [topic]: codec } });
    await producer.send(topic, [
      { key: 'good', value: { uetr: 'good', sequence: 1, amount: '1.00' } },
      {
        key: 'refused',
        value: { uetr: 'refused', sequence: 1, amount: '2.00' },
        headers: { traceparent: '00-4f1c7f448a474c369b380e6f2f1d2c11-00f067aa0ba902b7-01' },
      },
    ]);
    await producer.disconnect();
    // Bytes that are not Avro at all: a poison record.
    const raw = await rawProducer(brokers);
    await raw.send({ topic, messages: [{ key: 'poison', value: Buffer.from('not avro') }] });
    await raw.disconnect();
    const late = kafka.createProducer<{ [topic]: PaymentStep }>({ codecs: { [topic]: codec } });
    await late.send(topic, [{ key: 'good', value: { uetr: 'good', sequence: 2, amount: '3.00' } }]);
    await late.disconnect();
    await within(goodDone.promise, 30_000, 'the good records');

    const admin = kafka.deadLetters();
    const deadLetterTopic = `${groupId}.dlq`;
    let dead: DeadLetterRecord[] = [];
    // The dead-letter writes are asynchronous to the handler; read until both are there.
    for (let tries = 0; dead.length < 2 && tries < 50; tries += 1) {
      dead = await admin.read(deadLetterTopic);
    }
    expect(dead).toHaveLength(2);
    const summary = (await admin.topics()).find((entry) => entry.topic === deadLetterTopic);
    expect(summary).toEqual({ topic: deadLetterTopic, group: groupId, records: 2 });

    const refused = dead.find((record) => record.key === 'refused') as DeadLetterRecord;
    expect(refused).toMatchObject({
      reason: 'non-retriable',
      group: groupId,
      attempts: 1,
      errorCode: 'AC04',
      errorMessage: 'debtor account closed',
      redrivable: true,
      headers: { traceparent: '00-4f1c7f448a474c369b380e6f2f1d2c11-00f067aa0ba902b7-01' },
    });
    expect(refused.origin.topic).toBe(topic);
    expect(refused.id).toBe(`${refused.partition}:${refused.offset}`);
    expect(await codec.decode(refused.value as Buffer)).toEqual({
      uetr: 'refused',
      sequence: 1,
      amount: '2.00',
    });
    const poison = dead.find((record) => record.key === 'poison') as DeadLetterRecord;
    expect(poison).toMatchObject({ reason: 'poison', attempts: 0, errorCode: 'AVRO_NOT_WIRE_FORMAT' });
    expect(poison.value?.toString()).toBe('not avro');
    expect(await admin.read(deadLetterTopic, { limit: 1 })).toHaveLength(1);

    // The cause is mended; the record goes back to its group with its origin, headers and a fresh attempt,
    // marked as one that may have been handled before (it failed before).
    refusing = false;
    await admin.redrive([refused]);
    await within(redriven.promise, 30_000, 'the redriven record');
    expect(handled.find((entry) => entry.key === 'refused')).toEqual({
      key: 'refused',
      sequence: 1,
      attempt: 1,
      offset: refused.origin.offset,
      trace: '00-4f1c7f448a474c369b380e6f2f1d2c11-00f067aa0ba902b7-01',
      possiblyHandled: true,
    });
    expect(handled.filter((entry) => entry.key === 'good').map((entry) => entry.sequence)).toEqual([1, 2]);
    // Redriving leaves the dead-letter topic as it was: it is an audit trail, not a queue.
    expect(await admin.read(deadLetterTopic)).toHaveLength(2);
  }, 120_000);

  test('refuses what is not a dead-letter topic and a record whose origin is a retry tier', async () => {
    const admin = kafka.deadLetters();
    await expect(admin.read('rp.debits.received.v1')).rejects.toMatchObject({
      reason: 'KAFKA_TOPIC_MISCONFIGURED',
    });
    await expect(admin.read(`${uniqueName('never')}.dlq`)).rejects.toMatchObject({
      reason: 'KAFKA_TOPIC_MISCONFIGURED',
    });
    const fromTier: DeadLetterRecord = {
      id: '0:0',
      topic: 'group.dlq',
      partition: 0,
      offset: '0',
      key: 'k',
      deadLetteredAt: new Date().toISOString(),
      reason: 'poison',
      group: 'group',
      origin: { topic: 'group.retry.1', partition: 0, offset: '0', timestamp: new Date().toISOString() },
      attempts: 0,
      headers: {},
      value: null,
      redrivable: false,
    };
    await expect(admin.redrive([fromTier])).rejects.toMatchObject({ reason: 'KAFKA_REQUEST_REJECTED' });
  });
});
