import { randomUUID } from 'node:crypto';
import { MongoClient } from 'mongodb';
import type { Row } from './report.ts';
import { bounded, round, summarize } from './stats.ts';

/**
 * The MongoDB-compatible server's raw limits for the operations the pipeline uses, at the concurrency
 * the services use: insert, update by `_id`, read by `_id`, on documents the size of a snapshot.
 */
export async function mongoLimits(options: {
  uri: string;
  database: string;
  operations: number;
  concurrency: number;
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
    const started = performance.now();
    await bounded(ids.length, options.concurrency, async (index) => {
      const t = performance.now();
      await work(ids[index] as string, index);
      latencies.push(performance.now() - t);
    });
    const seconds = (performance.now() - started) / 1000;
    const summary = summarize(latencies);
    rows.push({
      group: 'limit',
      name: `mongodb ${name} (concurrency ${options.concurrency})`,
      value: round(ids.length / seconds, 0),
      unit: 'ops/s',
      detail: `p50 ${round(summary.p50, 1)} ms, p99 ${round(summary.p99, 1)} ms`,
    });
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
  } finally {
    await db.dropDatabase().catch(() => undefined);
    await client.close();
  }
  return rows;
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
