import { connect, type Socket } from 'node:net';
import {
  CompressionCodecs,
  CompressionTypes,
  type ISocketFactory,
  Kafka,
  type KafkaConfig,
  logLevel,
  Partitioners,
} from 'kafkajs';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  avroOptions,
  endpoints,
  type PaymentStep,
  paymentStepV1,
  readTopic,
  uniqueName,
} from '../test/fixtures.ts';
import { type AvroCodec, createAvroSerde } from './avro-serde.ts';
import { type KafkaCompression, registerZstd, zstdCodec } from './compression.ts';
import { KafkaError } from './errors.ts';
import { createKafka, type KafkaClient } from './kafka.ts';
import { silentLogger } from './logger.ts';
import { defaultOutboundOptions, OutboundQueue } from './producer.ts';

let brokers: string[];
let kafka: KafkaClient;
let codec: AvroCodec<PaymentStep>;

beforeAll(async () => {
  const found = await endpoints();
  brokers = found.brokers;
  kafka = createKafka({ brokers, clientId: 'kafka-test-producer' });
  const serde = createAvroSerde({ registryUrl: found.registryUrl, avro: avroOptions });
  codec = await serde.codec<PaymentStep>(`${uniqueName('producer')}-value`, paymentStepV1);
});

afterAll(async () => {
  await kafka.close();
});

