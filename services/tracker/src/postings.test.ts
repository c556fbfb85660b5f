import {
  completedDebitJourney,
  decodeAvro,
  type EventPosting,
  encodeAvro,
  parseJsonExact,
  toJson,
  transactionEventTypes,
  validate,
} from '@rp/contracts';
import { stateEventId } from '@rp/pipeline';
import { describe, expect, it } from 'vitest';
import { exampleDebit, newDebit } from '../test/fixtures.ts';
import {
  directionOf,
  esmStatePosting,
  eventIdOfPostingMessageId,
  matchingKeyOf,
  paymentRecordOf,
  postingMessageId,
  postingsOf,
  type SequencedChange,
  transactionStatePosting,
} from './postings.ts';

function sequenced(overrides: Partial<SequencedChange> = {}): SequencedChange {
  const uetr = exampleDebit.transactionIdentifiers.uetr;
  return {
    uetr,
    eventType: 'DEBIT_QUEUED',
    eventId: stateEventId(uetr, 'DEBIT_QUEUED'),
    sequence: 5,
    direction: 'OUTBOUND',
    occurredAt: '2025-03-14T07:31:10.000Z',
    transaction: exampleDebit,
    ...overrides,
  };
}

/** Valid as its own message and as the rp.events.v1 value, and unchanged through Avro and JSON. */
function expectValidPosting(posting: EventPosting) {
  const name = posting.class === 'TRANSACTION_STATE' ? 'TransactionStatePosting' : 'EsmStatePosting';
  const own = validate(name, parseJsonExact(toJson(name, posting as never)));
  expect(own.ok ? [] : own.errors).toEqual([]);
  const asEvent = validate('EventPosting', parseJsonExact(toJson('EventPosting', posting)));
  expect(asEvent.ok ? [] : asEvent.errors).toEqual([]);
  if (asEvent.ok) expect(asEvent.value).toEqual(posting);
  expect(decodeAvro('EventPosting', encodeAvro('EventPosting', posting))).toEqual(posting);
}

describe('TRANSACTION_STATE postings', () => {
  it('carry the sequence as stageVersion, the event id as message identification and the payload as it was', () => {
    const change = sequenced();
    const posting = transactionStatePosting(change);
    expect(posting).toMatchObject({
      name: 'TRANSACTION_STATE_DEBIT_QUEUED',
      apiVersion: '1.0.0',
      class: 'TRANSACTION_STATE',
      type: 'DEBIT_QUEUED',
      stageVersion: 5,
      tranInfo: {
        tranUetr: change.uetr,
        direction: 'OUTBOUND',
        paymentScheme: 'ZA_EFT',
        service: 'DIRECT_DEBIT',
      },
      messageInfo: {
        messageIdentification: postingMessageId(change.eventId),
        creationDateTime: change.occurredAt,
      },
      actionDate: '2025-03-17',
      state: { transactionState: 'ON_HOLD', financialTransactionState: 'IN_PROGRESS' },
      transactionInfo: {
        direction: 'OUTBOUND',
        paymentType: 'DEBIT',
        recordType: 'PAYMENT',
        subService: 'SAME_DAY',
      },
    });
    expect(posting.payload).toBe(exampleDebit);
    expect(posting.payload.schema).toBe('DirectDebit');
    expect(posting.identifiers).toEqual({
      endToEndIdentification: 'ACME-0325-000123',
      matchingKey: '250655-62000000021-20250317-150000-ACMEGYM001',
      transactionIdentification: 'TX-0325-000123',
      uetr: change.uetr,
    });
    expectValidPosting(posting);
  });

  it('is valid for every stage of the debit journey, with the catalogue’s state and direction', () => {
    const debit = newDebit();
    let direction: 'INBOUND' | 'OUTBOUND' | undefined;
    completedDebitJourney.forEach((eventType, index) => {
      direction = directionOf(eventType, direction);
      const uetr = debit.transactionIdentifiers.uetr;
      const postings = postingsOf(
        sequenced({
          uetr,
          eventType,
          eventId: stateEventId(uetr, eventType),
          sequence: index + 1,
          direction,
          transaction: debit,
        }),
      );
      expect(postings.map((posting) => posting.class)).toEqual(['TRANSACTION_STATE', 'ESM_STATE']);
      for (const posting of postings) {
        expectValidPosting(posting);
        expect(posting.state).toEqual(transactionEventTypes[eventType].esm);
      }
      expect(postings[0]).toMatchObject({
        stageVersion: index + 1,
        tranInfo: { direction: transactionEventTypes[eventType].direction },
      });
    });
  });

  it('RECONCILIATION_REQUIRED keeps the direction of the stage before it', () => {
    expect(directionOf('RECONCILIATION_REQUIRED', 'INBOUND')).toBe('INBOUND');
    expect(directionOf('RECONCILIATION_REQUIRED', 'OUTBOUND')).toBe('OUTBOUND');
    expect(directionOf('DEBIT_DELIVERED', 'OUTBOUND')).toBe('INBOUND');
  });

  it('the posting message identification fits MessageIdentifiers (35) and maps back to the event id', () => {
    const eventId = stateEventId(exampleDebit.transactionIdentifiers.uetr, 'DEBIT_COMPLETED');
    const id = postingMessageId(eventId);
    expect(id).toHaveLength(35);
    expect(eventIdOfPostingMessageId(id)).toBe(eventId);
    expect(eventIdOfPostingMessageId('FNB20250314093000000001')).toBeUndefined();
  });
});

