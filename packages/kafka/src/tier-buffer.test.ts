import { describe, expect, test } from 'vitest';
import { TierBuffer } from './tier-buffer.ts';

const entry = (offset: bigint) => ({ offset, done: false });

describe('TierBuffer', () => {
  test('commits up to the first unresolved record, then past everything read', () => {
    const buffer = new TierBuffer<ReturnType<typeof entry>>();
    expect(buffer.committable()).toBeUndefined();
    const [a, b, c] = [entry(7n), entry(8n), entry(9n)];
    buffer.add(a);
    buffer.add(b);
    buffer.add(c);
    expect(buffer.pending).toBe(3);
    expect(buffer.committable()).toBe(7n);
    buffer.markDone(b);
    expect(buffer.committable()).toBe(7n);
    buffer.markDone(a);
    expect(buffer.committable()).toBe(9n);
    buffer.markDone(c);
    buffer.markDone(c);
    expect(buffer.pending).toBe(0);
    expect(buffer.committable()).toBe(10n);
  });

  test('needsCommit only when the offset moved past the last commit', () => {
    const buffer = new TierBuffer<ReturnType<typeof entry>>();
    const a = entry(3n);
    buffer.add(a);
    buffer.committed = 3n;
    expect(buffer.needsCommit()).toBeUndefined();
    buffer.markDone(a);
    expect(buffer.needsCommit()).toBe(4n);
    buffer.committed = 4n;
    expect(buffer.needsCommit()).toBeUndefined();
  });

  test('compact drops resolved records at the front only', () => {
    const buffer = new TierBuffer<ReturnType<typeof entry>>();
    const [a, b, c] = [entry(1n), entry(2n), entry(3n)];
    for (const item of [a, b, c]) buffer.add(item);
    buffer.markDone(a);
    buffer.markDone(c);
    buffer.compact();
    expect(buffer.entries.map((item) => item.offset)).toEqual([2n, 3n]);
    expect(buffer.nextOffset).toBe(4n);
  });
});
