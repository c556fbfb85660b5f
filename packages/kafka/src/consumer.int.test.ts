import { createMetrics } from '@rp/runtime';
import {
  type Admin,
  type Consumer,
  type ConsumerRunConfig,
  KafkaJSNonRetriableError,
  Kafka as KafkaJs,
  logLevel,
} from 'kafkajs';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  avroOptions,
  endpoints,
  type PaymentStep,
  type PaymentStepV2,
  paymentStepV1,
  paymentStepV2,
  rawProducer,
  readTopic,
  signal,
  uniqueName,
  within,
} from '../test/fixtures.ts';
import { type AvroCodec, createAvroSerde } from './avro-serde.ts';
import { type ConsumerDeps, type ConsumerRunner, startConsumer } from './consumer.ts';
import { type ConsumerObserver, kafkaConsumerMetrics } from './consumer-metrics.ts';
import { KafkaError } from './errors.ts';
import type { ConsumedRecord } from './handler.ts';
import { createKafka, type KafkaClient } from './kafka.ts';
import { silentLogger } from './logger.ts';
import { retryTopicName } from './names.ts';
import { createRegistryClient, type RegistryClient } from './registry-client.ts';
import { retryHeader } from './retry-headers.ts';

let brokers: string[];
let kafka: KafkaClient;
let codec: AvroCodec<PaymentStep>;
const runners: ConsumerRunner[] = [];

beforeAll(async () => {
  const found = await endpoints();
  brokers = found.brokers;
  kafka = createKafka({ brokers, clientId: 'kafka-test-consumer' });
  const serde = createAvroSerde({ registryUrl: found.registryUrl, avro: avroOptions });
  codec = await serde.codec<PaymentStep>(`${uniqueName('consumer')}-value`, paymentStepV1);
});

afterAll(async () => {
  await Promise.all(runners.map((runner) => runner.stop()));
  await kafka.close();
});

function track(runner: ConsumerRunner): ConsumerRunner {
  runners.push(runner);
  return runner;
}

const step = (uetr: string, sequence: number): PaymentStep => ({
  uetr,
  sequence,
  amount: `${sequence}.${sequence % 100}`.padEnd(4, '0'),
});

/** Produces `perKey` records for each key, sequence 1..perKey, in sequence order, many sends at once. */
async function produceSteps(
  topic: string,
  keys: readonly string[],
  perKey: number,
  sendSize = 100,
): Promise<void> {
  const producer = kafka.createProducer<{ [topic]: PaymentStep }>({ codecs: { [topic]: codec } });
  const records = [];
  for (let sequence = 1; sequence <= perKey; sequence += 1) {
    for (const key of keys)
      records.push({ key, value: step(key, sequence), headers: { traceparent: `trace-${key}` } });
  }
  const sends = [];
  for (let start = 0; start < records.length; start += sendSize) {
    sends.push(producer.send(topic, records.slice(start, start + sendSize)));
  }
  await Promise.all(sends);
  await producer.disconnect();
}

/** Sequences seen per key, in the order the handler saw them. */
function seenBy(records: readonly ConsumedRecord<PaymentStep>[]): Map<string, number[]> {
  const byKey = new Map<string, number[]>();
  for (const record of records) {
    const list = byKey.get(record.key) ?? [];
    list.push(record.value.sequence);
    byKey.set(record.key, list);
  }
  return byKey;
}

/** A runner's dependencies on a kafkajs client of the test's own, with `admin` as its admin client. */
function rawDeps(raw: KafkaJs, admin: Admin): ConsumerDeps {
  return {
    kafka: raw,
    admin: async () => admin,
    ensureTopics: (topics) => kafka.ensureTopics(topics),
    logger: silentLogger,
    createKafkaJsProducer: () => raw.producer({ idempotent: true, maxInFlightRequests: 1 }),
  };
}

/** A kafkajs client whose consumers the test can reach, to act on them behind the runner's back. */
function capturingConsumers(raw: KafkaJs): {
  kafka: KafkaJs;
  consumers: Consumer[];
  configs: Parameters<KafkaJs['consumer']>[0][];
} {
  const consumers: Consumer[] = [];
  const configs: Parameters<KafkaJs['consumer']>[0][] = [];
  const kafka = new Proxy(raw, {
    get(target, property, receiver) {
      if (property !== 'consumer') return Reflect.get(target, property, receiver);
      return (config: Parameters<typeof raw.consumer>[0]): Consumer => {
        const consumer = target.consumer(config);
        consumers.push(consumer);
        configs.push(config);
        return consumer;
      };
    },
  });
  return { kafka, consumers, configs };
}

/**
 * A runner on a one-partition topic holding five records (sequences 1..5 of key 'a'), whose kafkajs
 * consumer the test can pause behind its back. `firstFive` resolves once it handled those, `all` once it
 * handled ten.
 */
