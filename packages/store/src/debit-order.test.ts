import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type DebitOrder, debitOrderKey } from './debit-order.ts';
import { StoreError } from './errors.ts';

const uetr = fc.uuid().map((value) => value.toLowerCase());
const order: fc.Arbitrary<DebitOrder> = fc.record({
  requestedCollectionDate: fc
    .date({
      min: new Date('2020-01-01T00:00:00Z'),
      max: new Date('2040-12-31T00:00:00Z'),
      noInvalidDate: true,
    })
    .map((date) => date.toISOString().slice(0, 10)),
  creditorAgentMemberId: fc.oneof(
    fc.constantFrom('210000', '250655', '470010', 'ABSAZAJJ', 'FIRNZAJJ', 'A', 'AB'),
    fc.stringMatching(/^[A-Za-z0-9]{1,16}$/),
  ),
  enqueuedAt: fc.date({
    min: new Date('2020-01-01T00:00:00Z'),
    max: new Date('2100-01-01T00:00:00Z'),
    noInvalidDate: true,
  }),
  uetr,
});

const bytes = (value: string) => Buffer.from(value, 'utf8');
const sign = (value: number) => Math.sign(value);

/** The documented order, written directly from its definition. */
function documentedCompare(a: DebitOrder, b: DebitOrder): number {
  if (a.requestedCollectionDate !== b.requestedCollectionDate) {
    return a.requestedCollectionDate < b.requestedCollectionDate ? -1 : 1;
  }
  const creditor = Buffer.compare(bytes(a.creditorAgentMemberId), bytes(b.creditorAgentMemberId));
  if (creditor !== 0) return creditor;
  if (a.enqueuedAt.getTime() !== b.enqueuedAt.getTime())
    return a.enqueuedAt.getTime() - b.enqueuedAt.getTime();
  return a.uetr < b.uetr ? -1 : a.uetr > b.uetr ? 1 : 0;
}

describe('debitOrderKey', () => {
  it('sorts by bytes exactly as the documented order', () => {
    fc.assert(
      fc.property(order, order, (a, b) => {
        const byKey = Buffer.compare(bytes(debitOrderKey(a)), bytes(debitOrderKey(b)));
        expect(sign(byKey)).toBe(sign(documentedCompare(a, b)));
      }),
      { numRuns: 2_000 },
    );
  });

  it('sorts the same under a locale collation, as a PostgreSQL-backed server may compare strings', () => {
    const collator = new Intl.Collator('en-US');
    fc.assert(
      fc.property(order, order, (a, b) => {
        const keyA = debitOrderKey(a);
        const keyB = debitOrderKey(b);
        expect(sign(collator.compare(keyA, keyB))).toBe(sign(Buffer.compare(bytes(keyA), bytes(keyB))));
      }),
      { numRuns: 2_000 },
    );
  });

  it('has a fixed width', () => {
    fc.assert(
      fc.property(order, (value) => {
        expect(debitOrderKey(value)).toHaveLength(8 + 1 + 32 + 1 + 15 + 1 + 36);
      }),
    );
  });

  it('refuses values that would break the order', () => {
    const valid: DebitOrder = {
      requestedCollectionDate: '2026-11-23',
      creditorAgentMemberId: '210000',
      enqueuedAt: new Date('2026-11-23T06:00:00Z'),
      uetr: '4f1c2a9e-3b7d-4c1a-9e2f-0a1b2c3d4e5f',
    };
    expect(() => debitOrderKey({ ...valid, requestedCollectionDate: '2026-02-30' })).toThrow(StoreError);
    expect(() => debitOrderKey({ ...valid, requestedCollectionDate: '23/11/2026' })).toThrow(StoreError);
    expect(() => debitOrderKey({ ...valid, creditorAgentMemberId: 'X'.repeat(17) })).toThrow(StoreError);
    expect(() => debitOrderKey({ ...valid, creditorAgentMemberId: '' })).toThrow(StoreError);
    expect(() => debitOrderKey({ ...valid, uetr: 'not-a-uuid' })).toThrow(StoreError);
    expect(() => debitOrderKey({ ...valid, enqueuedAt: new Date(Number.NaN) })).toThrow(StoreError);
  });
});
