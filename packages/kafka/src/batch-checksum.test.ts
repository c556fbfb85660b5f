import { createRequire } from 'node:module';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { checksumModule, crc32c, patchBatchChecksum, recordBatchModule } from './batch-checksum.ts';
import { withShippedKafkajs } from './shipped-kafkajs.ts';

const require = createRequire(import.meta.url);

/** kafkajs's checksum as shipped: its modules evaluated again, outside the require cache. */
function shippedChecksum(): (buffer: Buffer) => number {
  return withShippedKafkajs(() => require(checksumModule) as (buffer: Buffer) => number);
}

describe("a record batch's checksum", () => {
  test("gives CRC-32C's check value", () => {
    // The check value of the CRC catalogue for CRC-32/ISCSI (CRC-32C) over the ASCII digits 1 to 9.
    expect(crc32c(Buffer.from('123456789', 'ascii'))).toBe(0xe3069283);
    expect(crc32c(Buffer.alloc(0))).toBe(0);
  });

  test('gives what kafkajs as shipped gives, for every length and at every offset', () => {
    const shipped = shippedChecksum();
    fc.assert(
      fc.property(
        fc.oneof(fc.uint8Array({ maxLength: 80 }), fc.uint8Array({ minLength: 1_000, maxLength: 25_000 })),
        fc.nat({ max: 40 }),
        fc.nat({ max: 40 }),
        (bytes, cutStart, cutEnd) => {
          const buffer = Buffer.from(bytes);
          expect(crc32c(buffer)).toBe(shipped(buffer));
          // A view that starts and ends inside its buffer, as a batch's body within an encoder's.
          const start = Math.min(cutStart, buffer.length);
          const view = buffer.subarray(start, Math.max(start, buffer.length - cutEnd));
          expect(crc32c(view)).toBe(shipped(view));
        },
      ),
      { numRuns: 300 },
    );
  });

  test("is the one kafkajs's record batch uses once patched, and the batch's bytes do not change", async () => {
    expect(require.cache[require.resolve(recordBatchModule)]).toBeUndefined();
    expect(patchBatchChecksum()).toBe(true);
    expect(patchBatchChecksum()).toBe(true);
    const { RecordBatch } = require(recordBatchModule) as {
      RecordBatch(batch: object): Promise<{ buffer: Buffer }>;
    };
    const record = require('kafkajs/src/protocol/recordBatch/record/v0/index.js') as (
      fields: object,
    ) => unknown;
    const records = Array.from({ length: 5 }, (_, offsetDelta) =>
      record({
        offsetDelta,
        key: Buffer.from(`key-${offsetDelta}`),
        value: Buffer.alloc(700, offsetDelta),
        headers: {},
      }),
    );
    const batch = (await RecordBatch({ records, lastOffsetDelta: 4, firstTimestamp: 0, maxTimestamp: 0 }))
      .buffer;
    // firstOffset (8) and the bytes' length (4), then partitionLeaderEpoch (4) and magic (1): the CRC
    // follows, over everything after it.
    const crcAt = 8 + 4 + 4 + 1;
    const body = batch.subarray(crcAt + 4);
    expect(batch.readUInt32BE(crcAt)).toBe(shippedChecksum()(body));
    expect(batch.readUInt32BE(crcAt)).toBe(crc32c(body));
  });
});