describe('ESM_STATE postings', () => {
  it('carry the EFT data record of a ZA_EFT debit and a matching key derived from it', () => {
    const posting = esmStatePosting(sequenced({ eventType: 'DEBIT_COMPLETED', direction: 'INBOUND' }));
    expect(posting?.eftDataRecord).toEqual({
      schema: 'PaymentRecord',
      recordIdentifier: 'DEBIT',
      actionDate: '2025-03-17',
      amount: '1500',
      homingAccount: '62000000021',
      homingAccountName: 'Thandi Nkosi',
      homingBranch: '250655',
      homingInstitution: 'First National Bank',
      userAccount: '62000000013',
      userBranch: '250655',
      userReference: 'ACMEGYM001 MEMBERSHIP MAR25',
      accountType: 'SAVINGS',
    });
    expect(posting?.identifiers.matchingKey).toBe('250655-62000000021-20250317-150000-ACMEGYM001');
    expect(posting?.state).toEqual({ transactionState: 'SENT', financialTransactionState: 'ACTIONED' });
    expect(posting?.transactionInfo.direction).toBe('INBOUND');
    expectValidPosting(posting as EventPosting);
  });

  it('is only produced for ZA_EFT transactions', () => {
    const rtc = newDebit({ paymentScheme: { schema: 'ZA_RTC' } });
    const postings = postingsOf(sequenced({ uetr: rtc.transactionIdentifiers.uetr, transaction: rtc }));
    expect(postings.map((posting) => posting.class)).toEqual(['TRANSACTION_STATE']);
    expect(postings[0]?.identifiers?.matchingKey).toBeUndefined();
    expectValidPosting(postings[0] as EventPosting);
  });

  it('leaves out what the EFT record cannot hold instead of failing', () => {
    const odd = newDebit({
      amounts: { bankSettlementAmount: { value: '12.5', currency: 'ZAR' } },
      debtorAccount: { identification: { schema: 'GENERIC', value: 'NOT-A-NUMBER' }, name: 'x'.repeat(60) },
      paymentScheme: { schema: 'ZA_EFT' },
    });
    delete (odd as { requestedCollectionDate?: string }).requestedCollectionDate;
    delete (odd as { settlementDate?: string }).settlementDate;
    const record = paymentRecordOf(odd, new Date('2025-03-14T22:30:00.000Z'));
    // Without a collection or settlement date: today in South Africa, where 22:30 UTC is already tomorrow.
    expect(record).toMatchObject({
      amount: '12.5',
      actionDate: '2025-03-15',
      homingAccountName: 'x'.repeat(30),
    });
    expect(record?.homingAccount).toBeUndefined();
    expect(matchingKeyOf(record as never)).toBe('250655--20250315-1250-');
    const dollars = newDebit({ amounts: { bankSettlementAmount: { value: '10.125', currency: 'BHD' } } });
    expect(paymentRecordOf(dollars, new Date())).toBeUndefined();
    const posting = esmStatePosting(
      sequenced({ uetr: dollars.transactionIdentifiers.uetr, transaction: dollars }),
    );
    expect(posting?.eftDataRecord).toBeUndefined();
    expectValidPosting(posting as EventPosting);
  });
});
