import { completedDebitJourney, type TransactionStateChanged } from '@rp/contracts';
import { stateEventId } from '@rp/pipeline';
import type { TransactionSnapshot } from '@rp/store';
import { describe, expect, it } from 'vitest';
import { change, journeyChanges, newDebit } from '../test/fixtures.ts';
import {
  decide,
  fromSnapshot,
  hasApplied,
  knowsMessage,
  newTransaction,
  PartitionPositions,
  type TrackedTransaction,
  TransactionCache,
  withImpliedDelivery,
  withMessage,
} from './sequencer.ts';

/** Runs changes through the sequencer as the batch handler does; returns what happened to each. */
function run(start: TrackedTransaction, changes: readonly TransactionStateChanged[]) {
  let current = start;
  const outcomes = changes.map((value) => {
    const decision = decide(current, value);
    if (decision.kind === 'apply') current = decision.next;
    return decision;
  });
  return { outcomes, final: current };
}

describe('sequencing', () => {
  it('numbers a journey 1..n in order and follows the transition table', () => {
    const debit = newDebit();
    const uetr = debit.transactionIdentifiers.uetr;
    const { outcomes, final } = run(newTransaction(uetr, 0), journeyChanges(debit));
    expect(outcomes.map((outcome) => outcome.kind)).toEqual(completedDebitJourney.map(() => 'apply'));
    expect(outcomes.map((outcome) => (outcome.kind === 'apply' ? outcome.sequence : 0))).toEqual(
      completedDebitJourney.map((_, index) => index + 1),
    );
    expect(outcomes.map((outcome) => outcome.eventId)).toEqual(
      completedDebitJourney.map((type) => stateEventId(uetr, type)),
    );
    expect(final).toMatchObject({
      state: 'DEBIT_COMPLETED',
      sequence: completedDebitJourney.length,
      direction: 'INBOUND',
    });
  });

  it("applies the delivery a bank's report implies when the report overtakes the record of its 202", () => {
    const debit = newDebit();
    const uetr = debit.transactionIdentifiers.uetr;
    const changes = journeyChanges(debit);
    const delivered = changes.findIndex((value) => value.eventType === 'DEBIT_DELIVERED');
    const reordered = [
      ...changes.slice(0, delivered),
      ...changes.slice(delivered + 1, delivered + 2), // the report first
      changes[delivered] as TransactionStateChanged, // then the dispatcher's record of the 202
      ...changes.slice(delivered + 2),
    ];
    let current = newTransaction(uetr, 0);
    const applied: string[] = [];
    const kinds: string[] = [];
    for (const value of reordered) {
      for (const expanded of withImpliedDelivery(current, value)) {
        const decision = decide(current, expanded);
        kinds.push(decision.kind);
        if (decision.kind === 'apply') {
          current = decision.next;
          applied.push(decision.eventType);
        }
      }
    }
    // Every stage once, in journey order; the late record is a repeat (same event id), not refused.
    expect(applied).toEqual(completedDebitJourney);
    expect(kinds.filter((kind) => kind === 'repeat')).toHaveLength(1);
    expect(kinds).not.toContain('refuse');
    expect(current).toMatchObject({ state: 'DEBIT_COMPLETED', sequence: completedDebitJourney.length });
  });

  it('leaves a report that follows the record of the delivery as it is', () => {
    const debit = newDebit();
    const changes = journeyChanges(debit);
    let current = newTransaction(debit.transactionIdentifiers.uetr, 0);
    for (const value of changes) {
      const expanded = withImpliedDelivery(current, value);
      expect(expanded).toEqual([value]);
      const decision = decide(current, value);
      if (decision.kind === 'apply') current = decision.next;
    }
  });

  it('drops a repeated change without using a sequence number', () => {
    const debit = newDebit();
    const [received, accepted, pending] = journeyChanges(
      debit,
      completedDebitJourney.slice(0, 3),
    ) as TransactionStateChanged[];
    const { outcomes, final } = run(newTransaction(debit.transactionIdentifiers.uetr, 0), [
      received,
      received,
      accepted,
      received,
      accepted,
      pending,
    ] as TransactionStateChanged[]);
    expect(outcomes.map((outcome) => outcome.kind)).toEqual([
      'apply',
      'repeat',
      'apply',
      'repeat',
      'repeat',
      'apply',
    ]);
    expect(final.sequence).toBe(3);
    expect(final.state).toBe('DEBIT_ACCEPTANCE_DELIVERY_PENDING');
  });

  it('refuses a change the tracker’s state does not allow, whatever the emitter saw, and keeps counting from there', () => {
    const debit = newDebit();
    const upToPending = journeyChanges(debit, completedDebitJourney.slice(0, 6));
    // The bank's report overtook the dispatcher's record of the bank's 202.
    const response = change(debit, 'DEBIT_RESPONSE_ACCEPTED', 'DEBIT_DELIVERED');
    const late = change(debit, 'DEBIT_DELIVERED', 'DEBIT_DELIVERY_PENDING');
    const completed = change(debit, 'DEBIT_COMPLETED', 'DEBIT_RESPONSE_ACCEPTED');
    const { outcomes, final } = run(newTransaction(debit.transactionIdentifiers.uetr, 0), [
      ...upToPending,
      response,
      late,
      completed,
    ]);
    const last = outcomes.slice(-3);
    expect(last[0]).toMatchObject({
      kind: 'apply',
      sequence: 7,
      fromState: 'DEBIT_DELIVERY_PENDING',
      toState: 'DEBIT_RESPONSE_ACCEPTED',
    });
    expect(last[1]).toMatchObject({ kind: 'refuse' });
    expect(last[1]?.kind === 'refuse' && last[1].reason).toMatch(
      /DEBIT_DELIVERED is not allowed from DEBIT_RESPONSE_ACCEPTED/,
    );
    expect(last[2]).toMatchObject({ kind: 'apply', sequence: 8, toState: 'DEBIT_COMPLETED' });
    expect(final.sequence).toBe(8);
  });

  it('refuses a first change that does not start a transaction, and anything after a final state', () => {
    const debit = newDebit();
    const uetr = debit.transactionIdentifiers.uetr;
    expect(
      decide(newTransaction(uetr, 0), change(debit, 'DEBIT_QUEUED', 'DEBIT_ACCEPTANCE_DELIVERED')).kind,
    ).toBe('refuse');
    const { final } = run(newTransaction(uetr, 0), journeyChanges(debit));
    expect(decide(final, change(debit, 'RECONCILIATION_REQUIRED', 'DEBIT_QUEUED'))).toMatchObject({
      kind: 'refuse',
    });
    expect(
      decide(final, { ...change(debit, 'DEBIT_REQUEST_RECEIVED', undefined), eventType: 'UNKNOWN' }),
    ).toMatchObject({ kind: 'refuse' });
  });

  it("leaves a transaction already final alone when a bank's report comes late; refuses the same change from the engine", () => {
    const debit = newDebit();
    const { final } = run(newTransaction(debit.transactionIdentifiers.uetr, 0), journeyChanges(debit));
    expect(final.state).toBe('DEBIT_COMPLETED');
    const unpaid = change(debit, 'DEBIT_UNPAID', 'DEBIT_RESPONSE_ACCEPTED');
    const fromReport: TransactionStateChanged = {
      ...unpaid,
      causedBy: { messageType: 'PaymentStatusReport', messageIdentification: 'BANKREPORT2' },
    };
    expect(decide(final, fromReport)).toMatchObject({ kind: 'late', state: 'DEBIT_COMPLETED' });
    expect(decide(final, unpaid)).toMatchObject({ kind: 'refuse' });
    // Before the final state, a report's change is sequenced as any other.
    const { final: responded } = run(
      newTransaction(debit.transactionIdentifiers.uetr, 0),
      journeyChanges(debit).slice(0, -1),
    );
    expect(decide(responded, fromReport)).toMatchObject({ kind: 'apply', toState: 'DEBIT_UNPAID' });
  });

  it('continues the sequence of a transaction read from its snapshot', () => {
    const debit = newDebit();
    const uetr = debit.transactionIdentifiers.uetr;
    const changes = journeyChanges(debit);
    const first = run(newTransaction(uetr, 2), changes.slice(0, 4));
    const snapshot: TransactionSnapshot = {
      uetr,
      state: first.final.state as string,
      version: 4,
      lastSeq: 4,
      history: first.outcomes.map((outcome, index) => ({
        eventId: outcome.eventId,
        seq: index + 1,
        from: null,
        to: 'x',
        eventType: completedDebitJourney[index] as string,
        at: new Date(),
        service: 'test',
      })),
      messages: [
        {
          kind: 'DirectDebit',
          messageIdentification: debit.messageIdentifiers.messageIdentification,
          at: new Date(),
          bodyJson: '{}',
        },
      ],
      deliveryAttempts: [],
      deliveryAttemptCount: 0,
      createdAt: new Date(),
      updatedAt: new Date(),
    };
    const loaded = fromSnapshot(snapshot, uetr, 2);
    expect(loaded).toMatchObject({
      state: 'DEBIT_ACCEPTANCE_DELIVERED',
      sequence: 4,
      direction: 'OUTBOUND',
      partition: 2,
    });
    expect(knowsMessage(loaded, 'DirectDebit', debit.messageIdentifiers.messageIdentification)).toBe(true);
    expect(knowsMessage(loaded, 'PaymentStatusReport', debit.messageIdentifiers.messageIdentification)).toBe(
      false,
    );
    const rest = run(loaded, changes);
    expect(rest.outcomes.map((outcome) => outcome.kind)).toEqual([
      ...Array(4).fill('repeat'),
      ...Array(5).fill('apply'),
    ]);
    expect(rest.final.sequence).toBe(9);
    expect(fromSnapshot(null, uetr, 1)).toMatchObject({ state: undefined, sequence: 0 });
    expect(fromSnapshot({ ...snapshot, state: null, lastSeq: 0, history: [] }, uetr, 1).sequence).toBe(0);
  });
});

