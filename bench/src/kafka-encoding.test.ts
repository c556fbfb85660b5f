import { createRequire } from 'node:module';
import { join } from 'node:path';
import { patchBatchChecksum } from '@rp/kafka';
import { describe, expect, test } from 'vitest';
import { kafkaEncodingBench } from './kafka-encoding.ts';

const require = createRequire(import.meta.url);
const root = join(import.meta.dirname, '..', '..');

describe('kafkajs encoding figures', () => {
  test('time a produced record as shipped and as changed side by side, and leave the process on the changed one', async () => {
    const rows = await kafkaEncodingBench({ root, calls: 20, rounds: 1 });
    expect(rows.map((row) => row.name)).toEqual(['kafkajs: a produced record, encoded in its batch']);
    expect(rows[0]?.value).toBeGreaterThan(0);
    expect(rows[0]?.detail).toMatch(
      /µs as kafkajs ships it \(\d+%\); .*the batch's checksum included \(changed\).*the same bytes either way/,
    );
    // The shipped copy was evaluated outside the cache: what every client in the process loads is still
    // the one record batch, with the changed checksum, however often the figures are taken.
    const recordBatch = require('kafkajs/src/protocol/recordBatch/v0/index.js') as unknown;
    await kafkaEncodingBench({ root, calls: 20, rounds: 1 });
    expect(require('kafkajs/src/protocol/recordBatch/v0/index.js')).toBe(recordBatch);
    expect(patchBatchChecksum()).toBe(true);
  });
});
