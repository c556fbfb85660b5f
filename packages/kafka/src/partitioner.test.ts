import { randomBytes, randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { type PartitionerArgs, Partitioners } from 'kafkajs';
import { describe, expect, test } from 'vitest';
import { KeyedPartitioner, murmur2, partitionOfKey } from './partitioner.ts';

const require = createRequire(import.meta.url);
/** kafkajs's own murmur2 (64-bit arithmetic on objects): the reference the fast one must equal. */
const kafkaJsMurmur2 = require('kafkajs/src/producer/partitioners/default/murmur2.js') as (
  key: Buffer | string,
) => number;

const metadata = (partitions: number, leaderless: number[] = []): PartitionerArgs['partitionMetadata'] =>
  Array.from({ length: partitions }, (_, partitionId) => ({
    partitionId,
    leader: leaderless.includes(partitionId) ? -1 : 1,
    partitionErrorCode: 0,
    replicas: [1],
    isr: leaderless.includes(partitionId) ? [] : [1],
  }));

describe('murmur2', () => {
  test("gives the Java client's values", () => {
    // Kafka's own UtilsTest.testMurmur2 cases.
    const cases: [string, number][] = [
      ['21', -973932308],
      ['foobar', -790332482],
      ['a-little-bit-long-string', -985981536],
      ['a-little-bit-longer-string', -1486304829],
      ['lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8', -58897971],
      ['abc', 479470107],
    ];
    for (const [key, hash] of cases) expect(murmur2(Buffer.from(key)), key).toBe(hash);
  });

  test("equals kafkajs's for keys of every length, ASCII or not", () => {
    for (let length = 0; length < 70; length += 1) {
      for (let round = 0; round < 40; round += 1) {
        const key = randomBytes(length);
        expect(murmur2(key), key.toString('hex')).toBe(kafkaJsMurmur2(key));
      }
    }
    for (const key of [randomUUID(), 'Ωmega-ключ-键', '']) {
      expect(murmur2(Buffer.from(key)), key).toBe(kafkaJsMurmur2(key));
    }
  });
});

describe('KeyedPartitioner', () => {
  test("puts every keyed record on kafkajs's default partition", () => {
    const ours = KeyedPartitioner();
    const theirs = Partitioners.DefaultPartitioner();
    for (const partitions of [1, 3, 12, 50]) {
      for (let round = 0; round < 500; round += 1) {
        const uetr = randomUUID();
        for (const key of [uetr, Buffer.from(uetr)]) {
          const args = { topic: 't', partitionMetadata: metadata(partitions), message: { key, value: 'v' } };
          expect(ours(args)).toBe(theirs(args));
          expect(ours(args)).toBe(partitionOfKey(uetr, partitions));
        }
      }
    }
  });

  test('keeps an explicit partition, and a key whose partition has no leader', () => {
    const ours = KeyedPartitioner();
    const partitionMetadata = metadata(3, [0, 1, 2]);
    expect(ours({ topic: 't', partitionMetadata, message: { key: 'k', value: 'v', partition: 2 } })).toBe(2);
    // Like Java's and kafkajs's: a key's partition does not move while its leader is away.
    const key = randomUUID();
    expect(ours({ topic: 't', partitionMetadata, message: { key, value: 'v' } })).toBe(
      partitionOfKey(key, 3),
    );
  });

  test('spreads records without a key over the partitions that have a leader', () => {
    const ours = KeyedPartitioner();
    const seen = new Set<number>();
    for (let round = 0; round < 30; round += 1) {
      seen.add(ours({ topic: 't', partitionMetadata: metadata(4, [1]), message: { key: null, value: 'v' } }));
    }
    expect([...seen].sort()).toEqual([0, 2, 3]);
  });
});
