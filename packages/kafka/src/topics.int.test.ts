import { Kafka } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { endpoints, uniqueName } from '../test/fixtures.ts';
import { createKafka, type KafkaClient } from './kafka.ts';
import type { Logger } from './logger.ts';
import type { KafkaRequestEvent } from './request-metrics.ts';

let brokers: string[];
let kafka: KafkaClient;
const requests: KafkaRequestEvent[] = [];
const logged: { level: string; message: string | undefined }[] = [];
const logger: Logger = {
  debug: () => {},
  info: () => {},
  warn: (_context, message) => logged.push({ level: 'warn', message }),
  error: (_context, message) => logged.push({ level: 'error', message }),
};

beforeAll(async () => {
  brokers = (await endpoints()).brokers;
  kafka = createKafka({
    brokers,
    clientId: 'kafka-test-topics',
    logger,
    onRequest: (event) => requests.push(event),
  });
});

afterAll(async () => {
  await kafka.close();
});

const creations = () => requests.filter((event) => event.api === 'CreateTopics').length;

describe('declaring topics', () => {
  test('asks the broker for the missing ones only: topics that exist log no error, new ones have their partitions led at once', async () => {
    const first = uniqueName('declared');
    const second = uniqueName('declared');
    await kafka.ensureTopics([{ topic: first, partitions: 1 }]);
    expect(creations()).toBe(1);

    // One that exists beside one that does not: only the new one is asked for.
    await kafka.ensureTopics([
      { topic: first, partitions: 1 },
      { topic: second, partitions: 3 },
    ]);
    expect(creations()).toBe(2);
    // And each partition of the new one answers for its offsets at once (from another client, too).
    const admin = new Kafka({ clientId: 'kafka-test-topics-reader', brokers }).admin();
    await admin.connect();
    try {
      const offsets = await admin.fetchTopicOffsets(second);
      expect(offsets.map((entry) => entry.partition).sort()).toEqual([0, 1, 2]);
    } finally {
      await admin.disconnect();
    }

    // Both there: nothing to create, nothing logged.
    await kafka.ensureTopics([
      { topic: first, partitions: 1 },
      { topic: second, partitions: 3 },
    ]);
    expect(creations()).toBe(2);
    expect(logged).toEqual([]);
  });
});
