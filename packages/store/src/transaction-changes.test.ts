import { describe, expect, it } from 'vitest';
import { StoreError } from './errors.ts';
import { groupChangesByTransaction, type TransactionStateChange } from './transaction-changes.ts';

const change = (uetr: string, seq: number, eventId = `${uetr}-${seq}`): TransactionStateChange => ({
  uetr,
  eventId,
  seq,
  from: seq === 1 ? null : `S${seq - 1}`,
  to: `S${seq}`,
  eventType: `E${seq}`,
  at: new Date(Date.UTC(2026, 10, 23, 8, 0, seq)),
  service: 'validator',
});

describe('groupChangesByTransaction', () => {
  it('groups by UETR in first-seen order and sorts each group by seq', () => {
    const groups = groupChangesByTransaction([
      change('b', 2),
      change('a', 1),
      change('b', 1),
      change('a', 3),
    ]);
    expect(groups.map((group) => group.uetr)).toEqual(['b', 'a']);
    expect(groups[0]?.changes.map((each) => each.seq)).toEqual([1, 2]);
    expect(groups[1]?.changes.map((each) => each.seq)).toEqual([1, 3]);
  });

  it('keeps a redelivered event once', () => {
    const groups = groupChangesByTransaction([change('a', 1), change('a', 2), change('a', 1)]);
    expect(groups[0]?.changes.map((each) => each.eventId)).toEqual(['a-1', 'a-2']);
  });

  it('refuses two different events with one seq', () => {
    expect(() => groupChangesByTransaction([change('a', 1), change('a', 1, 'other')])).toThrow(StoreError);
  });

  it('refuses a change without a positive integer seq or a valid time', () => {
    expect(() => groupChangesByTransaction([change('a', 0)])).toThrow(/seq/);
    expect(() => groupChangesByTransaction([{ ...change('a', 1), at: new Date(Number.NaN) }])).toThrow(/at/);
  });
});
