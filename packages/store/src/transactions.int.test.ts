import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openTestStore, type TestStore } from '../test/store-fixture.ts';
import { StoreError } from './errors.ts';
import type { TransactionStateChange } from './transaction-changes.ts';
import type { TransactionDeliveryAttempt } from './transactions.ts';

const states = [
  'RECEIVED',
  'ACCEPTED',
  'STATUS_DELIVERY_PENDING',
  'STATUS_DELIVERED',
  'QUEUED',
  'DELIVERY_PENDING',
  'DELIVERED',
  'RESPONSE_ACCEPTED',
  'COMPLETED',
  'ARCHIVED',
  'S11',
  'S12',
];

function changesOf(uetr: string, seqs: number[]): TransactionStateChange[] {
  return seqs.map((seq) => ({
    uetr,
    eventId: `${uetr}:${seq}`,
    seq,
    from: seq === 1 ? null : (states[seq - 2] ?? `S${seq - 1}`),
    to: states[seq - 1] ?? `S${seq}`,
    eventType: `DEBIT_${states[seq - 1] ?? `S${seq}`}`,
    at: new Date(Date.UTC(2026, 10, 23, 6, 0, seq)),
    service: seq < 3 ? 'validator' : 'dispatcher',
    ...(seq === 1
      ? {
          endToEndIdentification: `E2E-${uetr.slice(0, 8)}`,
          debtorAgentMemberId: '210000',
          creditorAgentMemberId: '250655',
          message: {
            kind: 'DirectDebit',
            messageIdentification: `MSG-${uetr.slice(0, 8)}`,
            at: new Date(Date.UTC(2026, 10, 23, 6, 0, 0)),
            // Keys with dots and dollars are safe inside JSON text.
            bodyJson: JSON.stringify({ supplementaryData: { 'key.with.dots': 'v', $odd: 1 }, uetr }),
          },
        }
      : {}),
  }));
}

/** An accepted delivery of MSG-1 at 09:00:`second`, taking `latencyMs`. */
function acceptedAttempt(second: number, latencyMs: number): TransactionDeliveryAttempt {
  return {
    at: new Date(Date.UTC(2026, 10, 23, 9, 0, second)),
    messageIdentification: 'MSG-1',
    memberId: '250655',
    endpoint: 'inbound/direct-debit',
    httpStatus: 202,
    latencyMs,
    outcome: 'accepted',
  };
}

/** Interleaves the transactions' changes as a partition would deliver them. */
function interleave(groups: TransactionStateChange[][]): TransactionStateChange[] {
  const longest = Math.max(...groups.map((group) => group.length));
  const batch: TransactionStateChange[] = [];
  for (let index = 0; index < longest; index += 1) {
    for (const group of groups) {
      const change = group[index];
      if (change) batch.push(change);
    }
  }
  return batch;
}