async function pausableRunner(name: string, stallMs: number, observer?: ConsumerObserver) {
  const topic = uniqueName(name);
  await kafka.ensureTopics([{ topic, partitions: 1 }]);
  await produceSteps(topic, ['a'], 5);
  const raw = new KafkaJs({ brokers, clientId: `kafka-test-${name}`, logLevel: logLevel.NOTHING });
  const capturing = capturingConsumers(raw);
  const admin = raw.admin();
  await admin.connect();
  const groupId = uniqueName(`${name}-group`);
  const seen: number[] = [];
  const firstFive = signal();
  const all = signal();
  const runner = track(
    await startConsumer(
      { ...rawDeps(raw, admin), kafka: capturing.kafka, ...(observer ? { observer } : {}) },
      {
        groupId,
        topics: [topic],
        codec,
        stallMs,
        handleRecord: async (record) => {
          seen.push(record.value.sequence);
          if (seen.length === 5) firstFive.resolve();
          if (seen.length === 10) all.resolve();
        },
      },
    ),
  );
  return {
    topic,
    groupId,
    raw,
    admin,
    consumer: capturing.consumers[0] as Consumer,
    seen,
    firstFive: firstFive.promise,
    all: all.promise,
    close: async () => {
      await runner.stop();
      await admin.disconnect();
    },
  };
}

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, index) => from + index);

