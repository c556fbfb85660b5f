import { randomBytes } from 'node:crypto';
import { patchKafkajs } from '@rp/kafka';
import { CompressionTypes, Kafka, logLevel } from 'kafkajs';
import { limitCpuRows, type MachineCpu, machineCpu } from './cpu.ts';
import type { Row } from './report.ts';
import { round } from './stats.ts';

/**
 * The broker's raw limits with the settings the pipeline uses: an idempotent producer with acks=all,
 * batches of `batch` records of about the size of a debit record; a consumer reading with eachBatch.
 */
export async function kafkaLimits(options: {
  brokers: readonly string[];
  run: string;
  records: number;
  batch: number;
  recordBytes: number;
}): Promise<Row[]> {
  // The kafkajs the services run: with @rp/kafka's changes to its internals.
  patchKafkajs();
  const kafka = new Kafka({
    clientId: `bench-${options.run}`,
    brokers: [...options.brokers],
    logLevel: logLevel.NOTHING,
  });
  const topic = `${options.run}.raw`;
  const admin = kafka.admin();
  await admin.connect();
  await admin.createTopics({ topics: [{ topic, numPartitions: 3 }], waitForLeaders: true });
  const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
  await producer.connect();
  const value = randomBytes(options.recordBytes);
  const rows: Row[] = [];
  try {
    // Warm-up: metadata, connections and the JIT, outside the measurement.
    await producer.send({ topic, acks: -1, messages: [{ key: 'warm', value }] });
    const cpuBefore = machineCpu();
    const started = performance.now();
    for (let sent = 0; sent < options.records; sent += options.batch) {
      const size = Math.min(options.batch, options.records - sent);
      const messages = Array.from({ length: size }, (_, index) => ({ key: `k${sent + index}`, value }));
      await producer.send({ topic, acks: -1, compression: CompressionTypes.None, messages });
    }
    const produceSeconds = (performance.now() - started) / 1000;
    const cpuAfter = machineCpu();
    const produceName = `kafka produce (idempotent, acks=all, ${options.batch} per send, ${options.recordBytes} B)`;
    rows.push(
      {
        group: 'limit',
        name: produceName,
        value: round(options.records / produceSeconds, 0),
        unit: 'records/s',
        detail: `${options.records} records in ${round(produceSeconds, 2)} s`,
      },
      ...limitCpuRows(produceName, 'record', options.records, cpuBefore, cpuAfter),
    );

    const sequential = 500;
    const latencies: number[] = [];
    const t0 = performance.now();
    for (let index = 0; index < sequential; index += 1) {
      const t = performance.now();
      await producer.send({ topic, acks: -1, messages: [{ key: `s${index}`, value }] });
      latencies.push(performance.now() - t);
    }
    const sequentialSeconds = (performance.now() - t0) / 1000;
    latencies.sort((a, b) => a - b);
    rows.push({
      group: 'limit',
      name: 'kafka produce (one record per send, sequential)',
      value: round(sequential / sequentialSeconds, 0),
      unit: 'records/s',
      detail: `p50 ${round(latencies[Math.floor(sequential / 2)] ?? 0, 2)} ms, p99 ${round(latencies[Math.floor(sequential * 0.99)] ?? 0, 2)} ms`,
    });

    const total = options.records + sequential + 1;
    const consumer = kafka.consumer({ groupId: `${options.run}.raw-reader`, maxBytes: 10 * 2 ** 20 });
    await consumer.connect();
    await consumer.subscribe({ topic, fromBeginning: true });
    let consumed = 0;
    let firstAt = 0;
    // Read with the first batch, as the clock is: what the consumer's start-up costs stays out.
    let consumeCpuBefore: MachineCpu | undefined;
    let firstBatch = 0;
    const done = new Promise<number>((resolve) => {
      void consumer.run({
        autoCommit: true,
        eachBatch: async ({ batch }) => {
          if (firstAt === 0) {
            firstAt = performance.now();
            consumeCpuBefore = machineCpu();
          }
          if (firstBatch === 0) firstBatch = batch.messages.length;
          consumed += batch.messages.length;
          if (consumed >= total) resolve(performance.now());
        },
      });
    });
    const finishedAt = await done;
    const consumeCpuAfter = machineCpu();
    await consumer.disconnect();
    const consumeSeconds = (finishedAt - firstAt) / 1000;
    const consumeName = 'kafka consume (eachBatch)';
    rows.push(
      {
        group: 'limit',
        name: consumeName,
        value: round(total / consumeSeconds, 0),
        unit: 'records/s',
        detail: `${total} records in ${round(consumeSeconds, 2)} s after the first batch`,
      },
      // The first batch's records came before the first reading: the rest are what it covers.
      ...limitCpuRows(consumeName, 'record', total - firstBatch, consumeCpuBefore, consumeCpuAfter),
    );
  } finally {
    await producer.disconnect();
    await admin.deleteTopics({ topics: [topic] }).catch(() => undefined);
    await admin.disconnect();
  }
  return rows;
}
