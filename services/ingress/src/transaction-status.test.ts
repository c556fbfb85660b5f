import { readFileSync } from 'node:fs';
import { type CreditTransfer, type DirectDebit, parseJsonExact, toJson, validate } from '@rp/contracts';
import { buildStateChange } from '@rp/pipeline';
import type { TransactionSnapshot } from '@rp/store';
import { describe, expect, test } from 'vitest';
import { AcceptedTransactions } from './accepted.ts';
import { partiesOf, startingMessage, transactionStatusOf } from './transaction-status.ts';

const example = (name: string) =>
  readFileSync(new URL(`../../../avro/examples/${name}`, import.meta.url), 'utf8');
// A debit from 250655 (the creditor's bank) on an account at 632005 (the actioning bank).
const debit = {
  ...(JSON.parse(example('DirectDebit.za-eft-on-us.json').replaceAll('1500.0', '"1500.25"')) as DirectDebit),
  debtorAgent: { memberId: '632005', name: 'ABSA' },
  instructedAgent: { memberId: '632005' },
};
// In memory an amount is a decimal string; this one is beyond what a binary float holds exactly.
const credit = JSON.parse(
  example('CreditTransfer.json')
    .replaceAll('1234567890123.45', '"1234567890123.45"')
    .replace('"value": 0.1,', '"value": "0.1",'),
) as CreditTransfer;

const at = (second: number) => new Date(Date.UTC(2025, 2, 14, 7, 30, second));

function snapshotOf(
  transaction: DirectDebit | CreditTransfer,
  steps: readonly [state: string, eventType: string][],
): TransactionSnapshot {
  const message = {
    kind: transaction.schema,
    messageIdentification: transaction.messageIdentifiers.messageIdentification,
    at: at(0),
    bodyJson:
      transaction.schema === 'DirectDebit'
        ? toJson('DirectDebit', transaction)
        : toJson('CreditTransfer', transaction),
  };
  const history = steps.map(([to, eventType], index) => ({
    eventId: `event-${index + 1}`,
    seq: index + 1,
    from: index === 0 ? null : (steps[index - 1]?.[0] ?? null),
    to,
    eventType,
    at: at(index),
    service: 'validator',
  }));
  return {
    uetr: transaction.transactionIdentifiers.uetr,
    state: steps.at(-1)?.[0] ?? null,
    version: steps.length,
    lastSeq: steps.length,
    endToEndIdentification: transaction.transactionIdentifiers.endToEndIdentification,
    history: history.reverse(),
    messages: [
      message,
      // Another party's message: never shown to a bank.
      { kind: 'PaymentStatusReport', messageIdentification: 'R1', at: at(2), bodyJson: '{"secret":true}' },
    ],
    deliveryAttempts: [
      {
        at: at(3),
        messageIdentification: 'R1',
        memberId: '250655',
        endpoint: 'outbound/direct-debit-response',
        httpStatus: 202,
        latencyMs: 12,
        outcome: 'accepted',
      },
    ],
    deliveryAttemptCount: 1,
    createdAt: at(0),
    updatedAt: at(steps.length - 1),
  };
}

describe('the parties of a transaction', () => {
  test("a debit's: the initiating and the actioning bank, by every agent that names them", () => {
    expect([...partiesOf(debit)].sort()).toEqual(['250655', '632005']);
    const { instructingAgent: _instructing, instructedAgent: _instructed, ...unnamed } = debit;
    expect([...partiesOf(unnamed)].sort()).toEqual(['250655', '632005']);
  });

  test("a credit's: the creditor's bank and the debtor's bank that instructed it", () => {
    expect([...partiesOf(credit)].sort()).toEqual(['250655', '632005']);
  });
});

