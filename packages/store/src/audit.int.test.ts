import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openTestStore, type TestStore } from '../test/store-fixture.ts';

describe('AuditRepository', () => {
  let context: TestStore;
  beforeEach(async () => {
    context = await openTestStore('audit');
  });
  afterEach(async () => {
    await context.dispose();
  });

  it('records who did what when, lists newest first and by action, and refuses a second entry with one id', async () => {
    const { audit } = context.store;
    const first = {
      id: 'dead-letter-redrive:validator.rp.directdebit.received.v1.dlq:0:7',
      actor: 'ops-alice',
      action: 'dead-letter.redrive',
      target: 'validator.rp.directdebit.received.v1.dlq 0:7',
      detail: { reason: 'poison', uetr: '0b6f5c3e-7d1a-4e2b-9c3d-5e6f7a8b9c0d' },
      at: new Date('2026-11-23T06:00:00.000Z'),
    };
    expect(await audit.record(first)).toEqual({ outcome: 'recorded' });
    expect(await audit.record({ ...first, actor: 'ops-bob', at: new Date() })).toEqual({
      outcome: 'duplicate',
      entry: first,
    });
    await audit.record({
      actor: 'ops-bob',
      action: 'events.replay',
      target: '250655',
      detail: { postings: 4 },
      at: new Date('2026-11-23T07:00:00.000Z'),
    });
    const all = await audit.list({ limit: 10 });
    expect(all.map((entry) => [entry.actor, entry.action])).toEqual([
      ['ops-bob', 'events.replay'],
      ['ops-alice', 'dead-letter.redrive'],
    ]);
    expect(all[0]?.id).toMatch(/^events\.replay:2026-11-23T07:00:00\.000Z:/);
    expect((await audit.list({ action: 'dead-letter.redrive', limit: 10 })).map((entry) => entry.id)).toEqual(
      [first.id],
    );

    await audit.withdraw(first.id);
    expect(await audit.get(first.id)).toBeNull();
    expect(await audit.record(first)).toEqual({ outcome: 'recorded' });
  });

  it('refuses an entry without an actor', async () => {
    await expect(
      context.store.audit.record({ actor: '', action: 'x', target: 'y', at: new Date() }),
    ).rejects.toMatchObject({ failure: 'invalid-input' });
  });
});
