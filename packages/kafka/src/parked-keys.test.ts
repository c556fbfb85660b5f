import { describe, expect, test } from 'vitest';
import { ParkedKeys } from './parked-keys.ts';

describe('ParkedKeys', () => {
  test('a key is parked while any of its records waits, and only the oldest is the head', () => {
    const parked = new ParkedKeys();
    parked.park('t', 'uetr-1', 10n);
    parked.park('t', 'uetr-1', 14n);
    expect(parked.isParked('t', 'uetr-1')).toBe(true);
    expect(parked.isParked('t', 'uetr-2')).toBe(false);
    expect(parked.isHead('t', 'uetr-1', 10n)).toBe(true);
    expect(parked.isHead('t', 'uetr-1', 14n)).toBe(false);
    parked.release('t', 'uetr-1', 10n);
    expect(parked.isHead('t', 'uetr-1', 14n)).toBe(true);
    parked.release('t', 'uetr-1', 14n);
    expect(parked.isParked('t', 'uetr-1')).toBe(false);
    expect(parked.keyCount).toBe(0);
  });

  test('records learned out of order (rebuilt from several tiers) are held in source order', () => {
    const parked = new ParkedKeys();
    parked.park('t', 'k', 30n);
    parked.park('t', 'k', 10n);
    parked.park('t', 'k', 20n);
    parked.park('t', 'k', 20n);
    expect(parked.isHead('t', 'k', 10n)).toBe(true);
    parked.release('t', 'k', 10n);
    expect(parked.isHead('t', 'k', 20n)).toBe(true);
    parked.release('t', 'k', 20n);
    expect(parked.isHead('t', 'k', 30n)).toBe(true);
    expect(parked.holds('t', 'k', 20n)).toBe(false);
  });

  test('the same key on two source topics is two independent keys', () => {
    const parked = new ParkedKeys();
    parked.park('a', 'k', 5n);
    expect(parked.isParked('b', 'k')).toBe(false);
    parked.release('b', 'k', 5n);
    expect(parked.isParked('a', 'k')).toBe(true);
  });

  test('releasing a record that is not held changes nothing', () => {
    const parked = new ParkedKeys();
    parked.park('t', 'k', 5n);
    parked.release('t', 'k', 6n);
    expect(parked.isHead('t', 'k', 5n)).toBe(true);
  });
});
