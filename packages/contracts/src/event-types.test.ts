import { describe, expect, it } from 'vitest';
import {
  allowedEventTypes,
  completedDebitJourney,
  engineServices,
  isFinalState,
  type KnownTransactionState,
  nextState,
  serviceStartOrder,
  transactionEventTypes,
  transactionStates,
  transactionTransitions,
} from './event-types.ts';
import {
  reconciliationCodeSymbols,
  transactionEventTypeSymbols,
  transactionStateSymbols,
} from './generated/types.ts';
import { reconciliationCodeOfRow, reconciliationRows } from './reconciliation.ts';

const known = <T extends string>(symbols: readonly T[]) =>
  symbols.filter((symbol) => symbol !== 'UNKNOWN').sort();

describe('event type catalogue', () => {
  it('describes exactly the event types and states of the Avro enums', () => {
    expect(Object.keys(transactionEventTypes).sort()).toEqual(known(transactionEventTypeSymbols));
    expect(Object.keys(transactionStates).sort()).toEqual(known(transactionStateSymbols));
    expect(Object.keys(reconciliationRows).sort()).toEqual(known(reconciliationCodeSymbols));
  });

  it('includes the public credit stages and the debit stages of the architecture', () => {
    for (const type of [
      'CREDIT_AUTH_RECEIVED',
      'CREDIT_AUTH_RESPONSE_ACCEPTED',
      'DEBIT_REQUEST_RECEIVED',
      'DEBIT_QUEUED',
      'DEBIT_UNPAID',
      'RECONCILIATION_REQUIRED',
    ]) {
      expect(transactionEventTypes).toHaveProperty(type);
    }
    expect(transactionEventTypes.CREDIT_AUTH_RECEIVED.esm).toEqual({
      transactionState: 'RECEIVE_PENDING',
      financialTransactionState: 'IN_PROGRESS',
    });
  });

  it('numbers the reconciliation rows 1 to 10 as the spec does', () => {
    expect(
      Object.values(reconciliationRows)
        .map((row) => row.row)
        .sort((a, b) => a - b),
    ).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(reconciliationCodeOfRow(9)).toBe('INBOUND_STATUS_REPORT_MISSING');
    expect(reconciliationCodeOfRow(11)).toBeUndefined();
  });
});

describe('transaction state machine', () => {
  it('walks the on-us debit journey of spec section 4', () => {
    let state: KnownTransactionState | undefined;
    const states: (KnownTransactionState | undefined)[] = [];
    for (const eventType of completedDebitJourney) {
      state = nextState(state, eventType);
      states.push(state);
    }
    expect(states).toEqual([
      'DEBIT_RECEIVED',
      'DEBIT_ACCEPTED',
      'DEBIT_ACCEPTANCE_DELIVERY_PENDING',
      'DEBIT_ACCEPTANCE_DELIVERED',
      'DEBIT_QUEUED',
      'DEBIT_DELIVERY_PENDING',
      'DEBIT_DELIVERED',
      'DEBIT_RESPONSE_ACCEPTED',
      'DEBIT_COMPLETED',
    ]);
    expect(isFinalState('DEBIT_COMPLETED')).toBe(true);
  });

  it('queues an inbound off-us debit once accepted, with no status report to deliver', () => {
    const journey = [
      'DEBIT_REQUEST_RECEIVED',
      'DEBIT_REQUEST_ACCEPTED',
      'DEBIT_QUEUED',
      'DEBIT_DELIVERY_PENDING',
      'DEBIT_DELIVERED',
      'DEBIT_RESPONSE_ACCEPTED',
      'DEBIT_COMPLETED',
    ] as const;
    let state: KnownTransactionState | undefined;
    for (const eventType of journey) state = nextState(state, eventType);
    expect(state).toBe('DEBIT_COMPLETED');
    // A rejected debit is never queued, whichever way it came in.
    expect(() => nextState('DEBIT_REJECTED', 'DEBIT_QUEUED')).toThrow(/not allowed/);
  });

  it('tells an accepted status delivery from a rejected one', () => {
    expect(nextState('DEBIT_ACCEPTED', 'DEBIT_STATUS_DELIVERY_PENDING')).toBe(
      'DEBIT_ACCEPTANCE_DELIVERY_PENDING',
    );
    expect(nextState('DEBIT_REJECTED', 'DEBIT_STATUS_DELIVERY_PENDING')).toBe(
      'DEBIT_REJECTION_DELIVERY_PENDING',
    );
    expect(nextState('DEBIT_REJECTION_DELIVERY_PENDING', 'DEBIT_STATUS_DELIVERED')).toBe(
      'DEBIT_REJECTION_DELIVERED',
    );
  });

  it('refuses illegal transitions', () => {
    expect(() => nextState(undefined, 'DEBIT_COMPLETED')).toThrow(/not allowed from no state/);
    expect(() => nextState('DEBIT_REJECTED', 'DEBIT_QUEUED')).toThrow(
      expect.objectContaining({ code: 'ILLEGAL_TRANSITION' }),
    );
    expect(() => nextState('DEBIT_COMPLETED', 'RECONCILIATION_REQUIRED')).toThrow(/not allowed/);
    expect(() => nextState('UNKNOWN', 'DEBIT_QUEUED')).toThrow(/not allowed/);
  });

  it('lets every state that is not final go to reconciliation, and nothing leave a final state', () => {
    for (const [state, info] of Object.entries(transactionStates) as [
      KnownTransactionState,
      { final: boolean },
    ][]) {
      if (info.final) expect(allowedEventTypes(state)).toEqual([]);
      else expect(allowedEventTypes(state)).toContain('RECONCILIATION_REQUIRED');
    }
  });

  it('reaches every state, and uses every event type', () => {
    const reached = new Set(transactionTransitions.map((transition) => transition.to));
    expect([...reached].sort()).toEqual(Object.keys(transactionStates).sort());
    const used = new Set(transactionTransitions.map((transition) => transition.eventType));
    expect([...used].sort()).toEqual(Object.keys(transactionEventTypes).sort());
  });

  it('is deterministic: one target per state and event type', () => {
    const keys = transactionTransitions.map((transition) => `${transition.from}:${transition.eventType}`);
    expect(new Set(keys).size).toBe(keys.length);
  });
});

describe('serviceStartOrder', () => {
  it('names every engine service once', () => {
    expect([...serviceStartOrder].sort()).toEqual([...engineServices].sort());
  });

  it('starts the tracker and the event publisher before any service that changes a state, the ingress last', () => {
    const at = (service: (typeof serviceStartOrder)[number]) => serviceStartOrder.indexOf(service);
    for (const emitter of ['validator', 'scheduler', 'dispatcher', 'ingress'] as const) {
      expect(at('tracker'), emitter).toBeLessThan(at(emitter));
      expect(at('event-publisher'), emitter).toBeLessThan(at(emitter));
    }
    expect(serviceStartOrder.at(-1)).toBe('ingress');
  });
});
