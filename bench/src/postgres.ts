/**
 * PostgreSQL's own counters, when the run's MongoDB is the local stack's FerretDB: the work a debit (or a
 * posting) cost inside the database behind it. The CPU rows say how much PostgreSQL spent; these say on
 * what: rows written, 8 kB blocks it found in its buffers or had to fetch from outside them, blocks its
 * backends had to write out themselves to make room, write-ahead log (and the full-page images a
 * checkpoint makes the next change to each page write), and the checkpoints and autovacuum runs that
 * fell within the phase. A figure that moves between runs, or between a phase early and late in a run,
 * is then told apart: more work of the same kind, or the same work against a larger database.
 *
 * Read with `psql` (PostgreSQL's own client, installed with the server), so the bench needs no driver
 * of its own. A backend reports its counts at most once a second, and one gone idle may hold them for up
 * to 10 s: the pipeline bench reads them 11 s after a phase's other readings, with the pipeline quiet
 * (`Probe.postgres`). Rows are PostgreSQL's: a document too large for its page is stored in chunks of its
 * TOAST table, each one a row.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import type { CpuPer } from './pipeline.ts';
import type { Row } from './report.ts';
import { round } from './stats.ts';

/** Cumulative counters, as PostgreSQL 15 keeps them (database, WAL, background writer, tables). */
export interface PostgresCounters {
  readonly inserted: number;
  readonly updated: number;
  readonly deleted: number;
  readonly commits: number;
  /** Blocks found in shared buffers. */
  readonly blocksHit: number;
  /** Blocks read from outside them: the operating system's cache, or the disk. */
  readonly blocksRead: number;
  /** Blocks a backend wrote out itself to free a buffer (the background writer and checkpoints did not). */
  readonly blocksWrittenByBackends: number;
  readonly walRecords: number;
  readonly walFullPageImages: number;
  readonly walBytes: number;
  readonly checkpoints: number;
  readonly autovacuums: number;
  readonly autoanalyzes: number;
}

/** One JSON object with every counter, for the database FerretDB keeps its collections in. */
export const countersQuery = (database: string): string => `
select json_build_object(
  'inserted', d.tup_inserted, 'updated', d.tup_updated, 'deleted', d.tup_deleted,
  'commits', d.xact_commit, 'blocksHit', d.blks_hit, 'blocksRead', d.blks_read,
  'blocksWrittenByBackends', b.buffers_backend,
  'walRecords', w.wal_records, 'walFullPageImages', w.wal_fpi, 'walBytes', w.wal_bytes,
  'checkpoints', b.checkpoints_timed + b.checkpoints_req,
  'autovacuums', (select coalesce(sum(autovacuum_count), 0) from pg_stat_all_tables),
  'autoanalyzes', (select coalesce(sum(autoanalyze_count), 0) from pg_stat_all_tables))
from pg_stat_database d, pg_stat_bgwriter b, pg_stat_wal w
where d.datname = '${database.replace(/'/g, "''")}'`;

const fields: readonly (keyof PostgresCounters)[] = [
  'inserted',
  'updated',
  'deleted',
  'commits',
  'blocksHit',
  'blocksRead',
  'blocksWrittenByBackends',
  'walRecords',
  'walFullPageImages',
  'walBytes',
  'checkpoints',
  'autovacuums',
  'autoanalyzes',
];

/** The query's answer; every counter must be there and a whole number (PostgreSQL's bigints as JSON). */
export function parseCounters(text: string): PostgresCounters {
  const parsed = JSON.parse(text.trim()) as Record<string, unknown>;
  const counters: Record<string, number> = {};
  for (const field of fields) {
    const value = Number(parsed[field]);
    if (!Number.isFinite(value) || value < 0) throw new Error(`PostgreSQL's ${field} is not a count`);
    counters[field] = value;
  }
  return counters as unknown as PostgresCounters;
}

/**
 * Reads the counters of one database through `psql` at `bindir`. A reading that fails (the server gone,
 * psql missing) is undefined: the run goes on without these rows rather than stop.
 */
export function postgresReader(
  serverUrl: string,
  database: string,
  bindir: string,
): () => Promise<PostgresCounters | undefined> {
  const url = new URL(serverUrl);
  url.pathname = `/${database}`;
  const query = countersQuery(database);
  return () =>
    new Promise((resolve) => {
      execFile(
        join(bindir, 'psql'),
        ['-X', '-q', '-t', '-A', '-v', 'ON_ERROR_STOP=1', url.toString(), '-c', query],
        { timeout: 10_000, encoding: 'utf8' },
        (error, stdout) => {
          if (error) return resolve(undefined);
          try {
            resolve(parseCounters(stdout));
          } catch {
            resolve(undefined);
          }
        },
      );
    });
}

const kb = (bytes: number) => bytes / 1024;

/**
 * The database's work over a phase, per debit (or posting): rows written, and in the detail the blocks,
 * the log and the background work behind them. Nothing when either reading is missing.
 */
export function postgresRows(
  before: PostgresCounters | undefined,
  after: PostgresCounters | undefined,
  count: number,
  per: Pick<CpuPer, 'noun' | 'prefix'>,
): Row[] {
  if (before === undefined || after === undefined || count <= 0) return [];
  const delta = Object.fromEntries(fields.map((field) => [field, after[field] - before[field]])) as Record<
    keyof PostgresCounters,
    number
  >;
  const each = (value: number, digits = 1) => round(value / count, digits);
  const written = delta.inserted + delta.updated + delta.deleted;
  return [
    {
      group: 'pipeline',
      name: `${per.prefix ?? ''}postgresql rows written per ${per.noun}`,
      value: each(written),
      unit: 'rows',
      detail: `TOAST chunks included: inserted ${each(delta.inserted)}, updated ${each(delta.updated)}, deleted ${each(delta.deleted)}; ${each(delta.commits, 2)} transactions; 8 kB blocks: ${each(delta.blocksHit, 0)} found in shared buffers, ${each(delta.blocksRead)} read from outside them, ${each(delta.blocksWrittenByBackends)} written out by backends; over the phase: checkpoints ${delta.checkpoints}, autovacuum runs ${delta.autovacuums}, autoanalyze runs ${delta.autoanalyzes}`,
    },
    {
      group: 'pipeline',
      name: `${per.prefix ?? ''}postgresql write-ahead log per ${per.noun}`,
      value: each(kb(delta.walBytes)),
      unit: 'kB',
      detail: `${each(delta.walRecords)} records, ${each(delta.walFullPageImages, 2)} full-page images (the first change to a page after a checkpoint)`,
    },
  ];
}