describe('the status a party bank reads', () => {
  test('is the transaction without any message, from its starting message and its history', () => {
    const snapshot = snapshotOf(debit, [
      ['DEBIT_RECEIVED', 'DEBIT_REQUEST_RECEIVED'],
      ['DEBIT_ACCEPTED', 'DEBIT_REQUEST_ACCEPTED'],
      ['DEBIT_ACCEPTANCE_DELIVERY_PENDING', 'DEBIT_STATUS_DELIVERY_PENDING'],
    ]);
    const started = startingMessage(snapshot);
    expect(started?.type).toBe('DIRECT_DEBIT');
    if (started === undefined) return;
    const status = transactionStatusOf(snapshot, started);
    expect(status).toEqual({
      uetr: debit.transactionIdentifiers.uetr,
      transactionType: 'DIRECT_DEBIT',
      state: 'DEBIT_ACCEPTANCE_DELIVERY_PENDING',
      final: false,
      endToEndIdentification: debit.transactionIdentifiers.endToEndIdentification,
      instructingAgentMemberId: '250655',
      instructedAgentMemberId: '632005',
      debtorAgentMemberId: '632005',
      creditorAgentMemberId: '250655',
      amount: { value: '1500.25', currency: 'ZAR' },
      createdAt: '2025-03-14T07:30:00.000Z',
      updatedAt: '2025-03-14T07:30:02.000Z',
      history: [
        {
          seq: 1,
          state: 'DEBIT_RECEIVED',
          eventType: 'DEBIT_REQUEST_RECEIVED',
          at: '2025-03-14T07:30:00.000Z',
        },
        {
          seq: 2,
          state: 'DEBIT_ACCEPTED',
          eventType: 'DEBIT_REQUEST_ACCEPTED',
          at: '2025-03-14T07:30:01.000Z',
        },
        {
          seq: 3,
          state: 'DEBIT_ACCEPTANCE_DELIVERY_PENDING',
          eventType: 'DEBIT_STATUS_DELIVERY_PENDING',
          at: '2025-03-14T07:30:02.000Z',
        },
      ],
    });
    // The body as sent matches its schema.
    expect(validate('TransactionStatus', parseJsonExact(toJson('TransactionStatus', status))).ok).toBe(true);
  });

  test('a credit keeps its amount exact in the JSON a bank receives, and says when it is final', () => {
    const snapshot = snapshotOf(credit, [
      ['CREDIT_AUTH_RECEIVED', 'CREDIT_AUTH_RECEIVED'],
      ['CREDIT_AUTH_REJECTED', 'CREDIT_AUTH_REJECTED'],
    ]);
    const started = startingMessage(snapshot);
    expect(started?.type).toBe('CREDIT_TRANSFER');
    if (started === undefined) return;
    const status = transactionStatusOf(snapshot, started);
    expect(status).toMatchObject({
      transactionType: 'CREDIT_TRANSFER',
      state: 'CREDIT_AUTH_REJECTED',
      final: true,
    });
    expect(toJson('TransactionStatus', status)).toContain(
      '"amount":{"value":1234567890123.45,"currency":"ZAR"}',
    );
  });

  test('a snapshot without a readable starting message has none', () => {
    const snapshot = snapshotOf(debit, [['DEBIT_RECEIVED', 'DEBIT_REQUEST_RECEIVED']]);
    expect(startingMessage({ ...snapshot, messages: [] })).toBeUndefined();
    expect(
      startingMessage({
        ...snapshot,
        messages: [{ kind: 'DirectDebit', messageIdentification: 'M', at: at(0), bodyJson: '{}' }],
      }),
    ).toBeUndefined();
  });

  test('a state the engine does not know is a fault, never a silently wrong answer', () => {
    const snapshot = snapshotOf(debit, [['DEBIT_SOMEWHERE', 'DEBIT_REQUEST_RECEIVED']]);
    const started = startingMessage(snapshot);
    if (started === undefined) throw new Error('no starting message');
    expect(() => transactionStatusOf(snapshot, started)).toThrow(/unknown state DEBIT_SOMEWHERE/);
  });
});

describe('a transaction this instance acknowledged, read before its snapshot exists', () => {
  const first = (
    transaction: DirectDebit | CreditTransfer,
    eventType: 'DEBIT_REQUEST_RECEIVED' | 'CREDIT_AUTH_RECEIVED',
  ) =>
    buildStateChange(
      'ingress',
      {
        eventType,
        transaction,
        causedBy: {
          messageType: transaction.schema,
          messageIdentification: transaction.messageIdentifiers.messageIdentification,
        },
      },
      at(0),
    );

  test('answers a party exactly as the snapshot of its first state will', () => {
    const accepted = new AcceptedTransactions(10);
    const cases = [
      [debit, 'DEBIT_RECEIVED', 'DEBIT_REQUEST_RECEIVED'],
      [credit, 'CREDIT_AUTH_RECEIVED', 'CREDIT_AUTH_RECEIVED'],
    ] as const;
    for (const [transaction, state, eventType] of cases) {
      accepted.remember(transaction, first(transaction, eventType));
      const snapshot = snapshotOf(transaction, [[state, eventType]]);
      const started = startingMessage(snapshot);
      if (started === undefined) throw new Error('no starting message');
      const expected = toJson('TransactionStatus', transactionStatusOf(snapshot, started));
      for (const party of partiesOf(transaction)) {
        expect(accepted.answer(snapshot.uetr, party), party).toEqual({ found: true, json: expected });
      }
    }
    const answer = accepted.answer(debit.transactionIdentifiers.uetr, '632005');
    if (!answer.found) throw new Error('not found');
    expect(JSON.parse(answer.json)).toMatchObject({
      uetr: debit.transactionIdentifiers.uetr,
      transactionType: 'DIRECT_DEBIT',
      state: 'DEBIT_RECEIVED',
      createdAt: at(0).toISOString(),
      updatedAt: at(0).toISOString(),
      final: false,
      history: [{ seq: 1, state: 'DEBIT_RECEIVED', eventType: 'DEBIT_REQUEST_RECEIVED' }],
    });
  });

  test('tells a bank that is no party, and knows nothing of a transaction it did not acknowledge', () => {
    const accepted = new AcceptedTransactions(10);
    accepted.remember(debit, first(debit, 'DEBIT_REQUEST_RECEIVED'));
    const uetr = debit.transactionIdentifiers.uetr;
    expect(accepted.answer(uetr, '198765')).toEqual({ found: false, party: false });
    expect(accepted.answer(credit.transactionIdentifiers.uetr, '250655')).toEqual({
      found: false,
      party: undefined,
    });
  });

  test('keeps only the last it acknowledged, and none at capacity 0', () => {
    const accepted = new AcceptedTransactions(1);
    accepted.remember(debit, first(debit, 'DEBIT_REQUEST_RECEIVED'));
    accepted.remember(credit, first(credit, 'CREDIT_AUTH_RECEIVED'));
    expect(accepted.answer(debit.transactionIdentifiers.uetr, '250655').found).toBe(false);
    expect(accepted.answer(credit.transactionIdentifiers.uetr, '250655').found).toBe(true);
    const none = new AcceptedTransactions(0);
    none.remember(debit, first(debit, 'DEBIT_REQUEST_RECEIVED'));
    expect(none.answer(debit.transactionIdentifiers.uetr, '250655').found).toBe(false);
  });
});
