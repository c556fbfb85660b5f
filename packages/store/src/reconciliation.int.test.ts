import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openTestStore, type TestStore } from '../test/store-fixture.ts';
import type { ReconciliationItem } from './reconciliation.ts';

function itemsOf(windowId: string, count: number): ReconciliationItem[] {
  return Array.from({ length: count }, (_, index) => ({
    windowId,
    uetr: randomUUID(),
    row: (index % 10) + 1,
    code: `R${(index % 10) + 1}`,
    text: 'No PaymentStatusReport before the reconciliation window closed',
    stateAtClose: 'DELIVERY_PENDING',
    createdAt: new Date('2026-11-23T15:00:00.000Z'),
  }));
}

describe('ReconciliationRepository', () => {
  let context: TestStore;
  beforeEach(async () => {
    context = await openTestStore('reconciliation');
  });
  afterEach(async () => {
    await context.dispose();
  });

  it('records each item of a window close once when the close runs again', async () => {
    const windowId = '2026-11-23:recon';
    const first = itemsOf(windowId, 30);
    expect(await context.store.reconciliation.record(first)).toEqual({ recorded: 30, alreadyRecorded: 0 });
    expect(
      await context.store.reconciliation.resolve(windowId, first[0]?.uetr ?? '', {
        at: new Date(),
        note: 'paid',
      }),
    ).toBe(true);

    // The close runs again (a restart half way) and finds five more transactions.
    const rerun = [
      ...first.map((item) => ({ ...item, createdAt: new Date('2026-11-23T15:05:00.000Z') })),
      ...itemsOf(windowId, 5),
    ];
    expect(await context.store.reconciliation.record(rerun)).toEqual({ recorded: 5, alreadyRecorded: 30 });

    expect(
      await context.raw.db(context.databaseName).collection('reconciliation_items').countDocuments(),
    ).toBe(35);
    expect(await context.store.reconciliation.countOpen()).toBe(34);
    expect(await context.store.reconciliation.countOpen(windowId)).toBe(34);
    expect(await context.store.reconciliation.countOpen('other-window')).toBe(0);
    const resolved = await context.store.reconciliation.get(windowId, first[0]?.uetr ?? '');
    expect(resolved).toMatchObject({
      status: 'resolved',
      resolution: 'paid',
      createdAt: new Date('2026-11-23T15:00:00.000Z'),
    });
    expect(
      await context.store.reconciliation.resolve(windowId, first[0]?.uetr ?? '', {
        at: new Date(),
        note: 'x',
      }),
    ).toBe(false);
  });

  it('lists a window page by page in UETR order', async () => {
    const windowId = '2026-11-23:recon';
    const items = itemsOf(windowId, 23);
    await context.store.reconciliation.record([...items, ...itemsOf('2026-11-22:recon', 4)]);
    const seen: string[] = [];
    let after: string | undefined;
    let pages = 0;
    do {
      const page = await context.store.reconciliation.list({
        windowId,
        limit: 10,
        ...(after === undefined ? {} : { after }),
      });
      expect(page.items.length).toBeLessThanOrEqual(10);
      seen.push(...page.items.map((item) => item.uetr));
      after = page.next;
      pages += 1;
    } while (after !== undefined);
    expect(pages).toBe(3);
    expect(seen).toEqual(items.map((item) => item.uetr).sort());
  });

  it('refuses a row outside section 7', async () => {
    const [item] = itemsOf('w', 1);
    await expect(
      context.store.reconciliation.record([{ ...(item as ReconciliationItem), row: 11 }]),
    ).rejects.toMatchObject({
      failure: 'invalid-input',
      code: 'VALIDATION_FAILED',
    });
  });
});
