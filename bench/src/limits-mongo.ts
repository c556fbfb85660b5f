import { randomUUID } from 'node:crypto';
import { connectStore, type EventDeliveryRecord } from '@rp/store';
import { MongoClient } from 'mongodb';
import { limitCpuRows, machineCpu, processTreeSeconds } from './cpu.ts';
import type { Row } from './report.ts';
import { bounded, round, summarize } from './stats.ts';

/**
 * The MongoDB-compatible server's raw limits for the operations the pipeline uses, at the concurrency
 * the services use: insert, update by `_id`, read by `_id`, on documents the size of a snapshot; and the
 * event publisher's busiest write, the delivery log's first attempts, through the store itself (its
 * indexes, its insert commands of `bulkInsertSize`), a batch of `deliveryLogBatch` at a time: every
 * posting delivered is one entry, so the postings a second can go no faster.
 */
export async function mongoLimits(options: {
  uri: string;
  database: string;
  operations: number;
  concurrency: number;
  /** Delivery log entries written (default five times `operations`). */
  deliveryLogEntries?: number;
  /** Entries a call of `recordFirstAttempts` (default 1,000: a commit interval's at 4,000 postings/s). */
  deliveryLogBatch?: number;
  /** The server's processes on this machine (the local stack's FerretDB and PostgreSQL), for their CPU. */
  serverProcesses?: ReadonlyMap<string, number>;
}): Promise<Row[]> {
  const client = new MongoClient(options.uri, { maxPoolSize: options.concurrency });
  await client.connect();
  const db = client.db(options.database);
  const collection = db.collection<{
    _id: string;
    state?: string;
    version?: number;
    index?: number;
    payload: string;
  }>('bench_limits');
  const payload = 'x'.repeat(1_500);
  const ids = Array.from({ length: options.operations }, () => randomUUID());
  const rows: Row[] = [];
  const measure = async (name: string, work: (id: string, index: number) => Promise<unknown>) => {
    const latencies: number[] = [];
    const cpuBefore = machineCpu();
    const started = performance.now();
    await bounded(ids.length, options.concurrency, async (index) => {
      const t = performance.now();
      await work(ids[index] as string, index);
      latencies.push(performance.now() - t);
    });
    const seconds = (performance.now() - started) / 1000;
    const cpuAfter = machineCpu();
    const summary = summarize(latencies);
    const limit = `mongodb ${name} (concurrency ${options.concurrency})`;
    rows.push(
      {
        group: 'limit',
        name: limit,
        value: round(ids.length / seconds, 0),
        unit: 'ops/s',
        detail: `p50 ${round(summary.p50, 1)} ms, p99 ${round(summary.p99, 1)} ms`,
      },
      ...limitCpuRows(limit, 'operation', ids.length, cpuBefore, cpuAfter),
    );
  };
  try {
    await collection.insertOne({ _id: 'warm-up', payload });
    await measure('insertOne', (id, index) =>
      collection.insertOne({ _id: id, state: 'DEBIT_RECEIVED', version: 1, index, payload }),
    );
    await measure('updateOne by _id', (id) =>
      collection.updateOne(
        { _id: id, version: 1 },
        { $set: { state: 'DEBIT_ACCEPTED' }, $inc: { version: 1 } },
      ),
    );
    await measure('findOne by _id', (id) => collection.findOne({ _id: id }));
    rows.push(
      ...(await deliveryLogLimit(
        options.uri,
        options.database,
        options.deliveryLogEntries ?? options.operations * 5,
        options.deliveryLogBatch ?? 1_000,
        options.serverProcesses ?? new Map(),
      )),
    );
  } finally {
    await db.dropDatabase().catch(() => undefined);
    await client.close();
  }
  return rows;
}

