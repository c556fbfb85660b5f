/**
 * Store benchmark: what single-document operations, coalesced snapshot writes and the debit queue cost
 * on the MongoDB this machine reaches. A program that prints numbers, not a test.
 *
 *   node packages/store/bench/store.bench.ts [--ops 2000] [--concurrency 16] [--queue 100000]
 *
 * MONGODB_URI is read from the environment, else from the local stack's `.local/stack.env`.
 * It works in a database of its own and drops it at the end.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import * as os from 'node:os';
import { parseArgs } from 'node:util';
import { type Collection, type Document, MongoClient } from 'mongodb';
import {
  connectStore,
  type DebitQueueItem,
  debitOrderKey,
  type Store,
  type TransactionStateChange,
} from '../src/index.ts';
import { chunk, mapBounded } from '../src/limits.ts';

const { values: args } = parseArgs({
  options: {
    ops: { type: 'string', default: '2000' },
    concurrency: { type: 'string', default: '16' },
    queue: { type: 'string', default: '100000' },
  },
});
const ops = Number(args.ops);
const concurrency = Number(args.concurrency);
const queueSize = Number(args.queue);

interface Row {
  operation: string;
  count: number;
  concurrency: number;
  seconds: number;
  perSecond: number;
  p50Ms?: number;
  p99Ms?: number;
  note?: string;
}

const rows: Row[] = [];

function mongodbUri(): string {
  if (process.env.MONGODB_URI) return process.env.MONGODB_URI;
  const envFile = new URL('../../../.local/stack.env', import.meta.url);
  const line = readFileSync(envFile, 'utf8')
    .split('\n')
    .find((entry) => entry.startsWith('MONGODB_URI='));
  if (!line) throw new Error('MONGODB_URI is not set and the local stack env file has none');
  return line.slice('MONGODB_URI='.length).trim();
}

function percentile(sorted: number[], fraction: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))] as number;
}

/** Runs `work` over `items` at the given concurrency, recording each call's latency. */
async function measure<T>(
  operation: string,
  items: readonly T[],
  parallel: number,
  work: (item: T) => Promise<unknown>,
  note?: string,
): Promise<void> {
  const latencies: number[] = [];
  const started = performance.now();
  await mapBounded(items, parallel, async (item) => {
    const begun = performance.now();
    await work(item);
    latencies.push(performance.now() - begun);
  });
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  rows.push({
    operation,
    count: items.length,
    concurrency: parallel,
    seconds,
    perSecond: items.length / seconds,
    p50Ms: percentile(latencies, 0.5),
    p99Ms: percentile(latencies, 0.99),
    ...(note === undefined ? {} : { note }),
  });
  process.stderr.write(`  ${operation}: ${(items.length / seconds).toFixed(0)}/s\n`);
}

function record(operation: string, count: number, parallel: number, seconds: number, note?: string): void {
  rows.push({
    operation,
    count,
    concurrency: parallel,
    seconds,
    perSecond: count / seconds,
    ...(note ? { note } : {}),
  });
  process.stderr.write(`  ${operation}: ${(count / seconds).toFixed(0)}/s\n`);
}

function changesOf(uetr: string, count: number): TransactionStateChange[] {
  return Array.from({ length: count }, (_, index) => ({
    uetr,
    eventId: `${uetr}:${index + 1}`,
    seq: index + 1,
    from: index === 0 ? null : `S${index}`,
    to: `S${index + 1}`,
    eventType: `DEBIT_S${index + 1}`,
    at: new Date(Date.UTC(2026, 10, 23, 6, 0, index)),
    service: 'bench',
  }));
}

const windowDate = '2026-11-24';
function queueItem(index: number): DebitQueueItem {
  const uetr = randomUUID();
  return {
    uetr,
    windowDate,
    requestedCollectionDate: index % 5 === 0 ? '2026-11-23' : '2026-11-24',
    creditorAgentMemberId: ['210000', '250655', '470010', '632005', '051001'][index % 5] as string,
    origin: 'on-us',
    enqueuedAt: new Date(Date.UTC(2026, 10, 23, 8, 0, 0, index)),
    messageJson: JSON.stringify({
      uetr,
      amount: { value: '125.00', currency: 'ZAR' },
      filler: 'x'.repeat(600),
    }),
  };
}

/** Seeds documents in insertMany batches of 25, the largest batch the local server handles well. */
async function seed(collection: Collection<Document>, documents: Document[]): Promise<void> {
  await mapBounded(chunk(documents, 25), 8, (batch) => collection.insertMany(batch, { ordered: false }));
}

async function drainRate(
  label: string,
  open: () => AsyncIterable<unknown>,
  expected: number,
  note: string,
): Promise<void> {
  const started = performance.now();
  let firstBatchMs = 0;
  let count = 0;
  let batches = 0;
  for await (const batch of open()) {
    if (batches === 0) firstBatchMs = performance.now() - started;
    batches += 1;
    count += Array.isArray(batch) ? batch.length : 1;
  }
  const seconds = (performance.now() - started) / 1000;
  if (count !== expected) throw new Error(`${label}: drained ${count}, expected ${expected}`);
  record(label, count, 1, seconds, `${note}; first batch after ${firstBatchMs.toFixed(0)} ms`);
}

