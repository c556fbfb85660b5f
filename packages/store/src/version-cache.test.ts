import { describe, expect, it } from 'vitest';
import { SnapshotPositionCache } from './version-cache.ts';

describe('SnapshotPositionCache', () => {
  it('evicts the least recently used entry beyond its capacity', () => {
    const cache = new SnapshotPositionCache(2);
    cache.set('a', { version: 1, lastSeq: 1 });
    cache.set('b', { version: 2, lastSeq: 2 });
    expect(cache.get('a')).toEqual({ version: 1, lastSeq: 1 });
    cache.set('c', { version: 3, lastSeq: 3 });
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')).toEqual({ version: 1, lastSeq: 1 });
    expect(cache.size).toBe(2);
  });

  it('remembers nothing with capacity 0', () => {
    const cache = new SnapshotPositionCache(0);
    cache.set('a', { version: 1, lastSeq: 1 });
    expect(cache.get('a')).toBeUndefined();
  });
});
