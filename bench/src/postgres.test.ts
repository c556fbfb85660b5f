import { describe, expect, it } from 'vitest';
import { countersQuery, type PostgresCounters, parseCounters, postgresRows } from './postgres.ts';

const reading = (overrides: Partial<PostgresCounters> = {}): PostgresCounters => ({
  inserted: 1_000,
  updated: 500,
  deleted: 10,
  commits: 2_000,
  blocksHit: 90_000,
  blocksRead: 300,
  blocksWrittenByBackends: 40,
  walRecords: 5_000,
  walFullPageImages: 100,
  walBytes: 4_000_000,
  checkpoints: 3,
  autovacuums: 7,
  autoanalyzes: 2,
  ...overrides,
});

describe("PostgreSQL's counters", () => {
  it('reads the JSON psql prints, bigints as numbers or strings', () => {
    const text = `${JSON.stringify({ ...reading(), walBytes: '4000000', checkpoints: 3 })}\n`;
    expect(parseCounters(text)).toEqual(reading());
  });

  it('refuses an answer with a counter missing or not a count', () => {
    const { walBytes: _, ...missing } = reading();
    expect(() => parseCounters(JSON.stringify(missing))).toThrow(/walBytes/);
    expect(() => parseCounters(JSON.stringify({ ...reading(), blocksRead: -1 }))).toThrow(/blocksRead/);
    expect(() => parseCounters('not json')).toThrow();
  });

  it('quotes the database name it filters on', () => {
    expect(countersQuery("o'brien")).toContain("d.datname = 'o''brien'");
  });

  it('gives the work between two readings per posting: rows, blocks and the log, and what ran meanwhile', () => {
    const before = reading();
    const after = reading({
      inserted: 1_000 + 3_600,
      updated: 500 + 400,
      commits: 2_000 + 40,
      blocksHit: 90_000 + 72_000,
      blocksRead: 300 + 800,
      blocksWrittenByBackends: 40 + 200,
      walRecords: 5_000 + 12_000,
      walFullPageImages: 100 + 60,
      walBytes: 4_000_000 + 4_096_000,
      checkpoints: 4,
      autovacuums: 9,
    });
    const rows = postgresRows(before, after, 4_000, { noun: 'posting', prefix: 'event path alone: ' });
    expect(rows.map((row) => [row.name, row.value, row.unit])).toEqual([
      ['event path alone: postgresql rows written per posting', 1, 'rows'],
      ['event path alone: postgresql write-ahead log per posting', 1, 'kB'],
    ]);
    expect(rows[0]?.detail).toBe(
      'TOAST chunks included: inserted 0.9, updated 0.1, deleted 0; 0.01 transactions; 8 kB blocks: 18 found in shared buffers, 0.2 read from outside them, 0.1 written out by backends; over the phase: checkpoints 1, autovacuum runs 2, autoanalyze runs 0',
    );
    expect(rows[1]?.detail).toBe(
      '3 records, 0.02 full-page images (the first change to a page after a checkpoint)',
    );
  });

  it('gives nothing when a reading is missing or nothing was counted', () => {
    expect(postgresRows(undefined, reading(), 10, { noun: 'debit' })).toEqual([]);
    expect(postgresRows(reading(), undefined, 10, { noun: 'debit' })).toEqual([]);
    expect(postgresRows(reading(), reading(), 0, { noun: 'debit' })).toEqual([]);
  });
});
