import { createRequire } from 'node:module';
import { CompressionCodecs, CompressionTypes } from 'kafkajs';
import { describe, expect, test } from 'vitest';
import { recordBatchModule } from './batch-checksum.ts';
import { compressionType, kafkaCompressions, registerZstd, zstdCodec } from './compression.ts';

const require = createRequire(import.meta.url);

interface DecodedBatch {
  records: { offset: string; key: Buffer; value: Buffer }[];
}

/** kafkajs's own record batch encoder and decoder: what a producer writes and a consumer reads. */
const { RecordBatch } = require(recordBatchModule) as {
  RecordBatch(batch: object): Promise<{ buffer: Buffer }>;
};
const decodeBatch = require('kafkajs/src/protocol/recordBatch/v0/decoder.js') as (
  decoder: unknown,
) => Promise<DecodedBatch>;
const Decoder = require('kafkajs/src/protocol/decoder.js') as new (buffer: Buffer) => unknown;
const record = require('kafkajs/src/protocol/recordBatch/record/v0/index.js') as (fields: object) => unknown;

/** A batch of `count` records much alike, as a journey's postings are: Avro of the same shapes. */
async function encodedBatch(count: number, compression: CompressionTypes): Promise<Buffer> {
  const records = Array.from({ length: count }, (_, offsetDelta) =>
    record({
      offsetDelta,
      key: Buffer.from(`uetr-${offsetDelta % 3}`),
      value: Buffer.from(`ZA_EFT DIRECT_DEBIT ${offsetDelta} `.repeat(40)),
      headers: {},
    }),
  );
  const { buffer } = await RecordBatch({
    compression,
    records,
    lastOffsetDelta: count - 1,
    firstTimestamp: 0,
    maxTimestamp: 0,
  });
  return buffer;
}

describe('compression', () => {
  test('names the codec kafkajs writes for each setting', () => {
    expect(kafkaCompressions.map(compressionType)).toEqual([
      CompressionTypes.None,
      CompressionTypes.GZIP,
      CompressionTypes.ZSTD,
    ]);
  });

  test('zstd gives back the bytes it was given', async () => {
    const bytes = Buffer.from('a journey of nine state changes '.repeat(200));
    const compressed = await zstdCodec.compress({ buffer: bytes });
    expect(compressed.length).toBeLessThan(bytes.length / 10);
    expect(await zstdCodec.decompress(compressed)).toEqual(bytes);
  });

  test("once registered, kafkajs's record batches are written with zstd and read back whole", async () => {
    registerZstd();
    expect((CompressionCodecs as Record<number, () => unknown>)[CompressionTypes.ZSTD]?.()).toBe(zstdCodec);
    const plain = await encodedBatch(20, CompressionTypes.None);
    const compressed = await encodedBatch(20, CompressionTypes.ZSTD);
    expect(compressed.length).toBeLessThan(plain.length / 4);
    const read = await decodeBatch(new Decoder(compressed));
    expect(read.records.map((r) => r.value.toString())).toEqual(
      (await decodeBatch(new Decoder(plain))).records.map((r) => r.value.toString()),
    );
    expect(read.records).toHaveLength(20);
  });
});