describe('consumer runner', () => {
  test('(a) 10,000 records across 200 keys arrive complete and in order per key', async () => {
    const topic = uniqueName('bulk');
    const keys = Array.from({ length: 200 }, (_, index) => `uetr-${index}`);
    await kafka.ensureTopics([{ topic, partitions: 6 }]);
    const producedAt = Date.now();
    await produceSteps(topic, keys, 50, 250);
    const produceMs = Date.now() - producedAt;

    const handled: ConsumedRecord<PaymentStep>[] = [];
    const distinct = new Set<string>();
    const all = signal();
    const consumedAt = Date.now();
    track(
      await kafka.runConsumer({
        groupId: uniqueName('bulk-group'),
        topics: [topic],
        codec,
        partitionsConsumedConcurrently: 6,
        handleBatch: async (records) => {
          for (const record of records) {
            handled.push(record);
            distinct.add(`${record.key}:${record.value.sequence}`);
          }
          if (distinct.size === 10_000) all.resolve();
        },
      }),
    );
    await within(all.promise, 90_000, '10,000 records');
    const consumeMs = Date.now() - consumedAt;
    console.info(`(a) produced 10,000 in ${produceMs} ms, consumed in ${consumeMs} ms`);

    const byKey = seenBy(handled);
    expect(byKey.size).toBe(200);
    for (const [key, sequences] of byKey) {
      // At-least-once allows a re-delivered suffix; after removing exact repeats the order must be 1..50.
      const firstSeen = sequences.filter((sequence, index) => sequences.indexOf(sequence) === index);
      expect(firstSeen, key).toEqual(range(1, 50));
      expect(sequences, `${key} delivered twice in a clean run`).toEqual(range(1, 50));
    }
    const sample = handled.find((record) => record.key === 'uetr-7' && record.value.sequence === 12);
    expect(sample?.value).toEqual(step('uetr-7', 12));
    expect(sample?.headers.traceparent).toBe('trace-uetr-7');
    expect(sample?.attempt).toBe(1);
  });

  test('(b) a key whose handler keeps failing goes through the retry tiers to the dead-letter topic while other keys flow', async () => {
    const topic = uniqueName('failing');
    await kafka.ensureTopics([{ topic, partitions: 1 }]);
    const goodKeys = Array.from({ length: 30 }, (_, index) => `good-${index}`);
    // One partition: the failing key's records sit between the good ones, so blocking would show.
    await produceSteps(topic, ['bad', ...goodKeys], 3, 31);
    const producer = kafka.createProducer<{ [topic]: PaymentStep }>({ codecs: { [topic]: codec } });
    await producer.send(
      topic,
      goodKeys.map((key) => ({ key, value: step(key, 4) })),
    );
    await producer.disconnect();

    const events: { key: string; sequence: number; attempt: number; offset: string; at: number }[] = [];
    const goodDone = signal();
    let goodCount = 0;
    const runner = track(
      await kafka.runConsumer({
        groupId: uniqueName('failing-group'),
        topics: [topic],
        codec,
        retry: { delaysMs: [300, 600], maxAttempts: 3 },
        handleRecord: async (record) => {
          events.push({
            key: record.key,
            sequence: record.value.sequence,
            attempt: record.attempt,
            offset: record.offset,
            at: Date.now(),
          });
          if (record.key === 'bad') throw Object.assign(new Error('bank unreachable'), { code: 'BANK_DOWN' });
          goodCount += 1;
          if (goodCount === goodKeys.length * 4) goodDone.resolve();
        },
      }),
    );
    expect(runner.retryTopics).toEqual([`${runner.groupId}.retry.1`, `${runner.groupId}.retry.2`]);
    await within(goodDone.promise, 30_000, 'the good keys');
    const dead = await readTopic(brokers, runner.deadLetterTopic, 3);

    for (const key of goodKeys) {
      expect(events.filter((event) => event.key === key).map((event) => event.sequence)).toEqual([
        1, 2, 3, 4,
      ]);
    }

    const bad = events.filter((event) => event.key === 'bad');
    expect(bad.map((event) => [event.sequence, event.attempt])).toEqual([
      [1, 1],
      [1, 2],
      [1, 3],
      [2, 1],
      [2, 2],
      [2, 3],
      [3, 1],
      [3, 2],
      [3, 3],
    ]);
    const lastGood = Math.max(...events.filter((event) => event.key !== 'bad').map((event) => event.at));
    const badFirstRetry = bad[1]?.at ?? 0;
    expect(lastGood).toBeLessThan(badFirstRetry);
    expect((bad[2]?.at ?? 0) - (bad[1]?.at ?? 0)).toBeGreaterThanOrEqual(550);

    expect(dead.map((record) => record.key)).toEqual(['bad', 'bad', 'bad']);
    const deadSteps = await Promise.all(dead.map((record) => codec.decode(record.value as Buffer)));
    expect(deadSteps).toEqual([step('bad', 1), step('bad', 2), step('bad', 3)]);
    const sourceOffsets = bad.filter((event) => event.attempt === 1).map((event) => event.offset);
    dead.forEach((record, index) => {
      const headers = record.headers;
      expect(headers[retryHeader.deadLetterReason]).toBe('retries-exhausted');
      expect(headers[retryHeader.attempt]).toBe('3');
      expect(headers[retryHeader.errorCode]).toBe('BANK_DOWN');
      expect(headers[retryHeader.errorMessage]).toBe('bank unreachable');
      expect(headers[retryHeader.originTopic]).toBe(topic);
      expect(headers[retryHeader.originPartition]).toBe('0');
      expect(headers[retryHeader.originOffset]).toBe(sourceOffsets[index]);
      expect(headers[retryHeader.group]).toBe(runner.groupId);
      expect(headers.traceparent).toBe('trace-bad');
      const firstFailure = Date.parse(headers[retryHeader.firstFailureAt] ?? '');
      expect(firstFailure).toBeLessThanOrEqual(Date.parse(headers[retryHeader.deadLetterAt] ?? ''));
      expect(headers[retryHeader.deadLetterAt]).toMatch(/Z$/);
    });
    await runner.stop();
  });

  test('(b2) batch handler: a non-retriable failure is dead-lettered at once and releases its key', async () => {
    const topic = uniqueName('final');
    await kafka.ensureTopics([{ topic, partitions: 2 }]);
    await produceSteps(topic, ['refused', 'fine'], 3, 2);
    const seen: string[] = [];
    const done = signal();
    const runner = track(
      await kafka.runConsumer({
        groupId: uniqueName('final-group'),
        topics: [topic],
        codec,
        retry: { delaysMs: [200], maxAttempts: 3 },
        handleBatch: async (records, context) => {
          for (const record of records) {
            if (record.key === 'refused' && record.value.sequence === 2) {
              context.fail(
                record,
                Object.assign(new Error('creditor account closed'), { code: 'AC04', retriable: false }),
              );
              continue;
            }
            seen.push(`${record.key}:${record.value.sequence}`);
          }
          if (seen.length === 5) done.resolve();
        },
      }),
    );
    await within(done.promise, 30_000, 'five handled records');
    const [dead] = await readTopic(brokers, runner.deadLetterTopic, 1);
    expect(seen.filter((entry) => entry.startsWith('refused'))).toEqual(['refused:1', 'refused:3']);
    expect(seen.filter((entry) => entry.startsWith('fine'))).toEqual(['fine:1', 'fine:2', 'fine:3']);
    expect(dead?.headers[retryHeader.deadLetterReason]).toBe('non-retriable');
    expect(dead?.headers[retryHeader.errorCode]).toBe('AC04');
    expect(dead?.headers[retryHeader.attempt]).toBe('1');
    expect(runner.isRunning()).toBe(true);
    await runner.stop();
    expect(runner.isRunning()).toBe(false);
  });

  test('refuses to start on a topic that was never declared', async () => {
    await expect(
      kafka.runConsumer({
        groupId: uniqueName('missing-group'),
        topics: [uniqueName('never-declared')],
        codec,
        handleRecord: async () => {},
      }),
    ).rejects.toMatchObject({
      reason: 'KAFKA_TOPIC_MISCONFIGURED',
      code: 'CONFIG_INVALID',
      retriable: false,
    });
  });

  test('(c) a consumer killed mid-stream and restarted neither loses nor reorders a key’s records', async () => {
    const topic = uniqueName('killed');
    const keys = Array.from({ length: 40 }, (_, index) => `uetr-${index}`);
    await kafka.ensureTopics([{ topic, partitions: 3 }]);
    await produceSteps(topic, keys, 75);
    const groupId = uniqueName('killed-group');

    const first: ConsumedRecord<PaymentStep>[] = [];
    const reached = signal();
    const release = signal();
    const runnerA = track(
      await kafka.runConsumer({
        groupId,
        topics: [topic],
        codec,
        maxRecordsPerCall: 40,
        partitionsConsumedConcurrently: 3,
        handleBatch: async (records) => {
          first.push(...records);
          if (first.length >= 1_000) {
            reached.resolve();
            // Hold this call open until the kill: its records are handled but never committed.
            await release.promise;
          }
        },
      }),
    );
    await within(reached.promise, 30_000, 'a thousand records on the first consumer');
    const killed = runnerA.abort();
    release.resolve();
    await killed;
    const handledBeforeKill = first.length;

    const second: ConsumedRecord<PaymentStep>[] = [];
    const complete = signal();
    const firstSeen = new Set(first.map((record) => `${record.key}:${record.value.sequence}`));
    track(
      await kafka.runConsumer({
        groupId,
        topics: [topic],
        codec,
        handleBatch: async (records) => {
          second.push(...records);
          for (const record of records) firstSeen.add(`${record.key}:${record.value.sequence}`);
          if (firstSeen.size === keys.length * 75) complete.resolve();
        },
      }),
    );
    await within(complete.promise, 60_000, 'every record after the restart');

    const before = seenBy(first);
    const after = seenBy(second);
    let redelivered = 0;
    for (const key of keys) {
      const a = before.get(key) ?? [];
      const b = after.get(key) ?? [];
      // The first consumer saw a gap-free prefix, the second a gap-free suffix that starts no later than
      // where the first stopped: re-delivery of a suffix is the only duplication allowed.
      expect(a, key).toEqual(range(1, a.length));
      const resumedAt = b[0] ?? 76;
      expect(resumedAt, key).toBeLessThanOrEqual(a.length + 1);
      expect(b, key).toEqual(range(resumedAt, 75));
      redelivered += a.length - resumedAt + 1;
    }
    expect(handledBeforeKill).toBeGreaterThanOrEqual(1_000);
    // The call held open at the kill was never committed, so its records came again.
    expect(redelivered).toBeGreaterThanOrEqual(1);
    console.info(
      `(c) first consumer handled ${handledBeforeKill}, ${redelivered} re-delivered after the kill`,
    );
  });

  test('(d) bytes that are not Avro and an unknown schema id go to the dead-letter topic; the rest flows', async () => {
    const topic = uniqueName('poison');
    await kafka.ensureTopics([{ topic, partitions: 1 }]);
    const unknownId = Buffer.from(codec.encode(step('p2', 1)));
    unknownId.writeUInt32BE(2_000_000_001, 1);
    const notAvro = Buffer.from('{"uetr":"p1","sequence":1}');
    const producer = await rawProducer(brokers);
    await producer.send({
      topic,
      messages: [
        { key: 'k', value: codec.encode(step('k', 1)) },
        { key: 'p1', value: notAvro, headers: { source: 'bank-x' } },
        { key: 'p2', value: unknownId },
        { key: 'k', value: codec.encode(step('k', 2)) },
      ],
    });
    await producer.disconnect();

    const handled: ConsumedRecord<PaymentStep>[] = [];
    const done = signal();
    const runner = track(
      await kafka.runConsumer({
        groupId: uniqueName('poison-group'),
        topics: [topic],
        codec,
        handleRecord: async (record) => {
          handled.push(record);
          if (record.value.sequence === 2) done.resolve();
        },
      }),
    );
    await within(done.promise, 30_000, 'the record after the poison');
    const dead = await readTopic(brokers, runner.deadLetterTopic, 2);
    expect(handled.map((record) => `${record.key}:${record.value.sequence}`)).toEqual(['k:1', 'k:2']);
    const byKey = new Map(dead.map((record) => [record.key, record]));
    expect(byKey.get('p1')?.value).toEqual(notAvro);
    expect(byKey.get('p1')?.headers).toMatchObject({
      [retryHeader.deadLetterReason]: 'poison',
      [retryHeader.errorCode]: 'AVRO_NOT_WIRE_FORMAT',
      [retryHeader.originTopic]: topic,
      [retryHeader.originOffset]: '1',
      source: 'bank-x',
    });
    expect(byKey.get('p2')?.value).toEqual(unknownId);
    expect(byKey.get('p2')?.headers).toMatchObject({
      [retryHeader.deadLetterReason]: 'poison',
      [retryHeader.errorCode]: 'SCHEMA_NOT_FOUND',
      [retryHeader.originOffset]: '2',
    });
    await runner.stop();
  });

  test('(e) a restarted consumer learns the parked keys from the retry tier before it handles newer records', async () => {
    const topic = uniqueName('parked');
    await kafka.ensureTopics([{ topic, partitions: 1 }]);
    const groupId = uniqueName('parked-group');
    const retry = { delaysMs: [1_500], maxAttempts: 3 };
    await produceSteps(topic, ['slow'], 1);

    const failedOnce = signal();
    const runnerA = track(
      await kafka.runConsumer({
        groupId,
        topics: [topic],
        codec,
        retry,
        handleRecord: async () => {
          failedOnce.resolve();
          throw new Error('bank answered 503');
        },
      }),
    );
    await within(failedOnce.promise, 30_000, 'the first failure');
    await runnerA.stop();

    // The record waits on the retry tier; a newer record of the same key arrives while nobody consumes.
    const producer = kafka.createProducer<{ [topic]: PaymentStep }>({ codecs: { [topic]: codec } });
    await producer.send(topic, [
      { key: 'slow', value: step('slow', 2) },
      { key: 'other', value: step('other', 1) },
    ]);
    await producer.disconnect();

    const order: string[] = [];
    const done = signal();
    track(
      await kafka.runConsumer({
        groupId,
        topics: [topic],
        codec,
        retry,
        handleRecord: async (record) => {
          order.push(`${record.key}:${record.value.sequence}:${record.attempt}`);
          if (order.includes('slow:2:1')) done.resolve();
        },
      }),
    );
    await within(done.promise, 30_000, 'the parked record');
    expect(order.filter((entry) => entry.startsWith('slow'))).toEqual(['slow:1:2', 'slow:2:1']);
    expect(order[0]).toBe('other:1:1');
  });

  test('(f) a join whose read of the retry tiers lags the group does not hold the partition once the group has read past it', async () => {
    const topic = uniqueName('lagging');
    await kafka.ensureTopics([{ topic, partitions: 1 }]);
    const groupId = uniqueName('lagging-group');
    const retry = { delaysMs: [300], maxAttempts: 3 };
    await produceSteps(topic, ['slow'], 1);

    // The first owner fails the record once, handles it from the retry tier, and commits the tier past it.
    const handledFromTier = signal();
    const runnerA = track(
      await kafka.runConsumer({
        groupId,
        topics: [topic],
        codec,
        retry,
        handleRecord: async (record) => {
          if (record.attempt === 1) throw new Error('bank answered 503');
          handledFromTier.resolve();
        },
      }),
    );
    await within(handledFromTier.promise, 30_000, 'the record handled from the retry tier');
    const tier = retryTopicName(groupId, 1);
    const raw = new KafkaJs({ brokers, clientId: 'kafka-test-lagging', logLevel: logLevel.NOTHING });
    const admin = raw.admin();
    await admin.connect();
    try {
      const committedTier = async () =>
        (await admin.fetchOffsets({ groupId, topics: [tier] }))[0]?.partitions[0]?.offset;
      for (let tries = 0; (await committedTier()) !== '1'; tries += 1) {
        if (tries > 300) throw new Error(`the tier's commit never reached 1 (${await committedTier()})`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      await runnerA.stop();
      await produceSteps(topic, ['fresh'], 1);

      // The next owner's first read of the group's offsets says the tier was never committed (as a read
      // at the join can), while its fetch starts where the group is: past the only tier record.
      let reads = 0;
      const lagging = new Proxy(admin, {
        get(target, property, receiver) {
          if (property !== 'fetchOffsets') return Reflect.get(target, property, receiver);
          return async (request: Parameters<typeof admin.fetchOffsets>[0]) => {
            const answer = await target.fetchOffsets(request);
            reads += 1;
            if (reads > 1) return answer;
            return answer.map((entry) => ({
              ...entry,
              partitions: entry.partitions.map((partition) => ({ ...partition, offset: '-1' })),
            }));
          };
        },
      });
      const fresh = signal();
      track(
        await startConsumer(rawDeps(raw, lagging), {
          groupId,
          topics: [topic],
          codec,
          retry,
          handleRecord: async (record) => {
            if (record.key === 'fresh') fresh.resolve();
          },
        }),
      );
      await within(fresh.promise, 30_000, 'the newer record after a lagging join');
      expect(reads).toBeGreaterThan(1);
    } finally {
      await admin.disconnect();
    }
  });

  test("(g) with a commit interval, offsets wait for the handler's flush and are committed together; stop commits what waited", async () => {
    const topic = uniqueName('behind');
    await kafka.ensureTopics([{ topic, partitions: 2 }]);
    const groupId = uniqueName('behind-group');
    const keys = ['a', 'b', 'c', 'd'];
    await produceSteps(topic, keys, 10);

    const buffered: string[] = [];
    const durable = new Set<string>();
    let target = 40;
    let handledAll = signal();
    const flushing = signal();
    const gate = signal();
    let flushes = 0;
    const runner = track(
      await kafka.runConsumer({
        groupId,
        topics: [topic],
        codec,
        commitIntervalMs: 200,
        flush: async () => {
          flushes += 1;
          const taking = buffered.splice(0);
          flushing.resolve();
          await gate.promise;
          for (const entry of taking) durable.add(entry);
        },
        handleBatch: async (records) => {
          for (const record of records) buffered.push(`${record.key}:${record.value.sequence}`);
          if (buffered.length + durable.size >= target) handledAll.resolve();
        },
      }),
    );
    await within(handledAll.promise, 30_000, 'every record handled');
    await within(flushing.promise, 30_000, 'the first flush');
    const raw = new KafkaJs({ brokers, clientId: 'kafka-test-behind', logLevel: logLevel.NOTHING });
    const admin = raw.admin();
    await admin.connect();
    try {
      const committed = async () =>
        ((await admin.fetchOffsets({ groupId, topics: [topic] }))[0]?.partitions ?? [])
          .map((partition) => Number(partition.offset))
          .reduce((sum, offset) => sum + Math.max(0, offset), 0);
      // Handled, but the buffered work is not durable: nothing may be committed.
      expect(await committed()).toBe(0);
      gate.resolve();
      for (let tries = 0; (await committed()) !== 40; tries += 1) {
        if (tries > 300) throw new Error(`the commits never reached 40 (${await committed()})`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(durable.size).toBe(40);
      // Many handler calls, a few flushes: the offsets of both partitions went out together.
      expect(flushes).toBeLessThan(10);

      // What is handled after the last commit is committed by a graceful stop, after a flush.
      target = 44;
      handledAll = signal();
      const producer = kafka.createProducer<{ [topic]: PaymentStep }>({ codecs: { [topic]: codec } });
      await producer.send(
        topic,
        keys.map((key) => ({ key, value: step(key, 11) })),
      );
      await producer.disconnect();
      await within(handledAll.promise, 30_000, 'the later records handled');
      await runner.stop();
      expect(durable.size).toBe(44);
      expect(await committed()).toBe(44);
    } finally {
      await admin.disconnect();
    }
  });

  test('(h) with a commit interval, an abort commits nothing more: the next owner re-delivers what was handled, told it may have been', async () => {
    const topic = uniqueName('behind-abort');
    await kafka.ensureTopics([{ topic, partitions: 1 }]);
    const groupId = uniqueName('behind-abort-group');
    await produceSteps(topic, ['k'], 20);
    const handled = signal();
    const flushing = signal();
    const runner = await kafka.runConsumer({
      groupId,
      topics: [topic],
      codec,
      commitIntervalMs: 100,
      // The buffered work never becomes durable: what a process that dies with it pending does.
      flush: async () => {
        flushing.resolve();
        await new Promise(() => {});
      },
      handleBatch: async (records) => {
        if (records.some((record) => record.value.sequence === 20)) handled.resolve();
      },
    });
    await within(handled.promise, 30_000, 'the records handled');
    await within(flushing.promise, 30_000, 'the flush begun');
    await within(runner.abort(), 30_000, 'the abort');

    const again: ConsumedRecord<PaymentStep>[] = [];
    const all = signal();
    const newer = signal();
    track(
      await kafka.runConsumer({
        groupId,
        topics: [topic],
        codec,
        handleBatch: async (records) => {
          again.push(...records);
          if (again.some((record) => record.value.sequence === 20)) all.resolve();
          if (again.some((record) => record.value.sequence === 25)) newer.resolve();
        },
      }),
    );
    await within(all.promise, 30_000, 'the records re-delivered');
    expect(again.map((record) => record.value.sequence)).toEqual(range(1, 20));
    // Handled by the previous owner, which never committed: the new owner is told so.
    expect(again.every((record) => record.possiblyHandled === true)).toBe(true);

    // Produced after the new owner got the partition: no one handled them before.
    const producer = kafka.createProducer<{ [topic]: PaymentStep }>({ codecs: { [topic]: codec } });
    await producer.send(
      topic,
      range(21, 25).map((sequence) => ({ key: 'k', value: step('k', sequence) })),
    );
    await producer.disconnect();
    await within(newer.promise, 30_000, 'the newer records');
    const fresh = again.filter((record) => record.value.sequence > 20);
    expect(fresh.map((record) => record.value.sequence)).toEqual(range(21, 25));
    expect(fresh.some((record) => record.possiblyHandled !== undefined)).toBe(false);
  });
  test('(o) with heldFrom, a partition is committed up to the oldest record whose work the handler still holds; later rounds commit the rest, and a stop flushes it all', async () => {
    const topic = uniqueName('held');
    await kafka.ensureTopics([{ topic, partitions: 1 }]);
    const groupId = uniqueName('held-group');
    await produceSteps(topic, ['k'], 10);

    // The handler's work in memory, by offset; a round's flush makes durable what lies below `durableBelow`.
    const held = new Set<bigint>();
    let durableBelow = 4n;
    const scopes: boolean[] = [];
    const waiters: { count: number; resolve: () => void }[] = [];
    const flushes = (count: number) =>
      new Promise<void>((resolve) => {
        if (scopes.length >= count) resolve();
        else waiters.push({ count, resolve });
      });
    const handled = signal();
    const runner = track(
      await kafka.runConsumer({
        groupId,
        topics: [topic],
        codec,
        commitIntervalMs: 100,
        flush: async ({ all }) => {
          for (const offset of [...held]) if (all || offset < durableBelow) held.delete(offset);
          scopes.push(all);
          for (const waiter of waiters) if (scopes.length >= waiter.count) waiter.resolve();
        },
        heldFrom: (heldTopic, partition) => {
          if (heldTopic !== topic || partition !== 0) return undefined;
          let oldest: bigint | undefined;
          for (const offset of held) if (oldest === undefined || offset < oldest) oldest = offset;
          return oldest;
        },
        handleBatch: async (records) => {
          for (const record of records) held.add(BigInt(record.offset));
          if (records.some((record) => record.value.sequence === 10)) handled.resolve();
        },
      }),
    );
    const raw = new KafkaJs({ brokers, clientId: 'kafka-test-held', logLevel: logLevel.NOTHING });
    const admin = raw.admin();
    await admin.connect();
    try {
      const committed = async () =>
        Number((await admin.fetchOffsets({ groupId, topics: [topic] }))[0]?.partitions[0]?.offset);
      await within(handled.promise, 30_000, 'every record handled');
      // Two rounds after the last record was handled: the first of them has committed.
      await within(flushes(scopes.length + 2), 30_000, 'two commit rounds');
      expect(await committed()).toBe(4);
      expect(held.size).toBe(6);

      durableBelow = 7n;
      await within(flushes(scopes.length + 2), 30_000, 'two more commit rounds');
      expect(await committed()).toBe(7);
      expect(scopes.every((all) => !all)).toBe(true);

      // A graceful stop flushes everything the handler holds and commits it all.
      await runner.stop();
      expect(scopes.at(-1)).toBe(true);
      expect(held.size).toBe(0);
      expect(await committed()).toBe(10);
    } finally {
      await admin.disconnect();
    }
  });

  test('(i) a consumer that kafkajs stops after a crash it will not restart from is started again, and goes on', async () => {
    const topic = uniqueName('crash');
    await kafka.ensureTopics([{ topic, partitions: 2 }]);
    const keys = ['a', 'b', 'c'];
    await produceSteps(topic, keys, 5);
    const raw = new KafkaJs({ brokers, clientId: 'kafka-test-crash', logLevel: logLevel.NOTHING });
    // The first batch fails with an error kafkajs does not restart from, as a metadata refresh's plain
    // "Broker not connected" after a broker restart does: kafkajs stops the consumer.
    let crashes = 0;
    const crashing = new Proxy(raw, {
      get(target, property, receiver) {
        if (property !== 'consumer') return Reflect.get(target, property, receiver);
        return (config: Parameters<typeof raw.consumer>[0]): Consumer => {
          const consumer = target.consumer(config);
          return new Proxy(consumer, {
            get(inner, name, innerReceiver) {
              if (name !== 'run') return Reflect.get(inner, name, innerReceiver);
              return (run: ConsumerRunConfig) =>
                inner.run({
                  ...run,
                  eachBatch: async (payload) => {
                    if (crashes === 0) {
                      crashes += 1;
                      throw new KafkaJSNonRetriableError('Broker not connected');
                    }
                    await run.eachBatch?.(payload);
                  },
                });
            },
          });
        };
      },
    });
    const admin = raw.admin();
    await admin.connect();
    const seen = new Set<string>();
    const all = signal();
    const runner = track(
      await startConsumer(
        { ...rawDeps(raw, admin), kafka: crashing },
        {
          groupId: uniqueName('crash-group'),
          topics: [topic],
          codec,
          handleRecord: async (record) => {
            seen.add(`${record.key}:${record.value.sequence}`);
            if (seen.size === 15) all.resolve();
          },
        },
      ),
    );
    try {
      await within(all.promise, 60_000, 'every record, after the crash');
      expect(crashes).toBe(1);
      expect(seen.size).toBe(15);
      expect(runner.isRunning()).toBe(true);
    } finally {
      await runner.stop();
      await admin.disconnect();
    }
  });
  test('(j) a pause made before a rejoin, whose resume was lost, does not hold the partition after the join', async () => {
    // The stall check would resume the partition too: this test is about the join alone.
    const paused = await pausableRunner('stray-pause', 0);
    try {
      await within(paused.firstFive, 30_000, 'the first five records');
      const { consumer, topic } = paused;
      let joined = signal();
      consumer.on(consumer.events.GROUP_JOIN, () => joined.resolve());
      // Behind the runner's back: a pause whose resume is lost, as one made by an earlier kafkajs group
      // object whose late resume cleared the runner's record of a newer pause.
      consumer.pause([{ topic, partitions: [0] }]);
      // A second member joins and leaves: two rebalances, after which the first runner owns the
      // partition again (kafkajs keeps its pauses across them).
      const second = await startConsumer(rawDeps(paused.raw, paused.admin), {
        groupId: paused.groupId,
        topics: [topic],
        codec,
        handleRecord: async (record) => {
          paused.seen.push(record.value.sequence);
        },
      });
      await within(joined.promise, 60_000, 'the rebalance as the second member joins');
      joined = signal();
      await second.stop();
      await within(joined.promise, 60_000, 'the rebalance as the second member leaves');
      await produceSteps(topic, ['a'], 5);
      await within(paused.all, 60_000, 'the records produced after the rejoin');
      expect(paused.seen.slice(5)).toEqual(range(1, 5));
    } finally {
      await paused.close();
    }
  });
  test('(k) a partition paused behind the runner, with records waiting, is resumed by the stall check', async () => {
    const metrics = createMetrics({ service: 'kafka-test', defaultMetrics: false });
    const paused = await pausableRunner('stall', 2_000, kafkaConsumerMetrics(metrics));
    try {
      await within(paused.firstFive, 30_000, 'the first five records');
      // No join follows this pause: only the stall check can lift it.
      paused.consumer.pause([{ topic: paused.topic, partitions: [0] }]);
      await produceSteps(paused.topic, ['a'], 5);
      await within(paused.all, 30_000, 'the records produced while the partition was paused');
      expect(paused.seen.slice(5)).toEqual(range(1, 5));
      const stalls = await metrics.registry.getSingleMetric('rp_kafka_partition_stalls_total')?.get();
      // The topic's series started at zero; the stall counted.
      expect(stalls?.values).toEqual([
        { labels: { group: paused.groupId, topic: paused.topic }, value: expect.any(Number) },
      ]);
      expect(stalls?.values[0]?.value).toBeGreaterThanOrEqual(1);
    } finally {
      await paused.close();
    }
  });
  test('(l) a fetch that waits for a megabyte still hands over what came within its wait, in order', async () => {
    const topic = uniqueName('min-bytes');
    await kafka.ensureTopics([{ topic, partitions: 1 }]);
    const raw = new KafkaJs({ brokers, clientId: 'kafka-test-min-bytes', logLevel: logLevel.NOTHING });
    const capturing = capturingConsumers(raw);
    const admin = raw.admin();
    await admin.connect();
    const seen: number[] = [];
    const all = signal();
    const runner = await startConsumer(
      { ...rawDeps(raw, admin), kafka: capturing.kafka },
      {
        groupId: uniqueName('min-bytes-group'),
        topics: [topic],
        codec,
        fetchMinBytes: 1_000_000,
        maxWaitTimeMs: 200,
        handleBatch: async (records) => {
          for (const record of records) seen.push(record.value.sequence);
          if (seen.length === 10) all.resolve();
        },
      },
    );
    try {
      // Far less than a megabyte, produced while the consumer's fetches wait for one.
      await produceSteps(topic, ['a'], 10);
      await within(all.promise, 30_000, 'the ten records');
      expect(seen).toEqual(range(1, 10));
      expect(capturing.configs[0]).toMatchObject({ minBytes: 1_000_000, maxWaitTimeInMs: 200 });
    } finally {
      await runner.stop();
      await admin.disconnect();
    }
  });
  test('(m) a handler that works for longer than the session keeps the membership: heartbeats go on meanwhile', async () => {
    const topic = uniqueName('slow-handler');
    await kafka.ensureTopics([{ topic, partitions: 1 }]);
    await produceSteps(topic, ['a'], 1);
    const raw = new KafkaJs({ brokers, clientId: 'kafka-test-slow-handler', logLevel: logLevel.NOTHING });
    const capturing = capturingConsumers(raw);
    const admin = raw.admin();
    await admin.connect();
    const sessionTimeoutMs = 6_000; // the broker's least
    let handlerStarted = false;
    let handlerRunning = false;
    let beatsWhileHandling = 0;
    let joinsSince = 0;
    const enoughBeats = signal();
    const handled: string[] = [];
    const runner = await startConsumer(
      { ...rawDeps(raw, admin), kafka: capturing.kafka },
      {
        groupId: uniqueName('slow-handler-group'),
        topics: [topic],
        codec,
        sessionTimeoutMs,
        handleBatch: async (records) => {
          if (!handlerStarted) {
            handlerStarted = true;
            handlerRunning = true;
            // Works until the heartbeats sent meanwhile span more than a session (the first may be at once).
            await enoughBeats.promise;
            handlerRunning = false;
          }
          for (const record of records) handled.push(`${record.key}:${record.value.sequence}`);
        },
      },
    );
    const consumer = capturing.consumers[0] as Consumer;
    consumer.on(consumer.events.GROUP_JOIN, () => {
      if (handlerStarted) joinsSince += 1;
    });
    consumer.on(consumer.events.HEARTBEAT, () => {
      if (!handlerRunning) return;
      beatsWhileHandling += 1;
      if (beatsWhileHandling * 3_000 > sessionTimeoutMs + 3_000) enoughBeats.resolve();
    });
    try {
      await within(enoughBeats.promise, 60_000, 'heartbeats while the handler works');
      await produceSteps(topic, ['b'], 1);
      await within(
        (async () => {
          while (!handled.includes('b:1')) await new Promise((resolve) => setImmediate(resolve));
        })(),
        30_000,
        'the record after the slow one',
      );
      // One member all along: never dropped, so no rejoin and the slow record not handed over again.
      expect(handled).toEqual(['a:1', 'b:1']);
      expect(joinsSince).toBe(0);
      const [group] = (await admin.describeGroups([runner.groupId])).groups;
      expect(group?.members).toHaveLength(1);
    } finally {
      enoughBeats.resolve(); // a failed wait leaves no handler behind to hold the stop
      await runner.stop();
      await admin.disconnect();
    }
  });

  test('(n) a registry outage in the middle of a partition sends it back to the first record not handled: every record handled once, in order', async () => {
    const topic = uniqueName('outage-mid-partition');
    await kafka.ensureTopics([{ topic, partitions: 1 }]);
    const { registryUrl } = await endpoints();
    // The consumer's registry client, made to fail while `outage` is set (the real registry behind it).
    const real = createRegistryClient({ url: registryUrl, retries: 0 });
    let outage = false;
    let refused = 0;
    const firstRefusal = signal();
    const failing: RegistryClient = {
      register: (subject, schema) => real.register(subject, schema),
      latest: (subject) => real.latest(subject),
      schemaById: async (id) => {
        if (outage) {
          refused += 1;
          firstRefusal.resolve();
          throw new KafkaError('SCHEMA_REGISTRY_UNAVAILABLE', 'registry down (test)');
        }
        return real.schemaById(id);
      },
    };
    const subject = uniqueName('outage-mid-partition-value');
    const reader = await createAvroSerde({ registryUrl, avro: avroOptions }, failing).codec<PaymentStep>(
      subject,
      paymentStepV1,
    );
    // A newer writer schema, registered by a producer the consumer does not share a cache with.
    const writerV2 = await createAvroSerde({ registryUrl, avro: avroOptions }).codec<PaymentStepV2>(
      subject,
      paymentStepV2,
    );
    const raw = new KafkaJs({
      brokers,
      clientId: 'kafka-test-outage-mid-partition',
      logLevel: logLevel.NOTHING,
    });
    const admin = raw.admin();
    await admin.connect();
    const producer = await rawProducer(brokers);
    const seen: number[] = [];
    const firstTen = signal();
    const all = signal();
    const runner = await startConsumer(rawDeps(raw, admin), {
      groupId: uniqueName('outage-mid-partition-group'),
      topics: [topic],
      codec: reader,
      maxRecordsPerCall: 5,
      handleBatch: async (records) => {
        for (const record of records) seen.push(record.value.sequence);
        if (seen.length >= 10) firstTen.resolve();
        if (seen.length >= 40) all.resolve();
      },
    });
    const send = (from: number, to: number, encode: (value: PaymentStep) => Buffer) =>
      producer.send({
        topic,
        messages: range(from, to).map((sequence) => ({ key: 'k', value: encode(step('k', sequence)) })),
      });
    try {
      await send(1, 10, (value) => reader.encode(value));
      await within(firstTen.promise, 30_000, 'the first ten records');
      outage = true;
      // 11-20 need the newer schema, which the consumer cannot fetch yet; 21-40 follow in the old one.
      await send(11, 20, (value) => writerV2.encode({ ...value, channel: 'RTC' }));
      await send(21, 30, (value) => reader.encode(value));
      await within(firstRefusal.promise, 30_000, 'the registry refusing the newer schema');
      await send(31, 40, (value) => reader.encode(value));
      outage = false;
      await within(all.promise, 60_000, 'the forty records after the outage');
      expect(seen).toEqual(range(1, 40));
      expect(refused).toBeGreaterThan(0);
    } finally {
      await runner.stop();
      await producer.disconnect();
      await admin.disconnect();
    }
  });
});