async function topicEnd(topic: string): Promise<number> {
  const admin = new Kafka({ clientId: 'kafka-test-offsets', brokers, logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  try {
    const offsets = await admin.fetchTopicOffsets(topic);
    return offsets.reduce((sum, partition) => sum + Number(partition.high), 0);
  } finally {
    await admin.disconnect();
  }
}

describe('producer', () => {
  test('resolves only once the broker holds the records, in call order per key', async () => {
    const topic = uniqueName('produce');
    await kafka.ensureTopics([{ topic, partitions: 3 }]);
    const producer = kafka.createProducer<{ [topic]: PaymentStep }>({ codecs: { [topic]: codec } });
    const keys = ['uetr-a', 'uetr-b', 'uetr-c', 'uetr-d'];
    const sends: Promise<void>[] = [];
    for (let sequence = 1; sequence <= 50; sequence += 1) {
      sends.push(
        producer.send(
          topic,
          keys.map((key) => ({
            key,
            value: { uetr: key, sequence, amount: `${sequence}.00` },
            headers: { trace: key },
          })),
        ),
      );
    }
    await Promise.all(sends);
    expect(await topicEnd(topic)).toBe(200);
    await producer.disconnect();

    const records = await readTopic(brokers, topic, 200);
    for (const key of keys) {
      const mine = records.filter((record) => record.key === key);
      expect(new Set(mine.map((record) => record.partition)).size).toBe(1);
      const sequences = await Promise.all(
        mine.map(async (record) => (await codec.decode(record.value as Buffer)).sequence),
      );
      expect(sequences).toEqual(Array.from({ length: 50 }, (_, index) => index + 1));
      expect(mine.every((record) => record.headers.trace === key)).toBe(true);
    }
  });

  test('compresses its batches with zstd when asked, and a consumer reads them as written', async () => {
    // Every zstd batch a consumer of this process fetches passes through this count.
    let zstdBatchesRead = 0;
    (CompressionCodecs as Record<number, () => unknown>)[CompressionTypes.ZSTD] = () => ({
      compress: zstdCodec.compress,
      async decompress(buffer: Buffer) {
        zstdBatchesRead += 1;
        return zstdCodec.decompress(buffer);
      },
    });
    try {
      const written = async (compression: KafkaCompression) => {
        const topic = uniqueName(`compressed-${compression}`);
        await kafka.ensureTopics([{ topic, partitions: 2 }]);
        const producer = kafka.createProducer<{ [topic]: PaymentStep }>({
          codecs: { [topic]: codec },
          compression,
        });
        await producer.send(
          topic,
          Array.from({ length: 40 }, (_, index) => ({
            key: `uetr-${index % 4}`,
            value: { uetr: `uetr-${index % 4}`, sequence: index, amount: `${index}.50` },
          })),
        );
        await producer.disconnect();
        const records = await readTopic(brokers, topic, 40);
        const values = await Promise.all(records.map((record) => codec.decode(record.value as Buffer)));
        return values.map((value) => value.sequence).sort((a, b) => a - b);
      };
      const all = Array.from({ length: 40 }, (_, index) => index);
      expect(await written('none')).toEqual(all);
      expect(zstdBatchesRead).toBe(0);
      expect(await written('zstd')).toEqual(all);
      expect(zstdBatchesRead).toBeGreaterThan(0);
    } finally {
      registerZstd();
    }
  });

  test('coalesces concurrent sends into few produce requests', async () => {
    const topic = uniqueName('coalesce');
    await kafka.ensureTopics([{ topic, partitions: 2 }]);
    const client = new Kafka({ clientId: 'kafka-test-coalesce', brokers, logLevel: logLevel.NOTHING });
    const raw = client.producer({
      idempotent: true,
      maxInFlightRequests: 1,
      createPartitioner: Partitioners.DefaultPartitioner,
    });
    let produceRequests = 0;
    raw.on(raw.events.REQUEST, (event) => {
      if (event.payload.apiName === 'Produce') produceRequests += 1;
    });
    const outbound = new OutboundQueue(() => raw, { ...defaultOutboundOptions, lingerMs: 5 }, silentLogger);
    await outbound.connect();
    await Promise.all(
      Array.from({ length: 400 }, (_, index) =>
        outbound.send(topic, [
          { key: `k${index % 7}`, value: codec.encode({ uetr: 'u', sequence: index, amount: '1.00' }) },
        ]),
      ),
    );
    await outbound.close();
    expect(await topicEnd(topic)).toBe(400);
    expect(produceRequests).toBeGreaterThan(0);
    expect(produceRequests).toBeLessThanOrEqual(10);
  });

  test('a send given up on while the broker is away never lets a later send be taken for it (nothing answered as written is missing)', {
    timeout: 90_000,
  }, async () => {
    // The idempotent producer numbers each partition's records. A request the broker wrote but whose
    // answer was lost is tried again under the same numbers; a different request sent under those numbers
    // in the meantime would be taken by the broker for that one and dropped, while its caller is told it
    // is written. Here the connection drops right after a produce request reaches the broker and the
    // broker stays unreachable past the delivery timeout, while the next record is sent.
    const topic = uniqueName('lost-answer');
    await kafka.ensureTopics([{ topic, partitions: 1 }]);
    const lossy = lossyNetwork(5_500);
    const outbound = servicesOutbound(
      new Kafka({ ...lossy.client, clientId: 'kafka-test-lost-answer' }),
      5_000,
    );
    const { written, sendOne } = sender(outbound, topic);
    await sendOne(0);
    for (let round = 1; round <= 3; round += 1) {
      lossy.dropNextProduce();
      // Its answer is lost and the broker stays away: the caller is told it failed (it may be written).
      const failure = await sendOne(round * 10);
      expect(failure).toMatchObject({ reason: 'KAFKA_SEND_TIMEOUT' });
      // The next record, the same size: it is answered written only if it is.
      await sendOne(round * 10 + 1);
    }
    await outbound.close();
    // The records sent after a lost answer were written (the broker came back within their timeout).
    expect(written.filter((sequence) => sequence % 10 === 1).length).toBeGreaterThan(0);
    expect(await missingFrom(topic, written)).toEqual([]);
  });

  test('a request kafkajs gives up on after the broker wrote it never lends its numbers to the next send (nothing answered as written is missing)', {
    timeout: 90_000,
  }, async () => {
    // kafkajs gives a request's numbers back when it gives up on it: here its answer is lost and the
    // broker stays away longer than kafkajs reconnects for (a few tries, as with its defaults over a
    // restart of a broker with thousands of partitions). A next send of the same size under the same
    // numbers would be taken by the broker for the written one and dropped, its caller told it is
    // written; of another size, refused as out of order.
    const topic = uniqueName('given-up');
    await kafka.ensureTopics([{ topic, partitions: 1 }]);
    const lossy = lossyNetwork(3_000, { allConnections: true });
    const outbound = servicesOutbound(
      new Kafka({
        ...lossy.client,
        clientId: 'kafka-test-given-up',
        retry: { retries: 2, initialRetryTime: 100, maxRetryTime: 200 },
      }),
      30_000,
    );
    const { written, sendOne } = sender(outbound, topic);
    await sendOne(0);
    for (let round = 1; round <= 2; round += 1) {
      lossy.dropNextProduce();
      const failure = await sendOne(round * 10);
      // kafkajs gave up well before the delivery timeout: a failure the caller may retry.
      expect(failure).toMatchObject({ retriable: true });
      expect(failure).not.toMatchObject({ reason: 'KAFKA_SEND_TIMEOUT' });
      // The next record, the same size, sent until it is answered written.
      const deadline = Date.now() + 60_000;
      while ((await sendOne(round * 10 + 1)) !== undefined) {
        expect(Date.now(), 'the next record written once the broker is back').toBeLessThan(deadline);
      }
    }
    await outbound.close();
    expect(written).toEqual(expect.arrayContaining([0, 11, 21]));
    expect(await missingFrom(topic, written)).toEqual([]);
  });

  test('a send the broker refuses for its numbering fails as retriable, and a new producer writes it when sent again', async () => {
    // What the broker answers a request whose numbers do not follow the ones it holds (over a broker
    // restart, the next request after one kafkajs gave up on; here the request's first sequence number is
    // moved on by five on its way). Taken as final, the refusal would dead-letter a good record, or answer
    // a bank 500.
    const topic = uniqueName('numbering');
    await kafka.ensureTopics([{ topic, partitions: 1 }]);
    const network = { skipSequence: false };
    const client = new Kafka({
      clientId: 'kafka-test-numbering',
      brokers,
      logLevel: logLevel.NOTHING,
      socketFactory: ({ host, port, onConnect }) => {
        const socket = connect({ host, port }, onConnect);
        const write = socket.write.bind(socket) as (chunk: Buffer, encoding?: BufferEncoding) => boolean;
        socket.write = ((chunk: Buffer, encoding?: BufferEncoding) => {
          const produce = Buffer.isBuffer(chunk) && chunk.length > 6 && chunk.readInt16BE(4) === 0;
          if (produce && network.skipSequence) {
            network.skipSequence = false;
            moveBaseSequence(chunk, 5);
          }
          return write(chunk, encoding);
        }) as typeof socket.write;
        return socket;
      },
    });
    let producers = 0;
    const outbound = servicesOutbound(client, defaultOutboundOptions.deliveryTimeoutMs, () => {
      producers += 1;
    });
    const record = (sequence: number) => [
      { key: 'k', value: codec.encode({ uetr: 'k', sequence, amount: '1.00' }) },
    ];
    await outbound.send(topic, record(1));
    network.skipSequence = true;
    const refused = await outbound.send(topic, record(2)).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(KafkaError);
    expect(refused).toMatchObject({
      reason: 'KAFKA_PRODUCER_RESET',
      code: 'BROKER_UNAVAILABLE',
      retriable: true,
    });
    expect(producers).toBe(2);
    await outbound.send(topic, record(2));
    await outbound.send(topic, record(3));
    await outbound.close();
    const records = await readTopic(brokers, topic, await topicEnd(topic));
    const sequences = await Promise.all(
      records.map(async (each) => (await codec.decode(each.value as Buffer)).sequence),
    );
    expect(sequences).toEqual([1, 2, 3]);
  });

  test('refuses a value that does not match its schema, before anything is sent', async () => {
    const topic = uniqueName('invalid');
    await kafka.ensureTopics([{ topic, partitions: 1 }]);
    const producer = kafka.createProducer<{ [topic]: PaymentStep }>({ codecs: { [topic]: codec } });
    const refused = await producer
      .send(topic, [{ key: 'k', value: { uetr: 'k', sequence: 1, amount: 'ten rand' } }])
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(KafkaError);
    expect((refused as KafkaError).reason).toBe('AVRO_INVALID_VALUE');
    expect((refused as KafkaError).retriable).toBe(false);
    await producer.disconnect();
    expect(await topicEnd(topic)).toBe(0);
    await expect(
      producer.send(topic, [{ key: 'k', value: { uetr: 'k', sequence: 1, amount: '1.00' } }]),
    ).rejects.toMatchObject({ reason: 'KAFKA_PRODUCER_CLOSED', retriable: true });
  });

  test('a broker that cannot be reached fails the send as retriable, within the delivery timeout', async () => {
    const offline = createKafka({
      brokers: ['127.0.0.1:1'],
      clientId: 'kafka-test-offline',
      connectionTimeoutMs: 500,
    });
    const producer = offline.createProducer<{ nowhere: PaymentStep }>({
      codecs: { nowhere: codec },
      deliveryTimeoutMs: 2_000,
    });
    const started = Date.now();
    const failure = await producer
      .send('nowhere', [{ key: 'k', value: { uetr: 'k', sequence: 1, amount: '1.00' } }])
      .catch((error: unknown) => error);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(failure).toBeInstanceOf(KafkaError);
    expect((failure as KafkaError).retriable).toBe(true);
    expect(['KAFKA_UNAVAILABLE', 'KAFKA_SEND_TIMEOUT']).toContain((failure as KafkaError).reason);
    await producer.disconnect();
  });
});

describe('ensureTopics', () => {
  test('declares topics once with their settings and is idempotent', async () => {
    const compacted = uniqueName('declared');
    const spec = {
      topic: compacted,
      partitions: 4,
      retentionMs: 3_600_000,
      cleanupPolicy: 'compact' as const,
    };
    await kafka.ensureTopics([spec]);
    await kafka.ensureTopics([spec, { topic: uniqueName('declared'), partitions: 1 }]);
    const admin = new Kafka({ clientId: 'kafka-test-admin', brokers, logLevel: logLevel.NOTHING }).admin();
    await admin.connect();
    try {
      const metadata = await admin.fetchTopicMetadata({ topics: [compacted] });
      expect(metadata.topics[0]?.partitions).toHaveLength(4);
      const { resources } = await admin.describeConfigs({
        includeSynonyms: false,
        resources: [{ type: 2, name: compacted, configNames: ['retention.ms', 'cleanup.policy'] }],
      });
      const values = Object.fromEntries(
        (resources[0]?.configEntries ?? []).map((entry) => [entry.configName, entry.configValue]),
      );
      expect(values).toEqual({ 'retention.ms': '3600000', 'cleanup.policy': 'compact' });
    } finally {
      await admin.disconnect();
    }
  });
});

/**
 * Moves the first sequence number of the one record batch in a produce request (v3 to v8, one topic, one
 * partition) on by `by`, and signs the batch again (CRC-32C from its attributes to its end).
 */
function moveBaseSequence(request: Buffer, by: number): void {
  let at = 12;
  at += 2 + request.readInt16BE(at); // client id
  at += 2 + Math.max(0, request.readInt16BE(at)); // transactional id (null: -1)
  at += 2 + 4 + 4; // acks, timeout, topic count
  at += 2 + request.readInt16BE(at); // topic name
  at += 4 + 4 + 4; // partition count, partition, record set size
  const batch = at;
  if (request.readInt8(batch + 16) !== 2) throw new Error('not a record batch of magic 2');
  const end = batch + 12 + request.readInt32BE(batch + 8);
  request.writeInt32BE(request.readInt32BE(batch + 53) + by, batch + 53);
  request.writeUInt32BE(crc32c(request.subarray(batch + 21, end)), batch + 17);
}

const crc32cTable = Array.from({ length: 256 }, (_, index) => {
  let value = index;
  for (let bit = 0; bit < 8; bit += 1) value = value & 1 ? (value >>> 1) ^ 0x82f63b78 : value >>> 1;
  return value >>> 0;
});

function crc32c(bytes: Uint8Array): number {
  let crc = 0xffffffff;
  for (const byte of bytes) crc = ((crc32cTable[(crc ^ byte) & 0xff] as number) ^ (crc >>> 8)) >>> 0;
  return (crc ^ 0xffffffff) >>> 0;
}

/**
 * A network a test can fail: after `dropNextProduce()`, the next produce request reaches the broker but
 * its answer never reaches the producer, the connection drops (with `allConnections`, every connection
 * of the client, as when the broker is killed), and for `outageMs` connections are refused (the broker
 * looks away).
 */
function lossyNetwork(
  outageMs: number,
  options: { allConnections?: boolean } = {},
): {
  client: Omit<KafkaConfig, 'clientId'>;
  dropNextProduce(): void;
} {
  const network = { dropNextProduce: false, downUntil: 0 };
  const open = new Set<Socket>();
  const socketFactory: ISocketFactory = ({ host, port, onConnect }) => {
    // While the broker is "away", connections are refused.
    const socket =
      Date.now() < network.downUntil
        ? connect({ host: '127.0.0.1', port: 1 })
        : connect({ host, port }, onConnect);
    open.add(socket);
    socket.once('close', () => open.delete(socket));
    const write = socket.write.bind(socket) as (chunk: Buffer, encoding?: BufferEncoding) => boolean;
    let dropping = false;
    socket.write = ((chunk: Buffer, encoding?: BufferEncoding) => {
      const produce = Buffer.isBuffer(chunk) && chunk.length > 6 && chunk.readInt16BE(4) === 0;
      if (produce && network.dropNextProduce) {
        // The request reaches the broker; its answer never reaches the producer.
        network.dropNextProduce = false;
        dropping = true;
        network.downUntil = Date.now() + outageMs;
        const lost = options.allConnections ? [...open] : [socket];
        setTimeout(() => {
          for (const each of lost) each.destroy(new Error('connection lost'));
        }, 300);
      }
      return write(chunk, encoding);
    }) as typeof socket.write;
    const emit = socket.emit.bind(socket) as (event: string, ...args: unknown[]) => boolean;
    socket.emit = ((event: string, ...args: unknown[]) =>
      event === 'data' && dropping ? true : emit(event, ...args)) as typeof socket.emit;
    return socket;
  };
  return {
    client: {
      brokers,
      logLevel: logLevel.NOTHING,
      connectionTimeout: 1_000,
      requestTimeout: 5_000,
      socketFactory,
    },
    dropNextProduce: () => {
      network.dropNextProduce = true;
    },
  };
}

/**
 * An outbound queue over `client`'s producers, configured as the services' (unlimited retries in kafkajs);
 * `onProducer` is told of each producer made (the first, and each that takes over).
 */
function servicesOutbound(client: Kafka, deliveryTimeoutMs: number, onProducer = () => {}): OutboundQueue {
  return new OutboundQueue(
    () => {
      onProducer();
      return client.producer({
        idempotent: true,
        maxInFlightRequests: 1,
        createPartitioner: Partitioners.DefaultPartitioner,
        retry: { retries: Number.MAX_SAFE_INTEGER, initialRetryTime: 100, maxRetryTime: 2_000 },
      });
    },
    { ...defaultOutboundOptions, lingerMs: 0, deliveryTimeoutMs },
    silentLogger,
  );
}

/** Sends one record of `sequence` at a time, remembering those answered written. */
function sender(outbound: OutboundQueue, topic: string) {
  const written: number[] = [];
  const sendOne = async (sequence: number): Promise<unknown> => {
    const records = [{ key: 'k', value: codec.encode({ uetr: 'k', sequence, amount: '1.00' }) }];
    const failure = await outbound.send(topic, records).catch((error: unknown) => error);
    if (failure === undefined) written.push(sequence);
    return failure;
  };
  return { written, sendOne };
}

/** The sequences answered written that the topic does not hold. */
async function missingFrom(topic: string, written: readonly number[]): Promise<number[]> {
  const records = await readTopic(brokers, topic, await topicEnd(topic));
  const inTopic = new Set(
    await Promise.all(records.map(async (each) => (await codec.decode(each.value as Buffer)).sequence)),
  );
  return written.filter((sequence) => !inTopic.has(sequence));
}
