import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openTestStore, type TestStore } from '../test/store-fixture.ts';
import { type IdempotencyDocument, IdempotencyRepository, transactionKey } from './idempotency.ts';
import { defaultStoreLimits } from './limits.ts';

describe('IdempotencyRepository', () => {
  let context: TestStore;
  beforeEach(async () => {
    context = await openTestStore('idempotency');
  });
  afterEach(async () => {
    await context.dispose();
  });

  const claim = (key: string, payloadHash: string) => ({
    key,
    payloadHash,
    uetr: '0b6f5c3e-7d1a-4e2b-9c3d-5e6f7a8b9c0d',
    receivedAt: new Date('2026-11-23T06:00:00.000Z'),
  });

  it('answers new, then duplicate for the same payload, then conflict for another payload', async () => {
    const { idempotency } = context.store;
    expect(await idempotency.claim(claim('MSG-1', 'hash-a'))).toEqual({ outcome: 'new' });
    const duplicate = await idempotency.claim({ ...claim('MSG-1', 'hash-a'), receivedAt: new Date() });
    expect(duplicate).toEqual({
      outcome: 'duplicate',
      record: {
        key: 'MSG-1',
        payloadHash: 'hash-a',
        uetr: '0b6f5c3e-7d1a-4e2b-9c3d-5e6f7a8b9c0d',
        receivedAt: new Date('2026-11-23T06:00:00.000Z'),
      },
    });
    const conflict = await idempotency.claim(claim('MSG-1', 'hash-b'));
    expect(conflict.outcome).toBe('conflict');
    expect(conflict.outcome === 'conflict' && conflict.record.payloadHash).toBe('hash-a');
  });

  it('makes one round trip for a new key and two for a repeated one', async () => {
    context.resetCommands();
    await context.store.idempotency.claim(claim('MSG-2', 'hash-a'));
    expect(Object.fromEntries(context.commands)).toEqual({ insert: 1 });
    context.resetCommands();
    await context.store.idempotency.claim(claim('MSG-2', 'hash-a'));
    expect(Object.fromEntries(context.commands)).toEqual({ insert: 1, find: 1 });
  });

  it('lets exactly one of many concurrent claims of a key be new, also across processes', async () => {
    const other = await context.openAnother();
    const claims = Array.from({ length: 24 }, (_, index) =>
      (index % 2 === 0 ? context.store : other).idempotency.claim(claim('MSG-RACE', 'hash-a')),
    );
    const outcomes = (await Promise.all(claims)).map((result) => result.outcome);
    expect(outcomes.filter((outcome) => outcome === 'new')).toHaveLength(1);
    expect(outcomes.filter((outcome) => outcome === 'duplicate')).toHaveLength(23);
  });

  it('claims two keys in one command, the second only when the first is new', async () => {
    const { idempotency } = context.store;
    context.resetCommands();
    expect(await idempotency.claimBoth(claim('MSG-4', 'hash-a'), claim('TX-4', 'hash-a'))).toEqual({
      first: { outcome: 'new' },
      second: { outcome: 'new' },
    });
    expect(Object.fromEntries(context.commands)).toEqual({ insert: 1 });

    // The first taken: its outcome, the second not attempted (and not written).
    const again = await idempotency.claimBoth(claim('MSG-4', 'hash-a'), claim('TX-5', 'hash-a'));
    expect(again.first.outcome).toBe('duplicate');
    expect(again.second).toBeUndefined();
    expect(await idempotency.get('TX-5')).toBeNull();
    const altered = await idempotency.claimBoth(claim('MSG-4', 'hash-b'), claim('TX-6', 'hash-b'));
    expect(altered).toEqual({ first: expect.objectContaining({ outcome: 'conflict' }) });

    // The first new, the second taken by another message: the first stays claimed.
    const held = await idempotency.claimBoth(claim('MSG-7', 'hash-c'), claim('TX-4', 'hash-c'));
    expect(held.first).toEqual({ outcome: 'new' });
    expect(held.second?.outcome).toBe('conflict');
    expect(held.second?.outcome === 'conflict' && held.second.record.payloadHash).toBe('hash-a');
    expect((await idempotency.get('MSG-7'))?.payloadHash).toBe('hash-c');
    // Its resend: the first a duplicate now, the second left to the caller.
    expect(await idempotency.claimBoth(claim('MSG-7', 'hash-c'), claim('TX-4', 'hash-c'))).toEqual({
      first: expect.objectContaining({ outcome: 'duplicate' }),
    });
  });

  it("records what a UETR's claim says of its transaction, and reads it back with the claim", async () => {
    const { idempotency } = context.store;
    const transaction = {
      kind: 'DirectDebit',
      debtorAgentMemberId: '210001',
      creditorAgentMemberId: '250655',
    };
    await idempotency.claimBoth(claim('MSG-8', 'hash-a'), { ...claim('TX-8', 'hash-a'), transaction });
    expect((await idempotency.get('TX-8'))?.transaction).toEqual(transaction);
    // A message's claim records none; nor does a claim whose transaction names no agent's member id.
    expect(await idempotency.get('MSG-8')).not.toHaveProperty('transaction');
    await idempotency.claim({ ...claim('TX-9', 'hash-a'), transaction: { kind: 'CreditTransfer' } });
    expect((await idempotency.get('TX-9'))?.transaction).toEqual({ kind: 'CreditTransfer' });
    // A duplicate's record carries the first claim's transaction.
    const again = await idempotency.claim({
      ...claim('TX-8', 'hash-a'),
      transaction: { kind: 'CreditTransfer' },
    });
    expect(again.outcome === 'duplicate' && again.record.transaction).toEqual(transaction);
  });

  it('sends the claims of one moment in one command, and tells each caller its own outcome', async () => {
    const { idempotency } = context.store;
    await idempotency.claim(claim('MOMENT-TAKEN', 'hash-a'));
    context.resetCommands();
    const [singles, resent, altered, pairs, refusedPair] = await Promise.all([
      Promise.all(
        Array.from({ length: 10 }, (_, index) => idempotency.claim(claim(`MOMENT-${index}`, 'hash-a'))),
      ),
      idempotency.claim(claim('MOMENT-TAKEN', 'hash-a')),
      idempotency.claim(claim('MOMENT-TAKEN', 'hash-b')),
      Promise.all(
        Array.from({ length: 3 }, (_, index) =>
          idempotency.claimBoth(
            claim(`MOMENT-MSG-${index}`, 'hash-c'),
            claim(`MOMENT-TX-${index}`, 'hash-c'),
          ),
        ),
      ),
      idempotency.claimBoth(claim('MOMENT-TAKEN', 'hash-d'), claim('MOMENT-TX-REFUSED', 'hash-d')),
    ]);
    expect(singles.map((outcome) => outcome.outcome)).toEqual(Array(10).fill('new'));
    expect(resent.outcome).toBe('duplicate');
    expect(altered.outcome).toBe('conflict');
    expect(pairs).toEqual(Array(3).fill({ first: { outcome: 'new' }, second: { outcome: 'new' } }));
    expect(refusedPair).toEqual({ first: expect.objectContaining({ outcome: 'conflict' }) });
    // The refused message's UETR claim was written with the others and taken back.
    expect(await idempotency.get('MOMENT-TX-REFUSED')).toBeNull();
    expect((await idempotency.get('MOMENT-TX-2'))?.payloadHash).toBe('hash-c');
    // One insert for the twenty documents; a read for each taken key; the delete that took one back.
    expect(Object.fromEntries(context.commands)).toMatchObject({ insert: 1, delete: 1 });
  });

  it('claims many keys an insert command at a time, leaving the keys taken already as they were', async () => {
    let inserts = 0;
    const { idempotency } = await context.openAnother({
      limits: { bulkInsertSize: 25 },
      onCommand: (event) => {
        if (event.commandName === 'insert') inserts += 1;
      },
    });
    await idempotency.claim(claim('MANY-3', 'first-hash'));
    const claims = Array.from({ length: 30 }, (_, index) => claim(`MANY-${index}`, `hash-${index}`));
    inserts = 0;
    await idempotency.claimMany(claims);
    // 25 a command (bulkInsertSize), the taken key among them.
    expect(inserts).toBe(2);
    expect((await idempotency.get('MANY-3'))?.payloadHash).toBe('first-hash');
    expect((await idempotency.get('MANY-29'))?.payloadHash).toBe('hash-29');
    const stored = await Promise.all(claims.map((one) => idempotency.get(one.key)));
    expect(stored.every((record) => record !== null)).toBe(true);
    await idempotency.claimMany([]);
    await expect(idempotency.claimMany([claim('', 'hash')])).rejects.toMatchObject({
      failure: 'invalid-input',
    });
  });

  it('keeps keys that contain dots and dollars as values, never as field names', async () => {
    expect(await context.store.idempotency.claim(claim('bank.a$MSG.3', 'hash-a'))).toEqual({
      outcome: 'new',
    });
    expect((await context.store.idempotency.get('bank.a$MSG.3'))?.payloadHash).toBe('hash-a');
  });

  it("purges message claims and markers received before the cut, in rounds of the limit, never a UETR's key", async () => {
    const { idempotency } = context.store;
    const at = (day: number) => new Date(Date.UTC(2026, 10, day, 9, 0, 0));
    const received = (key: string, day: number) => ({ ...claim(key, `hash-${key}`), receivedAt: at(day) });
    // Twelve old message claims and markers of the 1st, the UETR keys of the 1st, and a claim of the 10th.
    await idempotency.claimMany(
      Array.from({ length: 12 }, (_, index) =>
        received(index % 2 === 0 ? `210000:OLD-${index}` : `produced:210000:OLD-${index}`, 1),
      ),
    );
    await idempotency.claim(received(transactionKey('0b6f5c3e-7d1a-4e2b-9c3d-5e6f7a8b9c0d'), 1));
    await idempotency.claim(received('transaction-like:OLD', 1));
    await idempotency.claim(received('210000:RECENT', 10));

    await idempotency.ensurePurgeIndex();
    await idempotency.ensurePurgeIndex();
    expect(
      (await context.indexNames('idempotency_keys')).filter((index) => index === 'receivedAt_1'),
    ).toHaveLength(1);
    // Before the 2nd: the twelve and the key that only looks like a UETR's, 10 and then 3.
    expect(await idempotency.purge(at(2), 10)).toBe(10);
    expect(await idempotency.purge(at(2), 10)).toBe(3);
    expect(await idempotency.purge(at(2), 10)).toBe(0);
    expect(await idempotency.get('210000:OLD-0')).toBeNull();
    expect(await idempotency.get('transaction-like:OLD')).toBeNull();
    expect(await idempotency.get(transactionKey('0b6f5c3e-7d1a-4e2b-9c3d-5e6f7a8b9c0d'))).not.toBeNull();
    expect(await idempotency.get('210000:RECENT')).not.toBeNull();
    // A purged message claimed again is new; the UETR's key still says the transaction is taken.
    expect(await idempotency.claim(received('210000:OLD-0', 20))).toEqual({ outcome: 'new' });
    expect(
      (await idempotency.claim(received(transactionKey('0b6f5c3e-7d1a-4e2b-9c3d-5e6f7a8b9c0d'), 20))).outcome,
    ).toBe('duplicate');
  });

  it('claims a key again when a purge takes it between the insert and the read, and refuses one gone twice', async () => {
    const raw = context.raw.db(context.databaseName).collection<IdempotencyDocument>('idempotency_keys');
    await context.store.idempotency.claim(claim('MSG-GONE', 'hash-a'));
    await context.store.idempotency.claim(claim('MSG-GONE-TWICE', 'hash-a'));
    // The real collection, except that each read of a key first deletes it: a purge at that moment.
    let reads = 0;
    const purgedBeforeRead = new Proxy(raw, {
      get(target, property, receiver) {
        if (property !== 'findOne') return Reflect.get(target, property, receiver);
        return async (filter: { _id: string }, options: object) => {
          reads += 1;
          await target.deleteOne({ _id: filter._id });
          return target.findOne(filter, options);
        };
      },
    });
    const repository = new IdempotencyRepository(purgedBeforeRead, defaultStoreLimits);
    expect(await repository.claim({ ...claim('MSG-GONE', 'hash-a'), receivedAt: new Date() })).toEqual({
      outcome: 'new',
    });
    expect(reads).toBe(1);
    expect(await raw.countDocuments({ _id: 'MSG-GONE' })).toBe(1);
    // Each insert finds the key taken by another claim, and each read finds it gone: refused.
    const racing = new Proxy(raw, {
      get(target, property, receiver) {
        if (property === 'findOne')
          return async (filter: { _id: string }, options: object) => {
            await target.deleteOne({ _id: filter._id });
            return target.findOne(filter, options);
          };
        if (property === 'insertMany')
          return async (documents: IdempotencyDocument[], options: object) => {
            const { _id, ...rest } = documents[0] as IdempotencyDocument;
            await target.updateOne({ _id }, { $setOnInsert: rest }, { upsert: true });
            return target.insertMany(documents, options);
          };
        return Reflect.get(target, property, receiver);
      },
    });
    await expect(
      new IdempotencyRepository(racing, defaultStoreLimits).claim(claim('MSG-GONE-TWICE', 'hash-a')),
    ).rejects.toMatchObject({ failure: 'inconsistent' });
  });
});
