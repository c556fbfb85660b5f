import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { kafkaEncodingBench } from './kafka-encoding.ts';

const require = createRequire(import.meta.url);
const root = join(import.meta.dirname, '..', '..');

describe('kafkajs encoding figures', () => {
  test('time the shipped and the changed encoder side by side, and leave the process on the changed one', async () => {
    const recordBatchModule = require('kafkajs/src/protocol/recordBatch/v0/index.js') as unknown;
    const rows = await kafkaEncodingBench({ root, calls: 20, rounds: 1 });
    expect(rows.map((row) => row.name)).toEqual([
      "kafkajs: a consumer's fetch request, encoded",
      'kafkajs: a produced record, encoded in its batch',
    ]);
    for (const row of rows) {
      expect(row.value).toBeGreaterThan(0);
      expect(row.detail).toMatch(/µs as kafkajs ships it \(\d+%\); .*the same bytes either way/);
    }
    // The record batch was loaded above, before the change: its checksum stays as shipped, and says so.
    expect(rows[1]?.detail).toMatch(/checksum included \(as shipped in both/);
    // The shipped copy was evaluated outside the cache: what every client in the process loads is
    // still the one Encoder, the changed one (it allocates nothing until it writes).
    const Encoder = require('kafkajs/src/protocol/encoder.js') as new () => { buf: Buffer };
    expect(new Encoder().buf.length).toBe(0);
    expect(require('kafkajs/src/protocol/recordBatch/v0/index.js')).toBe(recordBatchModule);
  });
});