async function main(): Promise<void> {
  const uri = mongodbUri();
  const database = `bench_store_${Date.now().toString(36)}`;
  const raw = new MongoClient(uri, { socketTimeoutMS: 300_000 });
  await raw.connect();
  const buildInfo = await raw.db('admin').command({ buildInfo: 1 });
  const server = buildInfo.ferretdbVersion
    ? `FerretDB ${buildInfo.ferretdbVersion} (reports MongoDB ${buildInfo.version})`
    : `MongoDB ${buildInfo.version}`;
  const store: Store = await connectStore({
    uri,
    database,
    appName: 'store-bench',
  });
  const db = raw.db(database);
  try {
    await store.ensureIndexes();
    process.stderr.write(`store bench on ${server}, database ${database}\n`);

    // Single-document operations by _id, as the hot paths use them.
    const keys = Array.from({ length: ops }, () => randomUUID());
    await measure('idempotency claim (insertOne by _id)', keys, concurrency, (key) =>
      store.idempotency.claim({ key, payloadHash: 'h', uetr: key, receivedAt: new Date() }),
    );
    await measure('repeated claim (insert 11000 + findOne)', keys.slice(0, ops / 4), concurrency, (key) =>
      store.idempotency.claim({ key, payloadHash: 'h', uetr: key, receivedAt: new Date() }),
    );
    await measure('findOne by _id', keys, concurrency, (key) => store.idempotency.get(key));

    // The snapshot guard: an update filtered by _id only against _id plus the expected version.
    const plain = db.collection<{ _id: string; version: number; state: string }>('bench_updates');
    await seed(
      plain as unknown as Collection<Document>,
      keys.map((key) => ({ _id: key, version: 0, state: 'S0' })),
    );
    await measure('updateOne filter {_id}', keys, concurrency, (key) =>
      plain.updateOne({ _id: key }, { $set: { state: 'S1' }, $inc: { version: 1 } }, { maxTimeMS: 5_000 }),
    );
    await measure(
      'updateOne filter {_id, version}',
      keys,
      concurrency,
      async (key) => {
        const result = await plain.updateOne(
          { _id: key, version: 1 },
          { $set: { state: 'S2', version: 2 } },
          { maxTimeMS: 5_000 },
        );
        if (result.matchedCount !== 1) throw new Error('version guard missed');
      },
      'the guard TransactionRepository uses',
    );
    await measure('updateOne filter {_id} one at a time', keys.slice(0, 200), 1, (key) =>
      plain.updateOne({ _id: key }, { $set: { state: 'S3' } }, { maxTimeMS: 5_000 }),
    );
    await measure('updateOne filter {_id, version} one at a time', keys.slice(0, 200), 1, (key) =>
      plain.updateOne({ _id: key, version: 2 }, { $set: { state: 'S4' } }, { maxTimeMS: 5_000 }),
    );

    // Coalesced snapshot writes: 10 changes per transaction in one batch become one write.
    const uetrs = Array.from({ length: Math.max(16, ops / 4) }, () => randomUUID());
    const batch = uetrs.flatMap((uetr) => changesOf(uetr, 10));
    const writesBefore = store.transactions.stats().snapshotWrites;
    const started = performance.now();
    for (const slice of chunk(batch, 1_000)) await store.transactions.applyChanges(slice);
    const seconds = (performance.now() - started) / 1000;
    const writes = store.transactions.stats().snapshotWrites - writesBefore;
    record(
      'applyChanges (10 changes per transaction)',
      batch.length,
      16,
      seconds,
      `${writes} snapshot writes, ${(writes / seconds).toFixed(0)} writes/s`,
    );
    const next = uetrs.flatMap((uetr) => changesOf(uetr, 11).slice(10));
    const nextStarted = performance.now();
    await store.transactions.applyChanges(next);
    record(
      'applyChanges (1 change per transaction, warm)',
      next.length,
      16,
      (performance.now() - nextStarted) / 1000,
    );

    // Debit queue: enqueue, then drain a window of `queueSize` debits two ways.
    const enqueued = Array.from({ length: ops }, (_, index) => queueItem(index));
    await measure('debit enqueue (upsert)', enqueued, concurrency, (item) => store.debitQueue.enqueue(item));
    const seeded = Array.from({ length: queueSize - ops }, (_, index) => queueItem(index + ops));
    const seedStarted = performance.now();
    await seed(
      db.collection('debit_queue'),
      seeded.map((item) => ({
        _id: item.uetr,
        status: 'queued',
        updatedAt: item.enqueuedAt,
        windowDate: item.windowDate,
        orderKey: debitOrderKey(item),
        requestedCollectionDate: item.requestedCollectionDate,
        creditorAgentMemberId: item.creditorAgentMemberId,
        origin: item.origin,
        enqueuedAt: item.enqueuedAt,
        messageJson: item.messageJson,
      })),
    );
    record('seed debit queue (insertMany x25)', seeded.length, 8, (performance.now() - seedStarted) / 1000);
    const depthStarted = performance.now();
    const depth = await store.debitQueue.depth(windowDate);
    record(
      'depth(windowDate) (countDocuments)',
      1,
      1,
      (performance.now() - depthStarted) / 1000,
      `${depth} waiting`,
    );

    // The same single-document reads and deletes, now in a collection of `queueSize` documents: the
    // local server's cost per `_id` operation grows with the collection (see the README).
    const sample = seeded
      .filter((_, index) => index % Math.max(1, Math.floor(seeded.length / ops)) === 0)
      .slice(0, ops);
    await measure(`findOne by _id, ${queueSize}-document collection`, sample, concurrency, (item) =>
      store.debitQueue.get(item.uetr),
    );

    await drainRate(
      'drain: sorted cursor on {windowDate, orderKey}',
      () => store.debitQueue.drain(windowDate, { batchSize: 500 }),
      queueSize,
      'DebitQueueRepository.drain',
    );

    // The alternative: the order encoded in _id, drained by an _id range.
    const byId = db.collection<{ _id: string }>('bench_queue_by_id');
    await seed(
      byId as unknown as Collection<Document>,
      [...enqueued, ...seeded].map((item) => ({
        _id: `${item.windowDate}|${debitOrderKey(item)}`,
        uetr: item.uetr,
        windowDate: item.windowDate,
        requestedCollectionDate: item.requestedCollectionDate,
        creditorAgentMemberId: item.creditorAgentMemberId,
        origin: item.origin,
        enqueuedAt: item.enqueuedAt,
        messageJson: item.messageJson,
      })),
    );
    await drainRate(
      'drain: _id range sorted by _id',
      () =>
        byId
          .find(
            { _id: { $gte: `${windowDate}|`, $lt: `${windowDate}}` } },
            { batchSize: 500, maxTimeMS: 30_000 },
          )
          .sort({ _id: 1 }),
      queueSize,
      'order encoded in _id (alternative)',
    );

    // Taking dispatched debits off the queue: what markDispatched does, and two alternatives.
    const drained: string[] = [];
    for await (const page of store.debitQueue.drain(windowDate, { batchSize: 500 })) {
      drained.push(...page.map((item) => item.uetr));
      if (drained.length >= 3 * ops) break;
    }
    const pages = chunk(drained.slice(0, ops), 500);
    const dispatchStarted = performance.now();
    for (const page of pages) await store.debitQueue.markDispatched(page);
    record(
      'markDispatched (pages of 500)',
      Math.min(ops, drained.length),
      4,
      (performance.now() - dispatchStarted) / 1000,
      'bulkWrite of 25 deleteOne by _id, 4 bulks in flight',
    );
    const queue = db.collection<{ _id: string }>('debit_queue');
    await measure(
      'deleteOne by _id',
      drained.slice(ops, 2 * ops),
      concurrency,
      (uetr) => queue.deleteOne({ _id: uetr }, { maxTimeMS: 5_000 }),
      'alternative',
    );
    const viaIn = chunk(drained.slice(2 * ops, 3 * ops), 25).slice(0, 8);
    await measure(
      'deleteMany {_id: {$in: 25 ids}}',
      viaIn,
      4,
      (uetrs) => queue.deleteMany({ _id: { $in: uetrs } }, { maxTimeMS: 120_000 }),
      'alternative; per batch of 25: scans the collection on FerretDB',
    );
    const countStarted = performance.now();
    const counted = await db.command({ count: 'debit_queue', query: { windowDate }, maxTimeMS: 120_000 });
    record(
      'count command {windowDate}',
      1,
      1,
      (performance.now() - countStarted) / 1000,
      `${counted.n} waiting`,
    );
  } finally {
    await store.close();
    await db.dropDatabase().catch(() => undefined);
    await raw.close();
  }

  const cpus = os.cpus();
  console.log('');
  console.log(`Store benchmark, ${new Date().toISOString()}`);
  console.log(
    `machine: ${cpus.length} cores, ${cpus[0]?.model ?? 'unknown CPU'}, ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB, ${os.platform()} ${os.release()}`,
  );
  console.log(`node ${process.version}; server ${server}`);
  console.log('');
  console.log(
    `| operation | count | in flight | seconds | per second | p50 ms | p99 ms | note |\n|---|--:|--:|--:|--:|--:|--:|---|`,
  );
  for (const row of rows) {
    // A single timed call (a count) has a duration, not a rate.
    const rate = row.count === 1 ? '' : row.perSecond.toFixed(0);
    const p50 = row.p50Ms === undefined ? '' : row.p50Ms.toFixed(1);
    const p99 = row.p99Ms === undefined ? '' : row.p99Ms.toFixed(1);
    console.log(
      `| ${row.operation} | ${row.count} | ${row.concurrency} | ${row.seconds.toFixed(2)} | ${rate} | ${p50} | ${p99} | ${row.note ?? ''} |`,
    );
  }
}

await main();