/** Entries a second the delivery log takes, written as the event publisher writes them. */
async function deliveryLogLimit(
  uri: string,
  database: string,
  entries: number,
  batch: number,
  serverProcesses: ReadonlyMap<string, number>,
): Promise<Row[]> {
  const store = await connectStore({ uri, database, appName: 'bench-limits' });
  try {
    await store.ensureIndexes();
    const calls: number[] = [];
    const written: string[] = [];
    const cpuBefore = processTreeSeconds(serverProcesses);
    const machineBefore = machineCpu();
    const started = performance.now();
    for (let first = 0; first < entries; first += batch) {
      const records = Array.from({ length: Math.min(batch, entries - first) }, (_, index) =>
        deliveryRecord(first + index),
      );
      const t = performance.now();
      await store.deliveryLog.recordFirstAttempts(records);
      calls.push(performance.now() - t);
      written.push((records[records.length >> 1] as EventDeliveryRecord).posting.eventId);
    }
    const seconds = (performance.now() - started) / 1000;
    const machineAfter = machineCpu();
    const cpuAfter = processTreeSeconds(serverProcesses);
    // What an operator's look at one posting costs once the log holds them all.
    const reads: number[] = [];
    for (const eventId of written) {
      const t = performance.now();
      if ((await store.deliveryLog.get(eventId)) === null) throw new Error(`posting ${eventId} not logged`);
      reads.push(performance.now() - t);
    }
    const read = summarize(reads);
    const summary = summarize(calls);
    const cpu = [...cpuAfter]
      .map(
        ([name, after]) =>
          `${name} ${round(((after - (cpuBefore.get(name) ?? after)) * 1e6) / entries, 0)} µs`,
      )
      .join(', ');
    const limit = `mongodb delivery log first attempts (${batch} a call)`;
    return [
      {
        group: 'limit',
        name: limit,
        value: round(entries / seconds, 0),
        unit: 'entries/s',
        detail: `${entries} entries; a call p50 ${round(summary.p50, 0)} ms, p99 ${round(summary.p99, 0)} ms${cpu ? `; an entry: ${cpu} of CPU` : ''}; then a posting read by its event id p50 ${round(read.p50, 1)} ms, p99 ${round(read.p99, 1)} ms (${reads.length} reads)`,
      },
      ...limitCpuRows(limit, 'entry', entries, machineBefore, machineAfter),
    ];
  } finally {
    await store.close();
  }
}

/** A delivered posting's record, as the event publisher logs it (two banks, twelve partitions). */
function deliveryRecord(index: number): EventDeliveryRecord {
  const at = new Date();
  const memberId = index % 2 === 0 ? '250655' : '210000';
  const postingId = `EVT${randomUUID().replace(/-/g, '')}`;
  return {
    posting: {
      eventId: `${postingId}:${memberId}`,
      uetr: randomUUID(),
      memberId,
      eventType: 'TRANSACTION_STATE_DEBIT_DELIVERED',
      source: {
        postingId,
        eventClass: 'TRANSACTION_STATE',
        stageVersion: 5,
        topic: 'rp.events.v1',
        partition: index % 12,
        offset: index,
        producedAt: at,
      },
    },
    attempt: { at, httpStatus: 202, latencyMs: 3.2 },
    outcome: 'delivered',
  };
}

/**
 * Which server answers at `uri`, in its own words: a FerretDB names its version beside the MongoDB
 * version it answers as, so a run on the local stand-in is never taken for one on a real MongoDB.
 */
export async function describeMongoServer(uri: string): Promise<string> {
  const client = new MongoClient(uri, { serverSelectionTimeoutMS: 10_000 });
  try {
    await client.connect();
    const info = await client.db('admin').command({ buildInfo: 1 });
    return mongoServerName(info);
  } finally {
    await client.close();
  }
}

export function mongoServerName(buildInfo: Record<string, unknown>): string {
  const version = typeof buildInfo.version === 'string' ? buildInfo.version : 'of unknown version';
  return typeof buildInfo.ferretdbVersion === 'string'
    ? `FerretDB ${buildInfo.ferretdbVersion} (answers as MongoDB ${version})`
    : `MongoDB ${version}`;
}
