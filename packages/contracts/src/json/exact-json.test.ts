import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { isExactNumber, jsonNumber, parseJsonExact, stringifyJsonExact } from './exact-json.ts';

/** The definition parseJsonExact keeps to: JSON.parse whose reviver reads each number's source text. */
function byReviver(text: string): unknown {
  const json = JSON as unknown as {
    parse(
      text: string,
      reviver: (key: string, value: unknown, context: { source?: string }) => unknown,
    ): unknown;
    rawJSON(text: string): unknown;
  };
  return json.parse(text, (_key, value, context) => {
    if (typeof value !== 'number') return value;
    const source = context.source ?? String(value);
    if (/^-?(0|[1-9][0-9]{0,15})$/.test(source) && Number.isSafeInteger(value)) return value;
    return json.rawJSON(source);
  });
}

function outcome(run: () => unknown): { value: string } | { error: string } {
  try {
    // Exact numbers compare by their text: stringified, they are their tokens.
    return { value: stringifyJsonExact(run()) ?? 'undefined' };
  } catch (error) {
    return { error: `${(error as Error).name}: ${(error as Error).message}` };
  }
}

/** A seeded generator, so a failure can be replayed. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return state / 2_147_483_648;
  };
}

const numberTokens = [
  '0',
  '-0',
  '7',
  '-42',
  '9007199254740991',
  '9007199254740992',
  '-9007199254740993',
  '12345678901234567890',
  '0.1',
  '1.50',
  '-2.25',
  '1500.00',
  '1234567890123.45',
  '1e3',
  '1E-7',
  '-1.5e+10',
  '0.0',
  '10.010',
];
const stringTokens = [
  '"x"',
  '"0.1"',
  '"a\\\\"',
  '"\\u0000"',
  '"\\\\u0000"',
  '"-1.5 \\u0041"',
  '"q\\"uote"',
  '"\\u00e9"',
  '""',
  '"\\\\"',
  '"1e5"',
];
const keys = ['"a"', '"amount"', '"__proto__"', '"1"', '"0.5"', '"n\\"k"'];

function generate(next: () => number, depth: number): string {
  const pick = <T>(list: readonly T[]) => list[Math.floor(next() * list.length)] as T;
  const space = () => pick(['', ' ', '\n  ']);
  const roll = next();
  if (depth > 3 || roll < 0.35) return pick(numberTokens);
  if (roll < 0.55) return pick(stringTokens);
  if (roll < 0.6) return pick(['true', 'false', 'null']);
  const size = Math.floor(next() * 4);
  if (roll < 0.8) {
    const items = Array.from({ length: size }, () => space() + generate(next, depth + 1) + space());
    return `[${items.join(',')}]`;
  }
  const members = Array.from(
    { length: size },
    () => `${space()}${pick(keys)}${space()}:${generate(next, depth + 1)}`,
  );
  return `{${members.join(',')}}`;
}

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

  it('parses as the reviver does, numbers, strings and escapes in any place, valid or not', () => {
    const next = random(20261126);
    let refused = 0;
    for (let round = 0; round < 3_000; round += 1) {
      const text = generate(next, 0);
      expect(
        outcome(() => parseJsonExact(text)),
        text,
      ).toEqual(outcome(() => byReviver(text)));
      // One character dropped, doubled or replaced: mostly invalid JSON, whose error must be the same.
      const at = Math.floor(next() * text.length);
      const broken = [
        text.slice(0, at) + text.slice(at + 1),
        text.slice(0, at) + text.charAt(at) + text.slice(at),
        `${text.slice(0, at)}${['.', '-', 'e', '0', '"', '\\', '}', 'x'][round % 8]}${text.slice(at + 1)}`,
      ];
      for (const variant of broken) {
        const expected = outcome(() => byReviver(variant));
        if ('error' in expected) refused += 1;
        expect(
          outcome(() => parseJsonExact(variant)),
          variant,
        ).toEqual(expected);
      }
    }
    expect(refused).toBeGreaterThan(1_000);
  });

  it('parses every example message as the reviver does', () => {
    const dir = new URL('../../../../avro/examples/', import.meta.url);
    for (const file of readdirSync(dir).filter((name) => name.endsWith('.json'))) {
      const text = readFileSync(new URL(file, dir), 'utf8');
      expect(outcome(() => parseJsonExact(text))).toEqual(outcome(() => byReviver(text)));
    }
  });

  it('keeps a __proto__ member an own member holding its exact number', () => {
    const parsed = parseJsonExact('{"__proto__": 0.1, "a": [2.5]}') as Record<string, unknown>;
    expect(Object.getPrototypeOf(parsed)).toBe(Object.prototype);
    expect(Object.hasOwn(parsed, '__proto__')).toBe(true);
    expect(stringifyJsonExact(parsed)).toBe('{"__proto__":0.1,"a":[2.5]}');
  });

  it('skips strings by their closing quote, escaped quotes and backslash runs included', () => {
    const texts = [
      '{"s": "x\\" 0.5", "n": 0.25}',
      '{"s": "a\\\\", "n": 1.5, "t": "\\\\\\" 2.5 \\\\"}',
      '["\\"", 0.1, "\\\\\\\\", 0.2]',
      '{"u": "\\u0041 0.5", "n": 1e3}',
      '{"open": "0.5',
    ];
    for (const text of texts) {
      expect(
        outcome(() => parseJsonExact(text)),
        text,
      ).toEqual(outcome(() => byReviver(text)));
    }
    expect(stringifyJsonExact(parseJsonExact('{"s": "x\\" 0.5", "n": 0.25}'))).toBe(
      '{"s":"x\\" 0.5","n":0.25}',
    );
  });

  it('puts back every exact number when a repeated member drops one', () => {
    const parsed = parseJsonExact('{"a": 0.1, "a": 0.2, "b": [1.50], "c": {"d": 2.25}}');
    expect(stringifyJsonExact(parsed)).toBe('{"a":0.2,"b":[1.50],"c":{"d":2.25}}');
  });

  it('writes what the replacer would, bigints, NaN, toJSON, cycles and deep values included', () => {
    const raw = (JSON as unknown as { rawJSON(text: string): unknown }).rawJSON;
    const reference = (value: unknown, indent?: number) =>
      JSON.stringify(
        value,
        (_key, item: unknown) => {
          if (typeof item === 'bigint') return raw(item.toString());
          if (typeof item === 'number' && !Number.isFinite(item))
            throw new RangeError(`JSON has no representation for ${item}`);
          return item;
        },
        indent,
      );
    const attempt = (write: () => string | undefined) => {
      try {
        return { text: write() };
      } catch (error) {
        return { error: `${(error as Error).name}: ${(error as Error).message}` };
      }
    };
    const cycle: Record<string, unknown> = { a: 1 };
    cycle.self = cycle;
    let deep: unknown = 0.5;
    for (let level = 0; level < 40; level += 1) deep = { level, next: [deep] };
    const cases: unknown[] = [
      { a: 1, b: [true, null, 'x', jsonNumber('1.50')], c: { d: -0 } },
      { big: 12345678901234567890n, list: [1n] },
      { n: Number.NaN },
      [Number.POSITIVE_INFINITY],
      { note: 'null in a string', list: [null, jsonNumber('0.10')] },
      { nested: [{ deep: [Number.NEGATIVE_INFINITY] }] },
      { when: new Date('2026-11-26T00:00:00Z') },
      { custom: { toJSON: () => Number.NaN } },
      { skipped: undefined, fn: () => 1, sym: Symbol('s') },
      cycle,
      deep,
      'text',
      7,
    ];
    for (const value of cases) {
      for (const indent of [undefined, 2]) {
        const expected = attempt(() => reference(value, indent));
        // The reference's undefined (a value with no JSON) is refused with a TypeError.
        const refusal = { error: 'TypeError: value has no JSON representation' };
        expect(attempt(() => stringifyJsonExact(value, indent))).toEqual(
          expected.text === undefined && !('error' in expected) ? refusal : expected,
        );
      }
    }
  });

  it('writes exact numbers back with exactly their digits', () => {
    const text = '{"value":9999999999999.99,"small":0.10,"big":12345678901234567890,"n":3}';
    expect(stringifyJsonExact(parseJsonExact(text))).toBe(text);
    expect(stringifyJsonExact({ value: jsonNumber('1500.00'), count: 2n })).toBe('{"value":1500,"count":2}');
    expect(() => stringifyJsonExact({ value: Number.NaN })).toThrow(RangeError);
  });
});
