import { readFileSync } from 'node:fs';
import {
  type DirectDebit,
  type EsmStatePosting,
  type EventPosting,
  parseJsonExact,
  validate,
} from '@rp/contracts';
import type { Participant } from '@rp/pipeline';
import { postingIdHeader, stateEventId } from '@rp/pipeline';
import { postingsOf } from '@rp/tracker';
import { describe, expect, it } from 'vitest';
import { describePosting, esmEventId, normaliseEventId } from './postings.ts';
import { eventsEndpoint, Subscriptions, TransactionBanks } from './subscribers.ts';

const debit = (() => {
  const text = readFileSync(
    new URL('../../../avro/examples/DirectDebit.za-eft-on-us.json', import.meta.url),
    'utf8',
  );
  const result = validate('DirectDebit', parseJsonExact(text));
  if (!result.ok) throw new Error(JSON.stringify(result.errors));
  return result.value as DirectDebit;
})();
const uetr = debit.transactionIdentifiers.uetr;

function postings(transaction: DirectDebit = debit) {
  return postingsOf({
    uetr,
    eventType: 'DEBIT_QUEUED',
    eventId: stateEventId(uetr, 'DEBIT_QUEUED'),
    sequence: 5,
    direction: 'OUTBOUND',
    occurredAt: '2025-03-14T07:31:10.000Z',
    transaction,
  });
}

describe('describePosting', () => {
  it('takes a TRANSACTION_STATE posting with its message identification as event id and its banks once', () => {
    const [state] = postings();
    const described = describePosting(state!, uetr);
    expect(described).toMatchObject({
      eventId: `EVT${stateEventId(uetr, 'DEBIT_QUEUED').replace(/-/g, '')}`,
      uetr,
      eventClass: 'TRANSACTION_STATE',
      eventName: 'TRANSACTION_STATE_DEBIT_QUEUED',
      stageVersion: 5,
      involvedBanks: ['250655'],
    });
    expect(described.eventId).toHaveLength(35);
    // Exact amounts: the body is the contracts' JSON, amounts as number tokens with their digits.
    expect(described.body).toContain(`"value":${debit.amounts.bankSettlementAmount.value}`);
    expect(validate('TransactionStatePosting', parseJsonExact(described.body)).ok).toBe(true);
  });

  it('names both banks of an off-us transaction', () => {
    const offUs = { ...debit, creditorAgent: { ...debit.creditorAgent, memberId: '198765' } };
    expect(describePosting(postings(offUs)[0]!, uetr).involvedBanks).toEqual(['250655', '198765']);
  });

  it("takes an ESM_STATE posting's event id from the record's rp-posting-id header", () => {
    const esm = postings()[1]!;
    const id = `ESM${stateEventId(uetr, 'DEBIT_QUEUED').replace(/-/g, '')}`;
    expect(describePosting(esm, uetr, { [postingIdHeader]: id }).eventId).toBe(id);
    // Alike postings of two state changes stay two postings.
    const other = `ESM${stateEventId(uetr, 'DEBIT_DELIVERED').replace(/-/g, '')}`;
    expect(describePosting(esm, uetr, { [postingIdHeader]: other }).eventId).toBe(other);
    // A header that is not an ESM id is not trusted: the id comes from the content.
    expect(describePosting(esm, uetr, { [postingIdHeader]: 'EVT0' }).eventId).toBe(
      esmEventId(esm as EsmStatePosting),
    );
  });

  it('derives a stable 35-character event id for an ESM_STATE posting without the header from its content', () => {
    const esm = postings()[1]!;
    const first = describePosting(esm, uetr);
    const again = describePosting(structuredClone(esm), uetr);
    expect(first.eventClass).toBe('ESM_STATE');
    expect(first.eventName).toMatch(/^ESM_STATE_/);
    expect(first.eventId).toBe(again.eventId);
    expect(first.eventId).toBe(esmEventId(esm as EsmStatePosting));
    const reordered = {
      ...esm,
      state: { financialTransactionState: 'IN_PROGRESS', transactionState: 'RECEIVED' },
    };
    const original = {
      ...esm,
      state: { transactionState: 'RECEIVED', financialTransactionState: 'IN_PROGRESS' },
    };
    expect(describePosting(reordered as EventPosting, uetr).eventId).toBe(
      describePosting(original as EventPosting, uetr).eventId,
    );
    expect(first.eventId).toMatch(/^ESM[0-9a-f]{32}$/);
    expect(first.involvedBanks).toBeUndefined();
    const later = describePosting({ ...esm, creationDateTime: '2025-03-14T07:31:11.000Z' }, uetr);
    expect(later.eventId).not.toBe(first.eventId);
  });

  it("accepts an event id as the state change's UUID", () => {
    const id = stateEventId(uetr, 'DEBIT_QUEUED');
    expect(normaliseEventId(id)).toBe(`EVT${id.replace(/-/g, '')}`);
    expect(normaliseEventId('ESMabc')).toBe('ESMabc');
  });
});

describe('Subscriptions', () => {
  const bank = (memberId: string, overrides: Partial<Participant> = {}): Participant => ({
    memberId,
    name: memberId,
    baseUrl: `http://bank-${memberId}`,
    eventsUrl: `http://bank-${memberId}/hooks/`,
    eventClasses: ['TRANSACTION_STATE'],
    debitLimits: {},
    ...overrides,
  });
  const subscriptions = new Subscriptions(
    new Map([
      ['A', bank('A', { eventClasses: ['TRANSACTION_STATE', 'ESM_STATE'] })],
      ['B', bank('B')],
      ['C', { ...bank('C'), eventsUrl: undefined } as unknown as Participant],
    ]),
  );

  it('keeps the banks that take the class and have an events URL, each once', () => {
    expect(subscriptions.subscribersOf(['A', 'B', 'A', 'C', 'X'], 'TRANSACTION_STATE')).toEqual([
      { memberId: 'A', endpoint: 'http://bank-A/hooks/events' },
      { memberId: 'B', endpoint: 'http://bank-B/hooks/events' },
    ]);
    expect(subscriptions.subscribersOf(['A', 'B', 'C'], 'ESM_STATE').map((s) => s.memberId)).toEqual(['A']);
    expect(subscriptions.receivers().map((participant) => participant.memberId)).toEqual(['A', 'B']);
    expect(eventsEndpoint('http://x/')).toBe('http://x/events');
  });

  it('remembers the banks of recent transactions, forgetting the least recently used', () => {
    const banks = new TransactionBanks(2);
    banks.set('u1', ['A']);
    banks.set('u2', ['B']);
    expect(banks.get('u1')).toEqual(['A']);
    banks.set('u3', ['C']);
    expect(banks.get('u2')).toBeUndefined();
    expect(banks.get('u1')).toEqual(['A']);
    expect(banks.size).toBe(2);
  });
});
