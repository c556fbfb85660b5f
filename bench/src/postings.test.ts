import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  decodeAvro,
  encodeAvro,
  parseJsonExact,
  type TransactionStatePosting,
  validate,
} from '@rp/contracts';
import { describe, expect, it } from 'vitest';
import { copyJourney, identifiersOf, type RawRecord } from './postings.ts';

/** The schema registry's wire-format header of schema id 7. */
const wireHeader = Buffer.from([0, 0, 0, 0, 7]);
const root = fileURLToPath(new URL('../..', import.meta.url));

function examplePosting(): TransactionStatePosting {
  const text = readFileSync(
    join(root, 'avro', 'examples', 'TransactionStatePosting.debit-queued.json'),
    'utf8',
  );
  const checked = validate('TransactionStatePosting', parseJsonExact(text));
  if (!checked.ok) throw new Error(JSON.stringify(checked.errors));
  return checked.value as TransactionStatePosting;
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
