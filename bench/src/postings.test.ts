import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  type DeliveryOutcome,
  type DirectDebit,
  decodeAvro,
  encodeAvro,
  type MessageName,
  parseJsonExact,
  type TransactionStatePosting,
  validate,
} from '@rp/contracts';
import { describe, expect, it } from 'vitest';
import { copyJourney, copyParts, identifiersOf, type RawRecord } from './postings.ts';

/** The schema registry's wire-format header of schema id 7. */
const wireHeader = Buffer.from([0, 0, 0, 0, 7]);
const root = fileURLToPath(new URL('../..', import.meta.url));

function example<T>(message: MessageName, file: string): T {
  const text = readFileSync(join(root, 'avro', 'examples', file), 'utf8');
  const checked = validate(message, parseJsonExact(text));
  if (!checked.ok) throw new Error(JSON.stringify(checked.errors));
  return checked.value as T;
}

function examplePosting(): TransactionStatePosting {
  return example('TransactionStatePosting', 'TransactionStatePosting.debit-queued.json');
}

/** A journey of two records of one transaction, the second with an ESM-style id header. */
function journey(): { records: RawRecord[]; uetr: string; eventId: string } {
  const example = examplePosting();
  const uetr = example.tranInfo.tranUetr;
  // An event id of its own (the example's is its UETR's digits).
  const eventId = 'a1b2c3d4e5f6471829304b5c6d7e8f90';
  // A creation time of 24 characters: its Avro length, 48, is the byte "0", a hex digit right after the
  // message id's 32 digits. The copy reads strings, not bytes, so the digit cannot hide the id.
  const posting = {
    ...example,
    messageInfo: { messageIdentification: `EVT${eventId}`, creationDateTime: '2026-11-29T10:31:06.123Z' },
  };
  const second = { ...posting, stageVersion: posting.stageVersion + 1 };
  return {
    uetr,
    eventId,
    records: [
      { key: Buffer.from(uetr), value: encodeAvro('EventPosting', posting, wireHeader), headers: {} },
      {
        key: Buffer.from(uetr),
        value: encodeAvro('EventPosting', second, wireHeader),
        headers: { 'rp-posting-id': Buffer.from(`ESM${eventId}`) },
      },
    ],
  };
}

describe("copies of a journey's records", () => {
  it('finds the UETR and the event id, dashed or not, and nothing else', () => {
    const { records, uetr, eventId } = journey();
    expect(identifiersOf(records).sort()).toEqual([uetr.replace(/-/g, ''), eventId].sort());
  });

  it('gives a copy fresh identifiers, the same one wherever an old one stood, and leaves valid Avro', () => {
    const { records, uetr, eventId } = journey();
    let next = 0;
    const fresh = () => `00000000-0000-4000-8000-${(++next).toString(16).padStart(12, '0')}`;
    const copy = copyJourney(records, fresh);

    expect(identifiersOf(copy)).not.toContain(uetr.replace(/-/g, ''));
    expect(identifiersOf(copy)).not.toContain(eventId);
    expect(copy.map((record) => record.key.toString())).toEqual([
      '00000000-0000-4000-8000-000000000001',
      '00000000-0000-4000-8000-000000000001',
    ]);
    expect(copy.every((record) => record.value.subarray(0, 5).equals(wireHeader))).toBe(true);
    const [first, second] = copy.map(
      (record) => decodeAvro('EventPosting', record.value.subarray(5)) as TransactionStatePosting,
    );
    expect(first?.tranInfo.tranUetr).toBe('00000000-0000-4000-8000-000000000001');
    expect(first?.payload.transactionIdentifiers.uetr).toBe('00000000-0000-4000-8000-000000000001');
    expect(first?.messageInfo.messageIdentification).toBe('EVT00000000000040008000000000000002');
    expect(second?.stageVersion).toBe((first?.stageVersion ?? 0) + 1);
    expect(copy[1]?.headers['rp-posting-id']?.toString()).toBe('ESM00000000000040008000000000000002');
    // Everything else is as it was.
    const original = decodeAvro(
      'EventPosting',
      (records[0] as RawRecord).value.subarray(5),
    ) as TransactionStatePosting;
    expect(first?.payload.amounts).toEqual(original.payload.amounts);
    expect(first?.payload.creditorAccount).toEqual(original.payload.creditorAccount);
  });

  it('gives every copy identifiers of its own', () => {
    const { records } = journey();
    const a = identifiersOf(copyJourney(records));
    const b = identifiersOf(copyJourney(records));
    expect(a).toHaveLength(2);
    expect(b).toHaveLength(2);
    expect(a.filter((id) => b.includes(id))).toEqual([]);
  });
});

describe("copies of a journey's records on several topics", () => {
  it('renames an identifier alike on every topic, and each record stays its own message', () => {
    const debit = example<DirectDebit>('DirectDebit', 'DirectDebit.za-eft-on-us.json');
    const outcome = {
      ...example<DeliveryOutcome>('DeliveryOutcome', 'DeliveryOutcome.acknowledged.json'),
      operation: 'outboundDirectDebitResponse',
    } as DeliveryOutcome;
    const uetr = debit.transactionIdentifiers.uetr;
    expect(outcome.uetr).toBe(uetr);
    const traceId = '0af7651916cd43dd8448eb211c80319c';
    const accepted: RawRecord = {
      key: Buffer.from(uetr),
      value: encodeAvro('DirectDebit', debit, wireHeader),
      headers: { traceparent: Buffer.from(`00-${traceId}-b7ad6b7169203331-01`) },
    };
    const acknowledged: RawRecord = {
      key: Buffer.from(uetr),
      value: encodeAvro('DeliveryOutcome', outcome, wireHeader),
      headers: { 'rp-state': Buffer.from('DEBIT_ACCEPTANCE_DELIVERED') },
    };
    let next = 0;
    const fresh = () => `00000000-0000-4000-8000-${(++next).toString(16).padStart(12, '0')}`;
    const [debits = [], outcomes = []] = copyParts(
      [
        { message: 'DirectDebit', records: [accepted] },
        { message: 'DeliveryOutcome', records: [acknowledged] },
      ],
      fresh,
    );
    const debitCopy = debits[0] as RawRecord;
    const outcomeCopy = outcomes[0] as RawRecord;
    const copiedDebit = decodeAvro('DirectDebit', debitCopy.value.subarray(5));
    const copiedOutcome = decodeAvro('DeliveryOutcome', outcomeCopy.value.subarray(5));
    const renamed = '00000000-0000-4000-8000-000000000001';
    expect(copiedDebit.transactionIdentifiers.uetr).toBe(renamed);
    expect(copiedOutcome.uetr).toBe(renamed);
    expect(debitCopy.key.toString()).toBe(renamed);
    expect(outcomeCopy.key.toString()).toBe(renamed);
    // The trace id is renamed too (a second identifier); headers that hold none are kept.
    expect(debitCopy.headers.traceparent?.toString()).toBe(
      '00-00000000000040008000000000000002-b7ad6b7169203331-01',
    );
    expect(outcomeCopy.headers['rp-state']?.toString()).toBe('DEBIT_ACCEPTANCE_DELIVERED');
    expect(copiedDebit.amounts).toEqual(debit.amounts);
    expect(copiedOutcome.operation).toBe('outboundDirectDebitResponse');
    expect(identifiersOf(debits, 'DirectDebit')).not.toContain(uetr.replace(/-/g, ''));
  });
});
