import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openTestStore, type TestStore } from '../test/store-fixture.ts';

describe('ReconciliationCloseRepository', () => {
  let context: TestStore;
  beforeEach(async () => {
    context = await openTestStore('reconciliation-closes');
  });
  afterEach(async () => {
    await context.dispose();
  });

  it("keeps a day's first close and adds up its runs and items; lists the newest days first", async () => {
    const closes = context.store.reconciliationCloses;
    const closedAt = new Date('2026-11-23T16:00:00.000Z');
    await closes.record({
      businessDate: '2026-11-23',
      closedAt,
      ranAt: new Date('2026-11-23T16:00:01.000Z'),
      raised: 5,
    });
    // Run again later by an operator: the close keeps its instant.
    await closes.record({
      businessDate: '2026-11-23',
      closedAt: new Date('2026-11-23T17:30:00.000Z'),
      ranAt: new Date('2026-11-23T17:30:00.000Z'),
      raised: 1,
    });
    await closes.record({
      businessDate: '2026-11-24',
      closedAt: new Date('2026-11-24T16:00:00.000Z'),
      ranAt: new Date('2026-11-25T06:00:00.000Z'),
      raised: 0,
    });
    expect(await closes.recent(5)).toEqual([
      {
        businessDate: '2026-11-24',
        closedAt: new Date('2026-11-24T16:00:00.000Z'),
        firstRunAt: new Date('2026-11-25T06:00:00.000Z'),
        lastRunAt: new Date('2026-11-25T06:00:00.000Z'),
        runs: 1,
        raised: 0,
      },
      {
        businessDate: '2026-11-23',
        closedAt,
        firstRunAt: new Date('2026-11-23T16:00:01.000Z'),
        lastRunAt: new Date('2026-11-23T17:30:00.000Z'),
        runs: 2,
        raised: 6,
      },
    ]);
    expect((await closes.recent(1)).map((close) => close.businessDate)).toEqual(['2026-11-24']);
  });

  it('refuses a date that is not one, and a count that is not whole, writing nothing', async () => {
    const closes = context.store.reconciliationCloses;
    const ranAt = new Date();
    await expect(
      closes.record({ businessDate: 'yesterday', closedAt: ranAt, ranAt, raised: 0 }),
    ).rejects.toMatchObject({ failure: 'invalid-input' });
    await expect(
      closes.record({ businessDate: '2026-11-23', closedAt: ranAt, ranAt, raised: 1.5 }),
    ).rejects.toMatchObject({ failure: 'invalid-input' });
    expect(await closes.recent(5)).toEqual([]);
  });
});
