import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type CollectionSize, kafkaLogBytes, storageRow } from './storage.ts';

const size = (documents: number, dataBytes: number, indexBytes: number): CollectionSize => ({
  documents,
  dataBytes,
  indexBytes,
});

describe('what a debit keeps in storage', () => {
  it('adds up what each collection grew by, largest first, and the log of the run’s topics', () => {
    const before = {
      mongoTotalBytes: 400_000,
      mongo: new Map([
        ['transactions', size(10, 81_920, 16_384)],
        ['event_delivery_log', size(180, 204_800, 40_960)],
        ['window_overrides', size(1, 8_192, 8_192)],
      ]),
      kafkaLogBytes: 1_000_000,
    };
    const after = {
      // The total also holds what the collections' figures leave out (the stand-in's TOAST).
      mongoTotalBytes: 400_000 + 2_048_000,
      mongo: new Map([
        ['transactions', size(110, 81_920 + 102_400, 16_384 + 10_240)],
        ['event_delivery_log', size(1_980, 204_800 + 1_433_600, 40_960 + 204_800)],
        ['window_overrides', size(1, 8_192, 8_192)],
        ['debit_queue', size(100, 51_200, 0)],
      ]),
      kafkaLogBytes: 1_000_000 + 5_120_000,
    };
    const row = storageRow(before, after, 100);
    // 2,048,000 bytes over 100 debits; of them the indexes' 204,800 + 10,240.
    expect(row).toMatchObject({
      name: 'storage kept per debit: mongodb data and indexes',
      value: 20,
      unit: 'kB',
    });
    expect(row.detail).toContain("the pipeline's database (dbStats), 2.1 kB of it indexes");
    expect(row.detail).toContain(
      'event_delivery_log 16 (18 documents), transactions 1.1 (1 documents), debit_queue 0.5 (1 documents)',
    );
    expect(row.detail).not.toContain('window_overrides');
    expect(row.detail).toContain("Kafka's log 50 kB a debit");
  });

  it('says when Kafka’s log could not be read', () => {
    const mongo = new Map([['transactions', size(0, 0, 0)]]);
    const row = storageRow({ mongoTotalBytes: 8_192, mongo }, { mongoTotalBytes: 8_192, mongo }, 10);
    expect(row.value).toBe(0);
    expect(row.detail).toContain('kB a debit: none');
    expect(row.detail).toContain("Kafka's log not measured");
  });
});

describe("a broker's log of the run's topics", () => {
  let dir: string | undefined;
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("counts the segments of the run's partitions, not their indexes nor other topics", () => {
    dir = mkdtempSync(join(tmpdir(), 'rp-kafka-log-'));
    const partition = (name: string, files: Record<string, number>) => {
      mkdirSync(join(dir as string, name));
      for (const [file, bytes] of Object.entries(files))
        writeFileSync(join(dir as string, name, file), Buffer.alloc(bytes));
    };
    partition('run1.rp.events.v1-0', {
      '00000000000000000000.log': 700,
      '00000000000000000000.index': 4_096,
    });
    partition('run1.rp.events.v1-11', { '00000000000000000000.log': 300, '00000000000000000500.log': 50 });
    partition('run2.rp.events.v1-0', { '00000000000000000000.log': 9_999 });
    partition('__consumer_offsets-3', { '00000000000000000000.log': 9_999 });
    writeFileSync(join(dir, 'run1.meta.properties'), 'x');
    expect(kafkaLogBytes(dir, 'run1.')).toBe(1_050);
  });
});