describe('what a tracked transaction keeps', () => {
  it('knows every change applied by its event type, and nothing else', () => {
    const debit = newDebit();
    const uetr = debit.transactionIdentifiers.uetr;
    const { final } = run(newTransaction(uetr, 0), journeyChanges(debit, completedDebitJourney.slice(0, 3)));
    for (const type of completedDebitJourney)
      expect(hasApplied(final, type)).toBe(completedDebitJourney.indexOf(type) < 3);
    expect(hasApplied(final, 'CREDIT_AUTH_RECEIVED')).toBe(false);
    expect(hasApplied(final, 'NOT_A_TYPE')).toBe(false);
  });

  it("drops a change of a type it does not know as a repeat when the snapshot records it (a later version's)", () => {
    const debit = newDebit();
    const uetr = debit.transactionIdentifiers.uetr;
    const at = new Date();
    const entry = (eventType: string, seq: number) => ({
      eventId: stateEventId(uetr, eventType),
      seq,
      from: null,
      to: 'x',
      eventType,
      at,
      service: 'test',
    });
    const snapshot: TransactionSnapshot = {
      uetr,
      state: 'DEBIT_RECEIVED',
      version: 2,
      lastSeq: 2,
      history: [entry('DEBIT_REQUEST_RECEIVED', 1), entry('DEBIT_SCREENED', 2)],
      messages: [],
      deliveryAttempts: [],
      deliveryAttemptCount: 0,
      createdAt: at,
      updatedAt: at,
    };
    const loaded = fromSnapshot(snapshot, uetr, 0);
    expect(hasApplied(loaded, 'DEBIT_SCREENED')).toBe(true);
    expect(hasApplied(loaded, 'DEBIT_REQUEST_RECEIVED')).toBe(true);
    const screened = { ...change(debit, 'DEBIT_REQUEST_RECEIVED', undefined), eventType: 'DEBIT_SCREENED' };
    expect(decide(loaded, screened as TransactionStateChanged)).toEqual({
      kind: 'repeat',
      eventId: stateEventId(uetr, 'DEBIT_SCREENED'),
    });
    const other = { ...screened, eventType: 'DEBIT_ARCHIVED' };
    expect(decide(loaded, other as TransactionStateChanged)).toMatchObject({ kind: 'refuse' });
  });

  it('keeps each message of its snapshot once', () => {
    const start = newTransaction('u', 0);
    const once = withMessage(start, 'DirectDebit', 'M1');
    const twice = withMessage(once, 'DirectDebit', 'M1');
    const report = withMessage(twice, 'PaymentStatusReport', 'M1');
    expect(twice).toBe(once);
    expect(report.messages).toEqual(['DirectDebit', 'M1', 'PaymentStatusReport', 'M1']);
    expect(knowsMessage(report, 'PaymentStatusReport', 'M1')).toBe(true);
    expect(knowsMessage(report, 'PaymentStatusReport', 'M2')).toBe(false);
    expect(knowsMessage(start, 'DirectDebit', 'M1')).toBe(false);
  });
});

