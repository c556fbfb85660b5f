import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { DirectDebit } from '../generated/types.ts';
import { parseJsonExact } from './exact-json.ts';
import { fromStoredJson, toJson } from './message-json.ts';
import { validate } from './validate.ts';

const example = (() => {
  const text = readFileSync(
    new URL('../../../../avro/examples/DirectDebit.za-eft-on-us.json', import.meta.url),
    'utf8',
  );
  const result = validate('DirectDebit', parseJsonExact(text));
  if (!result.ok) throw new Error(JSON.stringify(result.errors));
  return result.value;
})();

describe('a message read back from the JSON another service stored', () => {
  it('is the message toJson wrote, amounts exact', () => {
    expect(fromStoredJson('DirectDebit', toJson('DirectDebit', example))).toEqual(example);
  });

  it('reads amounts written as decimal strings (a plain JSON.stringify of the message) exactly', () => {
    const stored = JSON.stringify(example);
    expect(stored).toContain(`"value":"${example.amounts.bankSettlementAmount.value}"`);
    const read = fromStoredJson('DirectDebit', stored) as DirectDebit;
    expect(read.amounts.bankSettlementAmount.value).toBe(example.amounts.bankSettlementAmount.value);
    expect(read).toEqual(example);
  });

  it('is undefined for text that is not JSON, or not the message', () => {
    expect(fromStoredJson('DirectDebit', '{"amounts":')).toBeUndefined();
    expect(fromStoredJson('DirectDebit', '{"schema":"DirectDebit"}')).toBeUndefined();
    expect(fromStoredJson('CreditTransfer', toJson('DirectDebit', example))).toBeUndefined();
  });
});
