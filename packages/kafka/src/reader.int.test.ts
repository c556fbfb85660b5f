import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { endpoints, rawProducer, uniqueName } from '../test/fixtures.ts';
import { createKafka, type KafkaClient } from './kafka.ts';
import { positionKey } from './reader.ts';

let brokers: string[];
let kafka: KafkaClient;

beforeAll(async () => {
  brokers = (await endpoints()).brokers;
  kafka = createKafka({ brokers, clientId: 'kafka-test-reader' });
});

afterAll(async () => {
  await kafka.close();
});

describe('reading records by position', () => {
  test('reads the records at the positions asked for on several partitions, and nothing it does not hold', async () => {
    const topic = uniqueName('read-at');
    await kafka.ensureTopics([{ topic, partitions: 3 }]);
    const producer = await rawProducer(brokers);
    try {
      for (const partition of [0, 1]) {
        await producer.send({
          topic,
          messages: Array.from({ length: 20 }, (_, index) => ({
            partition,
            key: `k-${partition}-${index}`,
            value: Buffer.from(`v-${partition}-${index}`),
            headers: { 'rp-index': String(index) },
          })),
        });
      }
    } finally {
      await producer.disconnect();
    }
    const found = await kafka.readAt(topic, [
      { partition: 0, offset: '3' },
      { partition: 0, offset: '17' },
      { partition: 1, offset: '0' },
      { partition: 1, offset: '19' },
      // Past the end of partition 1, on the empty partition 2 and on one the topic does not have.
      { partition: 1, offset: '20' },
      { partition: 2, offset: '0' },
      { partition: 7, offset: '0' },
    ]);
    expect([...found.keys()].sort()).toEqual(['0/17', '0/3', '1/0', '1/19']);
    const record = found.get(positionKey({ partition: 0, offset: '17' }));
    expect(record?.key).toBe('k-0-17');
    expect(record?.value?.toString()).toBe('v-0-17');
    expect(record?.headers['rp-index']).toBe('17');
    expect(Number(record?.timestamp)).toBeGreaterThan(0);
    expect(found.get('1/19')?.value?.toString()).toBe('v-1-19');
    // Nothing wanted that the topic holds: no consumer at all.
    expect((await kafka.readAt(topic, [{ partition: 2, offset: '5' }])).size).toBe(0);
  });
});
