import { describe, expect, test } from 'vitest';
import type { AvroCodec } from './avro-serde.ts';
import type { ConsumerOptions } from './consumer.ts';
import { outboundOptions, withConsumerDefaults } from './kafka.ts';

const codec = {} as AvroCodec<{ sequence: number }>;
const consumer = (extra: Partial<ConsumerOptions<{ sequence: number }>> = {}) =>
  ({
    groupId: 'group',
    topics: ['topic'],
    codec,
    handleBatch: async () => {},
    ...extra,
  }) as ConsumerOptions<{ sequence: number }>;

describe("the client's consumer settings", () => {
  test('fill in what a consumer leaves unset', () => {
    const options = withConsumerDefaults(consumer(), {
      brokers: ['broker:9092'],
      clientId: 'test',
      commitIntervalMs: 250,
      fetch: { minBytes: 65_536, maxWaitMs: 50 },
      compression: 'zstd',
    });
    expect(options).toMatchObject({
      commitIntervalMs: 250,
      fetchMinBytes: 65_536,
      maxWaitTimeMs: 50,
      compression: 'zstd',
    });
  });

  test("give way to the consumer's own", () => {
    const options = withConsumerDefaults(consumer({ commitIntervalMs: 0, fetchMinBytes: 1 }), {
      brokers: ['broker:9092'],
      clientId: 'test',
      commitIntervalMs: 250,
      fetch: { maxWaitMs: 50 },
    });
    expect(options).toMatchObject({ commitIntervalMs: 0, fetchMinBytes: 1, maxWaitTimeMs: 50 });
  });

  test('without client settings, a consumer keeps only its own', () => {
    const options = withConsumerDefaults(consumer({ maxWaitTimeMs: 100 }), {
      brokers: ['broker:9092'],
      clientId: 'test',
    });
    expect(options).toMatchObject({ maxWaitTimeMs: 100 });
    expect(options).not.toHaveProperty('fetchMinBytes');
    expect(options).not.toHaveProperty('commitIntervalMs');
    expect(options).not.toHaveProperty('compression');
  });
});

describe("a producer's batching", () => {
  test('lingers as the producer says, else as the client says, else 5 ms; the rest from the producer or the defaults', () => {
    expect(outboundOptions({ lingerMs: 0, deliveryTimeoutMs: 5_000 }, { lingerMs: 8 })).toEqual({
      lingerMs: 0,
      limits: { maxRecords: 2_000, maxBytes: 512 * 1024 },
      deliveryTimeoutMs: 5_000,
      compression: 'none',
    });
    expect(outboundOptions({ maxBatchRecords: 100 }, { lingerMs: 8 })).toMatchObject({
      lingerMs: 8,
      limits: { maxRecords: 100 },
    });
    expect(outboundOptions({}, {})).toMatchObject({ lingerMs: 5, deliveryTimeoutMs: 10_000 });
  });

  test('compresses as the producer says, else as the client says, else not at all', () => {
    expect(outboundOptions({ compression: 'gzip' }, { compression: 'zstd' }).compression).toBe('gzip');
    expect(outboundOptions({}, { compression: 'zstd' }).compression).toBe('zstd');
    expect(outboundOptions({}, {}).compression).toBe('none');
  });
});
