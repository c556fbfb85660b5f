import { createRequire } from 'node:module';
import { constants, zstdCompressSync, zstdDecompressSync } from 'node:zlib';
import { CompressionTypes } from 'kafkajs';

const require = createRequire(import.meta.url);

/**
 * kafkajs's codecs by compression type, as its record batches look them up (its `CompressionCodecs`,
 * which Node's ESM loader does not find among kafkajs's named exports).
 */
const codecs = (
  require('kafkajs/src/protocol/message/compression/index.js') as {
    Codecs: Record<number, () => unknown>;
  }
).Codecs;

/**
 * How the services compress the record batches they produce. `none` is Kafka's own producer default;
 * `zstd` makes a journey's records 3.7-4.5 times smaller (in Kafka's log, on the network to the brokers
 * and between replicas, in every fetch) for 3-6% more CPU a debit on a host that runs everything
 * (BENCHMARKS.md); `gzip` is there for clients that read no zstd.
 */
export const kafkaCompressions = ['none', 'gzip', 'zstd'] as const;
export type KafkaCompression = (typeof kafkaCompressions)[number];

export const defaultCompression: KafkaCompression = 'none';

const types: Readonly<Record<KafkaCompression, CompressionTypes>> = {
  none: CompressionTypes.None,
  gzip: CompressionTypes.GZIP,
  zstd: CompressionTypes.ZSTD,
};

/** kafkajs's compression type of a setting. */
export function compressionType(compression: KafkaCompression): CompressionTypes {
  return types[compression];
}

/**
 * Level 1: on a journey's records it compresses as well as the default level 3, faster. Node's own zstd
 * (no native module): each call costs about 10 µs to compress and 6 to decompress beyond its bytes.
 */
const zstdOptions = { params: { [constants.ZSTD_c_compressionLevel]: 1 } };

/** kafkajs's codec interface: a batch's encoded records in, the compressed bytes out, and back. */
export const zstdCodec = {
  async compress(encoder: { buffer: Buffer }): Promise<Buffer> {
    return zstdCompressSync(encoder.buffer, zstdOptions);
  },
  async decompress(buffer: Buffer): Promise<Buffer> {
    return zstdDecompressSync(buffer);
  },
};

/**
 * Gives kafkajs (which ships gzip only) a zstd codec, once per process: every consumer in it then reads
 * zstd batches, whichever compression its own producers use, and producers may write them.
 */
export function registerZstd(): void {
  codecs[CompressionTypes.ZSTD] = () => zstdCodec;
}
