import { describe, expect, it } from 'vitest';
import { RecentKeys, RecentMap } from './recent.ts';

describe('RecentMap', () => {
  it('forgets the key used longest ago once past its capacity; a read counts as a use', () => {
    const map = new RecentMap<string, number>(2);
    map.set('a', 1);
    map.set('b', 2);
    expect(map.get('a')).toBe(1);
    map.set('c', 3);
    expect(map.has('b')).toBe(false);
    expect(map.get('a')).toBe(1);
    expect(map.get('c')).toBe(3);
    expect(map.size).toBe(2);
  });

  it('keeps a value that is undefined-like apart from a missing key, and replaces a set key in place', () => {
    const map = new RecentMap<string, number | null>(2);
    map.set('a', null);
    map.set('a', 0);
    expect(map.get('a')).toBe(0);
    expect(map.size).toBe(1);
    map.delete('a');
    expect(map.get('a')).toBeUndefined();
    map.set('b', 1);
    map.clear();
    expect(map.size).toBe(0);
  });

  it('remembers nothing at capacity 0, and refuses a capacity that is not a whole number', () => {
    const map = new RecentMap<string, number>(0);
    map.set('a', 1);
    expect(map.has('a')).toBe(false);
    expect(() => new RecentMap(-1)).toThrow(RangeError);
    expect(() => new RecentMap(1.5)).toThrow(/whole number/);
  });
});

describe('RecentKeys', () => {
  it('forgets the key added longest ago once past its capacity', () => {
    const keys = new RecentKeys(2);
    keys.add('a');
    keys.add('b');
    keys.add('a');
    keys.add('c');
    expect([keys.has('a'), keys.has('b'), keys.has('c')]).toEqual([true, false, true]);
    expect(keys.size).toBe(2);
  });
});
