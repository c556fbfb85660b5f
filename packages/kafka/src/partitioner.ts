import { type ICustomPartitioner, Partitioners } from 'kafkajs';

/**
 * Kafka's murmur2 of a key's bytes, as the Java client's `Utils.murmur2` computes it (32-bit arithmetic
 * that wraps), so a key lands on the partition every other client's default partitioner picks for it.
 */
export function murmur2(data: Uint8Array): number {
  const m = 0x5bd1e995;
  const length = data.length;
  let h = 0x9747b28c ^ length;
  const whole = length & ~3;
  for (let i = 0; i < whole; i += 4) {
    let k = (data[i] as number) | ((data[i + 1] as number) << 8) | ((data[i + 2] as number) << 16);
    k |= (data[i + 3] as number) << 24;
    k = Math.imul(k, m);
    k ^= k >>> 24;
    k = Math.imul(k, m);
    h = Math.imul(h, m) ^ k;
  }
  // The last one to three bytes, as Java's switch falls through its cases.
  const tail = length & 3;
  if (tail === 3) h ^= (data[whole + 2] as number) << 16;
  if (tail >= 2) h ^= (data[whole + 1] as number) << 8;
  if (tail >= 1) h = Math.imul(h ^ (data[whole] as number), m);
  h ^= h >>> 13;
  h = Math.imul(h, m);
  h ^= h >>> 15;
  return h | 0;
}

/** The partition of a key among `partitions`, as Kafka's default partitioner (Java and kafkajs) picks it. */
export function partitionOfKey(key: string | Uint8Array, partitions: number): number {
  const bytes = typeof key === 'string' ? Buffer.from(key, 'utf8') : key;
  return (murmur2(bytes) & 0x7fffffff) % partitions;
}

/**
 * kafkajs's default partitioner with its keyed path made cheap: every record of the pipeline has a key
 * (the UETR), and kafkajs hashes it with 64-bit arithmetic emulated on objects and filters the
 * partition list for each record, a share of every producing service's CPU. Keyed records get the same
 * partition as before (the Java client's murmur2, bit for bit); a record with an explicit partition or
 * without a key goes to kafkajs's own partitioner, round robin and all.
 */
export const KeyedPartitioner: ICustomPartitioner = () => {
  const unkeyed = Partitioners.DefaultPartitioner();
  return (args) => {
    const { message, partitionMetadata } = args;
    const key = message.key;
    if (message.partition !== null && message.partition !== undefined) return message.partition;
    if (key === null || key === undefined) return unkeyed(args);
    return partitionOfKey(key, partitionMetadata.length);
  };
};
