import { readFileSync } from 'node:fs';
import { parseJsonExact, validateDirectDebit } from '@rp/contracts';
import { describe, expect, test } from 'vitest';
import { canonicalJson, idempotencyKey, payloadHash, producedMarkerKey, sortNames } from './idempotency.ts';

const exampleText = readFileSync(
  new URL('../../../avro/examples/DirectDebit.za-eft-on-us.json', import.meta.url),
  'utf8',
);

function validated(text: string): unknown {
  const result = validateDirectDebit(parseJsonExact(text));
  if (!result.ok) throw new Error(JSON.stringify(result.errors));
  return result.value;
}

describe('payload hash', () => {
  test('ignores member order, white space and the spelling of amounts', () => {
    const original = validated(exampleText);
    const reordered = JSON.parse(exampleText) as Record<string, unknown>;
    const shuffled = Object.fromEntries(Object.entries(reordered).reverse());
    const respelled = JSON.stringify(shuffled).replaceAll('"value":1500', '"value":1500.00');
    expect(respelled).toContain('1500.00');
    expect(payloadHash(validated(respelled))).toBe(payloadHash(original));
  });

  test('changes with any member value', () => {
    const original = payloadHash(validated(exampleText));
    const otherAmount = exampleText.replace('"value": 1500.0,', '"value": 1500.01,');
    expect(otherAmount).not.toBe(exampleText);
    expect(payloadHash(validated(otherAmount))).not.toBe(original);
    const otherDate = exampleText.replace('"settlementDate": "2025-03-17"', '"settlementDate": "2025-03-18"');
    expect(payloadHash(validated(otherDate))).not.toBe(original);
  });

  test('canonical JSON sorts members at every depth and keeps array order', () => {
    expect(canonicalJson({ b: [{ y: 1, x: 2 }, 3], a: 'z' })).toBe('{"a":"z","b":[{"x":2,"y":1},3]}');
  });

  test("member names sort as the built-in sort sorts them, few or many (a stored claim's hash stays valid)", () => {
    const awkward = ['b', 'a', '10', '2', 'é', 'Z', '_', 'aa', 'a\u0000', '\u{1F600}', '\uFFFF', ''];
    expect(sortNames([...awkward])).toEqual([...awkward].sort());
    const many = Array.from({ length: 80 }, (_, index) => `m${(index * 37) % 80}`);
    expect(sortNames([...many])).toEqual([...many].sort());
    // The same message with its members in either order: one canonical text.
    const forward = Object.fromEntries(awkward.map((name, index) => [name, index]));
    const backward = Object.fromEntries([...awkward].reverse().map((name) => [name, forward[name]]));
    expect(canonicalJson(backward)).toBe(canonicalJson(forward));
    expect(canonicalJson(forward)).toBe(
      JSON.stringify(Object.fromEntries([...awkward].sort().map((name) => [name, forward[name]]))),
    );
  });
});

describe('keys', () => {
  test('scope the message identification by the sending bank, and keep markers apart', () => {
    expect(idempotencyKey('250655', 'M1')).toBe('250655:M1');
    expect(idempotencyKey('250655', 'M1')).not.toBe(idempotencyKey('632005', 'M1'));
    expect(producedMarkerKey('250655:M1')).toBe('produced:250655:M1');
  });
});