describe('TransactionRepository', () => {
  let context: TestStore;
  beforeEach(async () => {
    context = await openTestStore('transactions');
  });
  afterEach(async () => {
    await context.dispose();
  });

  it('coalesces 100 changes of 10 transactions into one write command', async () => {
    const uetrs = Array.from({ length: 10 }, () => randomUUID());
    const batch = interleave(uetrs.map((uetr) => changesOf(uetr, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10])));
    expect(batch).toHaveLength(100);
    context.resetCommands();

    const result = await context.store.transactions.applyChanges(batch);

    expect(result).toEqual({
      transactions: 10,
      writes: 1,
      changesApplied: 100,
      changesSkipped: 0,
      skippedIn: [],
    });
    expect(context.commandCount('update')).toBe(1);
    expect(context.commandCount('find')).toBe(0);
    for (const uetr of uetrs) {
      const snapshot = await context.store.transactions.get(uetr);
      expect(snapshot?.state).toBe('ARCHIVED');
      expect(snapshot?.version).toBe(10);
      expect(snapshot?.lastSeq).toBe(10);
      expect(snapshot?.history.map((entry) => entry.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
      expect(snapshot?.history[0]).toEqual({
        eventId: `${uetr}:1`,
        seq: 1,
        from: null,
        to: 'RECEIVED',
        eventType: 'DEBIT_RECEIVED',
        at: new Date(Date.UTC(2026, 10, 23, 6, 0, 1)),
        service: 'validator',
      });
      expect(snapshot?.createdAt).toEqual(new Date(Date.UTC(2026, 10, 23, 6, 0, 1)));
      expect(snapshot?.updatedAt).toEqual(new Date(Date.UTC(2026, 10, 23, 6, 0, 10)));
      expect(snapshot?.endToEndIdentification).toBe(`E2E-${uetr.slice(0, 8)}`);
      expect(snapshot?.debtorAgentMemberId).toBe('210000');
      expect(snapshot?.messages).toHaveLength(1);
      expect(JSON.parse(snapshot?.messages[0]?.bodyJson ?? '{}').supplementaryData['key.with.dots']).toBe(
        'v',
      );
    }
  });

  it('sends at most bulkBatchSize transactions in one write command', async () => {
    const store = await context.openAnother({ limits: { bulkBatchSize: 4 } });
    const uetrs = Array.from({ length: 10 }, () => randomUUID());
    context.resetCommands();

    const result = await store.transactions.applyChanges(
      interleave(uetrs.map((uetr) => changesOf(uetr, [1, 2]))),
    );

    expect(result).toEqual({
      transactions: 10,
      writes: 3,
      changesApplied: 20,
      changesSkipped: 0,
      skippedIn: [],
    });
    for (const uetr of uetrs) expect((await store.transactions.get(uetr))?.version).toBe(2);
  });

  it('writes every transaction of a command refused in its middle once, each attempt once', async () => {
    const uetrs = Array.from({ length: 4 }, () => randomUUID());
    await context.store.transactions.applyChanges(interleave(uetrs.map((uetr) => changesOf(uetr, [1, 2]))));
    // Another owner moves the second transaction on: the first's guarded write goes, the second's is
    // refused, and the command stops there.
    const other = await context.openAnother();
    await other.transactions.applyChanges(changesOf(uetrs[1] as string, [3]));
    const attempts = new Map(
      uetrs.map((uetr, index): [string, TransactionDeliveryAttempt[]] => [
        uetr,
        [acceptedAttempt(index, index)],
      ]),
    );
    const conflictsBefore = context.store.transactions.stats().guardConflicts;

    const result = await context.store.transactions.applyChanges(
      interleave(uetrs.map((uetr) => changesOf(uetr, [3, 4]))),
      attempts,
    );

    expect(context.store.transactions.stats().guardConflicts).toBeGreaterThan(conflictsBefore);
    // What went before the refusal may count as skipped: the local server does not say where it stopped.
    expect(result.changesApplied + result.changesSkipped).toBe(8);
    // The transaction the other owner moved held a change this one did not know of (the local server
    // does not say where it stopped: the first may be named too); the two after it did not.
    expect(result.skippedIn).toContain(uetrs[1]);
    expect(result.skippedIn).not.toContain(uetrs[2]);
    expect(result.skippedIn).not.toContain(uetrs[3]);
    expect(result.changesApplied).toBeGreaterThanOrEqual(5);
    for (const [index, uetr] of uetrs.entries()) {
      const snapshot = await context.store.transactions.get(uetr);
      expect(snapshot?.history.map((entry) => entry.seq)).toEqual([1, 2, 3, 4]);
      expect(snapshot?.version).toBe(4);
      expect(snapshot?.deliveryAttemptCount).toBe(1);
      expect(snapshot?.deliveryAttempts.map((attempt) => attempt.latencyMs)).toEqual([index]);
    }
  });

  it('tells which transactions were written wholly when a call fails part way', async () => {
    const store = await context.openAnother({ limits: { bulkBatchSize: 2 } });
    const [first, second, broken] = [randomUUID(), randomUUID(), randomUUID()];
    // A snapshot whose history is not a list: its write is refused, and not for a taken key.
    await context.raw
      .db(context.databaseName)
      .collection('transactions')
      .insertOne({ _id: broken as never, version: 1, lastSeq: 1, history: 'not a list' });
    const attempt = (latencyMs: number) => acceptedAttempt(latencyMs, latencyMs);
    const written: string[] = [];

    await expect(
      store.transactions.applyChanges(
        [...changesOf(first, [1, 2]), ...changesOf(second, [1, 2]), ...changesOf(broken, [2])],
        new Map([
          [first, [attempt(1)]],
          [second, [attempt(2)]],
          [broken, [attempt(3)]],
        ]),
        { onWritten: (uetr) => written.push(uetr) },
      ),
    ).rejects.toBeInstanceOf(StoreError);

    expect(written.sort()).toEqual([first, second].sort());
    for (const [uetr, latencyMs] of [
      [first, 1],
      [second, 2],
    ] as const) {
      const snapshot = await store.transactions.get(uetr);
      expect(snapshot?.version).toBe(2);
      expect(snapshot?.deliveryAttempts.map((each) => each.latencyMs)).toEqual([latencyMs]);
    }
  });

  it('never moves a snapshot back nor duplicates history when a batch is replayed, warm or cold', async () => {
    const uetrs = Array.from({ length: 5 }, () => randomUUID());
    const batch = interleave(uetrs.map((uetr) => changesOf(uetr, [1, 2, 3, 4, 5, 6])));
    await context.store.transactions.applyChanges(batch);
    const before = await Promise.all(uetrs.map((uetr) => context.store.transactions.get(uetr)));

    // Same process: it knows every snapshot's position, so the replay costs no round trip.
    context.resetCommands();
    const warm = await context.store.transactions.applyChanges(batch);
    expect(warm).toMatchObject({ transactions: 5, writes: 0, changesApplied: 0, changesSkipped: 30 });
    // Its own writes handed over again: nothing it did not know.
    expect(warm.skippedIn).toEqual([]);
    expect(context.commandCount('update')).toBe(0);

    // A restarted process replays the batch and an older one: the guard turns them away.
    const restarted = await context.openAnother();
    const cold = await restarted.transactions.applyChanges(batch);
    expect(cold.changesApplied).toBe(0);
    expect(new Set(cold.skippedIn)).toEqual(new Set(uetrs));
    const stale = await restarted.transactions.applyChanges(
      interleave(uetrs.map((uetr) => changesOf(uetr, [2, 3]))),
    );
    expect(stale.changesApplied).toBe(0);

    const after = await Promise.all(uetrs.map((uetr) => context.store.transactions.get(uetr)));
    expect(after).toEqual(before);
  });

  it('applies only the missing part of a batch that overlaps the snapshot', async () => {
    const uetr = randomUUID();
    await context.store.transactions.applyChanges(changesOf(uetr, [1, 2, 3, 4]));
    const restarted = await context.openAnother();

    const result = await restarted.transactions.applyChanges(changesOf(uetr, [3, 4, 5, 6]));

    expect(result).toMatchObject({ changesApplied: 2, changesSkipped: 2 });
    const snapshot = await restarted.transactions.get(uetr);
    expect(snapshot?.history.map((entry) => entry.seq)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(snapshot?.version).toBe(6);
    expect(snapshot?.state).toBe('DELIVERY_PENDING');
  });

  it('detects another writer through the version guard and re-reads instead of overwriting', async () => {
    const uetr = randomUUID();
    await context.store.transactions.applyChanges(changesOf(uetr, [1, 2, 3]));
    // A second owner (e.g. during a partition hand-over) moves the snapshot on behind the first's back.
    const other = await context.openAnother();
    await other.transactions.applyChanges(changesOf(uetr, [4, 5]));

    const conflictsBefore = context.store.transactions.stats().guardConflicts;
    const result = await context.store.transactions.applyChanges(changesOf(uetr, [4, 5, 6]));

    expect(context.store.transactions.stats().guardConflicts).toBe(conflictsBefore + 1);
    expect(result).toMatchObject({ changesApplied: 1, changesSkipped: 2, writes: 2, skippedIn: [uetr] });
    const snapshot = await context.store.transactions.get(uetr);
    expect(snapshot?.history.map((entry) => entry.seq)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(snapshot?.version).toBe(6);
  });

  it('shows the newest delivery attempts, counts them all, and keeps the stored list bounded', async () => {
    const uetr = randomUUID();
    const store = await context.openAnother({ deliveryAttemptsKept: 3 });
    const raw = context.raw.db(context.databaseName).collection('transactions');
    for (let attempt = 1; attempt <= 8; attempt += 1) {
      await store.transactions.recordDeliveryAttempt(uetr, {
        at: new Date(Date.UTC(2026, 10, 23, 9, 0, attempt)),
        messageIdentification: 'MSG-1',
        memberId: '250655',
        endpoint: 'inbound/direct-debit',
        httpStatus: attempt === 8 ? 202 : 503,
        latencyMs: 10 + attempt,
        outcome: attempt === 8 ? 'accepted' : 'retryable',
      });
      const stored = await raw.findOne({ _id: uetr as never });
      expect(stored?.deliveryAttempts.length).toBeLessThanOrEqual(6);
    }
    // The attempts arrived before the first state change was projected; the snapshot still takes it.
    await store.transactions.applyChanges(changesOf(uetr, [1]));

    const snapshot = await store.transactions.get(uetr);
    expect(snapshot?.deliveryAttempts.map((attempt) => attempt.latencyMs)).toEqual([16, 17, 18]);
    expect(snapshot?.deliveryAttempts[2]).toMatchObject({ httpStatus: 202, outcome: 'accepted' });
    expect(snapshot?.deliveryAttemptCount).toBe(8);
    expect(snapshot?.updatedAt).toEqual(new Date(Date.UTC(2026, 10, 23, 9, 0, 8)));
    expect(snapshot?.state).toBe('RECEIVED');
    expect(snapshot?.version).toBe(1);
  });

  it("writes delivery attempts in the same write as their transaction's changes, and on their own when the list is full", async () => {
    const store = await context.openAnother({ deliveryAttemptsKept: 2 });
    const [together, alone] = [randomUUID(), randomUUID()];
    const attemptAt = acceptedAttempt;
    await store.transactions.applyChanges([...changesOf(together, [1]), ...changesOf(alone, [1])]);

    const before = store.transactions.stats();
    const result = await store.transactions.applyChanges(
      changesOf(together, [2, 3]),
      new Map([
        [together, [attemptAt(1, 11), attemptAt(2, 12)]],
        [alone, [attemptAt(3, 13)]],
      ]),
    );
    // One write for the changes and their two attempts, one for the attempt with no change waiting.
    expect(result.writes).toBe(2);
    expect(store.transactions.stats().snapshotWrites - before.snapshotWrites).toBe(1);
    expect(store.transactions.stats().guardConflicts).toBe(before.guardConflicts);
    const snapshot = await store.transactions.get(together);
    expect(snapshot?.version).toBe(3);
    expect(snapshot?.deliveryAttempts.map((attempt) => attempt.latencyMs)).toEqual([11, 12]);
    expect(snapshot?.deliveryAttemptCount).toBe(2);
    expect(snapshot?.updatedAt).toEqual(new Date(Date.UTC(2026, 10, 23, 9, 0, 2)));
    expect((await store.transactions.get(alone))?.deliveryAttempts.map((each) => each.latencyMs)).toEqual([
      13,
    ]);

    // The stored list holds at most twice what is kept: two more fill it, so the next two cannot ride.
    await store.transactions.applyChanges(
      changesOf(together, [4]),
      new Map([[together, [attemptAt(4, 14), attemptAt(5, 15)]]]),
    );
    await store.transactions.applyChanges(
      changesOf(together, [5]),
      new Map([[together, [attemptAt(6, 16), attemptAt(7, 17)]]]),
    );
    const raw = context.raw.db(context.databaseName).collection('transactions');
    expect((await raw.findOne({ _id: together as never }))?.deliveryAttempts.length).toBeLessThanOrEqual(4);
    const after = await store.transactions.get(together);
    expect(after?.history.map((entry) => entry.seq)).toEqual([1, 2, 3, 4, 5]);
    expect(after?.deliveryAttempts.map((attempt) => attempt.latencyMs)).toEqual([16, 17]);
    expect(after?.deliveryAttemptCount).toBe(6);
  });

  it('loses no state change and no delivery attempt when both are written at the same time', async () => {
    // The tracker records a transaction's delivery attempts while it projects its state changes. The
    // local MongoDB-compatible server loses one of two overlapping updates of a document; the
    // repository keeps them from overlapping.
    const uetrs = Array.from({ length: 3 }, () => randomUUID());
    await context.store.transactions.applyChanges(uetrs.flatMap((uetr) => changesOf(uetr, [1])));
    const writes: Promise<unknown>[] = [];
    for (let seq = 2; seq <= 9; seq += 1) {
      writes.push(context.store.transactions.applyChanges(uetrs.flatMap((uetr) => changesOf(uetr, [seq]))));
      for (const uetr of uetrs) {
        writes.push(
          context.store.transactions.recordDeliveryAttempt(uetr, {
            at: new Date(Date.UTC(2026, 10, 23, 9, 0, seq)),
            messageIdentification: 'MSG-1',
            memberId: '250655',
            endpoint: 'inbound/direct-debit',
            httpStatus: 503,
            latencyMs: seq,
            outcome: 'retryable',
          }),
        );
      }
    }
    await Promise.all(writes);
    for (const uetr of uetrs) {
      const snapshot = await context.store.transactions.get(uetr);
      expect(snapshot?.history.map((entry) => entry.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
      expect(snapshot?.version).toBe(9);
      expect(snapshot?.deliveryAttemptCount).toBe(8);
      expect(snapshot?.deliveryAttempts.map((attempt) => attempt.latencyMs).sort()).toEqual([
        2, 3, 4, 5, 6, 7, 8, 9,
      ]);
    }
  });

  it('finds transactions by end-to-end identification and searches by state and creation time', async () => {
    const done = [randomUUID(), randomUUID()];
    const open = randomUUID();
    await context.store.transactions.applyChanges([
      ...done.flatMap((uetr) => changesOf(uetr, [1, 2, 3, 4, 5, 6, 7, 8, 9])),
      ...changesOf(open, [1, 2]),
    ]);

    const byE2e = await context.store.transactions.search({
      endToEndIdentification: `E2E-${open.slice(0, 8)}`,
      limit: 10,
    });
    expect(byE2e.map((summary) => summary.uetr)).toEqual([open]);
    // With the other filters in the same query: a state it is not in finds nothing.
    expect(
      await context.store.transactions.search({
        endToEndIdentification: `E2E-${open.slice(0, 8)}`,
        state: 'COMPLETED',
        limit: 10,
      }),
    ).toEqual([]);

    const completed = await context.store.transactions.search({ state: 'COMPLETED', limit: 10 });
    expect(completed.map((summary) => summary.uetr).sort()).toEqual([...done].sort());
    expect(completed[0]).not.toHaveProperty('history');
    // Any of several states, in one query.
    const openState = (await context.store.transactions.get(open))?.state as string;
    expect(openState).not.toBe('COMPLETED');
    const either = await context.store.transactions.search({ state: ['COMPLETED', openState], limit: 10 });
    expect(either.map((summary) => summary.uetr).sort()).toEqual([...done, open].sort());
    expect(await context.store.transactions.search({ state: [openState], limit: 10 })).toHaveLength(1);

    const none = await context.store.transactions.search({
      state: 'COMPLETED',
      from: new Date(Date.UTC(2026, 10, 24)),
      limit: 10,
    });
    expect(none).toEqual([]);
    const all = await context.store.transactions.search({
      from: new Date(Date.UTC(2026, 10, 23)),
      to: new Date(Date.UTC(2026, 10, 24)),
      limit: 2,
    });
    expect(all).toHaveLength(2);
  });
});