describe('TransactionCache', () => {
  const tracked = (uetr: string, state: TrackedTransaction['state'], partition = 0): TrackedTransaction => ({
    ...newTransaction(uetr, partition),
    state,
  });

  it('forgets final transactions first, then the least recently used open one', () => {
    const cache = new TransactionCache(3);
    cache.set(tracked('open-1', 'DEBIT_QUEUED'));
    cache.set(tracked('done-1', 'DEBIT_COMPLETED'));
    cache.set(tracked('open-2', 'DEBIT_RECEIVED'));
    cache.set(tracked('open-3', 'DEBIT_RECEIVED'));
    expect(cache.get('done-1')).toBeUndefined();
    expect(cache.size).toBe(3);
    cache.get('open-1');
    cache.set(tracked('open-4', 'DEBIT_RECEIVED'));
    expect(cache.get('open-2')).toBeUndefined();
    expect(cache.get('open-1')).toBeDefined();
    expect(cache.evictions).toBe(2);
  });

  it('drops the transactions of one partition', () => {
    const cache = new TransactionCache(10);
    cache.set(tracked('a', 'DEBIT_QUEUED', 1));
    cache.set(tracked('b', 'DEBIT_COMPLETED', 1));
    cache.set(tracked('c', 'DEBIT_QUEUED', 2));
    expect(cache.dropPartition(1)).toBe(2);
    expect(cache.get('a')).toBeUndefined();
    expect(cache.get('c')).toBeDefined();
  });
});

describe('PartitionPositions', () => {
  it('trusts a batch that continues where this process left the partition, and nothing else', () => {
    const positions = new PartitionPositions();
    expect(positions.continues(0, '0')).toBe(false);
    positions.handled(0, '41');
    expect(positions.continues(0, '42')).toBe(true);
    expect(positions.continues(0, '50')).toBe(false);
    expect(positions.continues(1, '42')).toBe(false);
    positions.forget(0);
    expect(positions.continues(0, '42')).toBe(false);
  });
});
