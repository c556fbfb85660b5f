import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Db } from 'mongodb';
import type { Row } from './report.ts';
import { round } from './stats.ts';

/** What one collection takes, as its server reports it (`collStats`). */
export interface CollectionSize {
  readonly documents: number;
  /** The collection's own storage (a MongoDB's on disk, compressed; the stand-in's PostgreSQL pages). */
  readonly dataBytes: number;
  readonly indexBytes: number;
}

/** The storage a pipeline holds at one moment. */
export interface StorageReading {
  /** The pipeline's database as a whole, data and indexes (`dbStats`). */
  readonly mongoTotalBytes: number;
  /** By collection of the pipeline's database. */
  readonly mongo: ReadonlyMap<string, CollectionSize>;
  /** Bytes of the run's topics' log segments, when the broker keeps them on this machine. */
  readonly kafkaLogBytes?: number;
}

/**
 * The database's data and indexes as `dbStats` gives them: `totalSize`, or the storage and the indexes
 * where a server has no total. On the stand-in only this total counts what PostgreSQL keeps out of line
 * (TOAST: a large document's body); its `collStats` leave that out.
 */
export async function mongoTotalBytes(db: Db): Promise<number> {
  const stats = await db.command({ dbStats: 1 });
  return Number(stats.totalSize ?? Number(stats.storageSize ?? 0) + Number(stats.indexSize ?? 0));
}

/** Every collection of `db`, by name, as `collStats` gives it. */
export async function mongoSizes(db: Db): Promise<Map<string, CollectionSize>> {
  const names = (await db.listCollections({}, { nameOnly: true }).toArray()).map((c) => c.name).sort();
  const sizes = new Map<string, CollectionSize>();
  for (const name of names) {
    const stats = await db.command({ collStats: name });
    sizes.set(name, {
      documents: Number(stats.count ?? 0),
      dataBytes: Number(stats.storageSize ?? stats.size ?? 0),
      indexBytes: Number(stats.totalIndexSize ?? 0),
    });
  }
  return sizes;
}

/**
 * The bytes of the log segments (`*.log`) of the topics whose names start with `prefix`, in a broker's
 * log directory (one directory `<topic>-<partition>` a partition). Their indexes are left out: the
 * broker sizes them ahead of use.
 */
export function kafkaLogBytes(logDir: string, prefix: string): number {
  let total = 0;
  for (const entry of readdirSync(logDir, { withFileTypes: true })) {
    if (!entry.isDirectory() || !entry.name.startsWith(prefix) || !/-\d+$/.test(entry.name)) continue;
    const partitionDir = join(logDir, entry.name);
    for (const file of readdirSync(partitionDir)) {
      if (file.endsWith('.log')) total += statSync(join(partitionDir, file)).size;
    }
  }
  return total;
}

const kb = (bytes: number, debits: number) => round(bytes / 1024 / debits, 1);

/**
 * What a debit of a window left in storage: MongoDB's database as a whole and by collection (what its
 * server reports, so the stand-in's figure is PostgreSQL's pages, dead row versions included until a
 * vacuum), and Kafka's log segments of the run's topics when the broker is on this machine. What
 * retention has to plan for, per debit kept.
 */
export function storageRow(before: StorageReading, after: StorageReading, debits: number): Row {
  const grown = [...after.mongo].map(([name, size]) => {
    const was = before.mongo.get(name) ?? { documents: 0, dataBytes: 0, indexBytes: 0 };
    return {
      name,
      documents: size.documents - was.documents,
      dataBytes: size.dataBytes - was.dataBytes,
      indexBytes: size.indexBytes - was.indexBytes,
    };
  });
  const total = after.mongoTotalBytes - before.mongoTotalBytes;
  const indexes = grown.reduce((sum, size) => sum + size.indexBytes, 0);
  const byCollection = grown
    .filter((size) => size.dataBytes + size.indexBytes !== 0 || size.documents !== 0)
    .sort((a, b) => b.dataBytes + b.indexBytes - (a.dataBytes + a.indexBytes))
    .map(
      (size) =>
        `${size.name} ${kb(size.dataBytes + size.indexBytes, debits)} (${round(size.documents / debits, 2)} documents)`,
    )
    .join(', ');
  const kafka =
    before.kafkaLogBytes === undefined || after.kafkaLogBytes === undefined
      ? "Kafka's log not measured (the broker is not on this machine)"
      : `Kafka's log ${kb(after.kafkaLogBytes - before.kafkaLogBytes, debits)} kB a debit (the run's topics' segments on this one broker; a cluster keeps a copy a replica)`;
  return {
    group: 'pipeline',
    name: 'storage kept per debit: mongodb data and indexes',
    value: kb(total, debits),
    unit: 'kB',
    detail: `the pipeline's database (dbStats), ${kb(indexes, debits)} kB of it indexes; by collection (collStats, which on the stand-in leave out what PostgreSQL keeps out of line, a large document's body), kB a debit: ${byCollection || 'none'}; ${kafka}`,
  };
}
