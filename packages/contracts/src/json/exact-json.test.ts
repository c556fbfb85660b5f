import { describe, expect, it } from 'vitest';
import { isExactNumber, jsonNumber, parseJsonExact, stringifyJsonExact } from './exact-json.ts';

describe('exact JSON', () => {
  it("hands the reviver each number's source text (Node's JSON.parse context.source)", () => {
    const sources: string[] = [];
    JSON.parse('[0.1, 1234567890123.45, 1e3]', (_key, value, context?: { source?: string }) => {
      if (typeof value === 'number' && context?.source) sources.push(context.source);
      return value;
    });
    expect(sources).toEqual(['0.1', '1234567890123.45', '1e3']);
  });

  it('keeps numbers a float cannot hold as their source text', () => {
    const parsed = parseJsonExact(
      '{"a": 1234567890123.45, "b": 0.1, "c": 1.50, "d": 12345678901234567890, "e": 1e3}',
    ) as Record<string, unknown>;
    for (const [key, text] of Object.entries({
      a: '1234567890123.45',
      b: '0.1',
      c: '1.50',
      d: '12345678901234567890',
      e: '1e3',
    })) {
      expect(isExactNumber(parsed[key])).toBe(true);
      expect((parsed[key] as { rawJSON: string }).rawJSON).toBe(text);
    }
  });

  it('leaves safe integers and everything else as JSON.parse does', () => {
    expect(parseJsonExact('{"n": 42, "neg": -7, "s": "0.1", "t": true, "z": null, "l": [1, 2]}')).toEqual({
      n: 42,
      neg: -7,
      s: '0.1',
      t: true,
      z: null,
      l: [1, 2],
    });
    expect(() => parseJsonExact('{"a": 1,}')).toThrow(SyntaxError);
  });

  it('writes exact numbers back with exactly their digits', () => {
    const text = '{"value":9999999999999.99,"small":0.10,"big":12345678901234567890,"n":3}';
    expect(stringifyJsonExact(parseJsonExact(text))).toBe(text);
    expect(stringifyJsonExact({ value: jsonNumber('1500.00'), count: 2n })).toBe('{"value":1500,"count":2}');
    expect(() => stringifyJsonExact({ value: Number.NaN })).toThrow(RangeError);
  });
});
