import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { trackerCacheBench } from './tracker-memory.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));

describe("the tracker's cache figure", () => {
  it('sequences every change of each debit and keeps its three messages, and reads a heap that grew', () => {
    const row = trackerCacheBench({ root, count: 300 });
    expect(row.detail).toContain('300 debits sequenced through their 9 changes');
    expect(row.detail).toContain('with the 3 messages their snapshot holds');
    expect(row.unit).toBe('bytes');
    expect(row.value).toBeGreaterThan(0);
  });
});
