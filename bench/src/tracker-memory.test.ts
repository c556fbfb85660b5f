import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { trackerCacheBench } from './tracker-memory.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));

describe("the tracker's cache figure", () => {
  it('sequences every change of each debit and keeps its three messages, and reads the heaps the cache and the payloads grew', () => {
    const [row, payload] = trackerCacheBench({ root, count: 300 });
    expect(row?.detail).toContain('300 debits sequenced through their 9 changes');
    expect(row?.detail).toContain('with the 3 messages their snapshot holds');
    expect(row?.unit).toBe('bytes');
    expect(row?.value).toBeGreaterThan(0);
    expect(payload?.name).toBe("tracker: heap a debit's payload keeps in the tracker's payload cache");
    expect(payload?.detail).toContain('the DirectDebit of each of 300 debits');
    expect(payload?.value).toBeGreaterThan(0);
  });
});
