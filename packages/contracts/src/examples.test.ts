import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { eventsApiVersion } from './api-version.ts';
import { avroType, decodeAvro, encodeAvro, recordConstants } from './avro/codec.ts';
import { toAvroValue } from './avro/values.ts';
import { transactionEventTypes } from './event-types.ts';
import type { MessageName } from './generated/types.ts';
import { messageNames } from './generated/types.ts';
import { jsonNumber, parseJsonExact, stringifyJsonExact } from './json/exact-json.ts';
import { toJson } from './json/message-json.ts';
import { validate } from './json/validate.ts';

const examplesDir = new URL('../../../avro/examples/', import.meta.url);
const examples = readdirSync(examplesDir)
  .filter((file) => file.endsWith('.json'))
  .sort()
  .map((file) => ({
    file,
    message: file.slice(0, file.indexOf('.')) as MessageName,
    text: readFileSync(new URL(file, examplesDir), 'utf8'),
  }));

function valid<N extends MessageName>(message: N, text: string) {
  const result = validate(message, parseJsonExact(text));
  if (!result.ok) throw new Error(`${message} is invalid: ${JSON.stringify(result.errors)}`);
  return result.value;
}

describe('examples under avro/examples', () => {
  it('name a message each and cover every message the spec and the brief list', () => {
    for (const { message } of examples) expect(messageNames).toContain(message);
    const covered = new Set(examples.map((example) => example.file.replace(/\.json$/, '')));
    for (const required of [
      'DirectDebit.za-eft-on-us',
      'PaymentStatusReport.accp',
      'PaymentStatusReport.rjct',
      'PaymentStatusReport.acsc',
      'CreditTransfer',
      'TransactionStatePosting.credit-auth-received',
      'EsmStatePosting',
      'TransactionStateChanged',
      'ReconciliationItem',
      'DeliveryOutcome.acknowledged',
      'Acknowledgement',
      'TransactionStatus',
      'ProblemDetails.validation-failed',
    ]) {
      expect(covered).toContain(required);
    }
  });

  it.each(examples)('$file validates and round-trips through Avro unchanged', ({ message, text }) => {
    const value = valid(message, text);
    const decoded = decodeAvro(message, encodeAvro(message, value));
    expect(decoded).toEqual(value);
    // And back out as JSON: the same message again.
    expect(valid(message, toJson(message, decoded))).toEqual(value);
  });

  it.each(examples)(
    '$file encodes to the bytes avsc writes, after a prefix when given one',
    ({ message, text }) => {
      const value = valid(message, text);
      const type = avroType(message);
      const expected = type.toBuffer(toAvroValue(type, value, recordConstants()));
      expect(encodeAvro(message, value).equals(expected)).toBe(true);
      const prefix = Uint8Array.of(0, 0, 0, 0, 42);
      const framed = encodeAvro(message, value, prefix);
      expect([...framed.subarray(0, 5)]).toEqual([...prefix]);
      expect(framed.subarray(5).equals(expected)).toBe(true);
    },
  );

  it('encodes messages larger than its scratch buffer, and smaller ones after them', () => {
    const debit = valid(
      'DirectDebit',
      examples.find(({ file }) => file === 'DirectDebit.za-eft-on-us.json')?.text ?? '',
    );
    const sized = (length: number) => ({
      ...debit,
      creditor: { ...debit.creditor, name: 'x'.repeat(length) },
    });
    // Past the 16 KiB it starts with, past the 1 MiB it keeps, then the example again.
    for (const value of [sized(40_000), sized(2_000_000), debit, sized(40_000)]) {
      const bytes = encodeAvro('DirectDebit', value, Uint8Array.of(9));
      expect(bytes[0]).toBe(9);
      expect(decodeAvro('DirectDebit', bytes.subarray(1))).toEqual(value);
    }
  });

  it.each(examples.filter(({ message }) => message.endsWith('StatePosting')))(
    '$file is an EventPosting too (the rp.events.v1 value)',
    ({ text }) => {
      const value = valid('EventPosting', text);
      expect(decodeAvro('EventPosting', encodeAvro('EventPosting', value))).toEqual(value);
    },
  );
});

describe('posting examples', () => {
  it('carry the events API version and the states the catalogue maps their type to', () => {
    for (const { message, text } of examples.filter((example) => example.message.endsWith('StatePosting'))) {
      const posting = valid('EventPosting', text);
      expect(posting.apiVersion).toBe(eventsApiVersion);
      if (posting.class === 'TRANSACTION_STATE') {
        expect(posting.name).toBe(`TRANSACTION_STATE_${posting.type}`);
        if (posting.state && posting.type !== 'UNKNOWN') {
          expect(posting.state).toEqual({
            transactionState: transactionEventTypes[posting.type].esm.transactionState,
            financialTransactionState: transactionEventTypes[posting.type].esm.financialTransactionState,
          });
        }
      } else {
        expect(message).toBe('EsmStatePosting');
      }
    }
  });
});

describe('amounts from JSON through Avro and back', () => {
  const debitText = readFileSync(new URL('DirectDebit.za-eft-on-us.json', examplesDir), 'utf8');

  /** The debit example's JSON text with its settlement amount written as `amount` (a JSON number token). */
  const withAmount = (amount: string) => {
    const debit = parseJsonExact(debitText) as { amounts: { bankSettlementAmount: { value: unknown } } };
    debit.amounts.bankSettlementAmount.value = jsonNumber(amount);
    return stringifyJsonExact(debit);
  };

  it.each(['9999999999999.99', '1234567890123.45', '0.1', '0.01', '5000000'])(
    'keeps the digits of %s',
    (amount) => {
      const text = withAmount(amount);
      expect(text).toContain(`"bankSettlementAmount":{"value":${amount},`);
      const debit = valid('DirectDebit', text);
      expect(debit.amounts.bankSettlementAmount.value).toBe(amount);
      const out = toJson('DirectDebit', decodeAvro('DirectDebit', encodeAvro('DirectDebit', debit)));
      expect(out).toContain(`"bankSettlementAmount":{"value":${amount},"currency":"ZAR"}`);
      expect(stringifyJsonExact(parseJsonExact(out))).toBe(out);
    },
  );

  it('refuses more than 2 decimal places for ZAR', () => {
    const result = validate('DirectDebit', parseJsonExact(withAmount('1500.001')));
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.errors).toEqual([
        {
          pointer: '/amounts/bankSettlementAmount/value',
          detail: 'must have at most 2 decimal places for ZAR',
        },
      ]);
    }
  });
});
