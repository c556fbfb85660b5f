import { normalizeDecimal } from '../money/decimal.ts';

/**
 * A JSON number kept as its source text, so that it never passes through a binary float. It is the
 * object JSON.rawJSON makes: JSON.stringify writes its text back verbatim.
 */
export interface ExactNumber {
  readonly rawJSON: string;
}

interface JsonWithRaw {
  rawJSON(text: string): ExactNumber;
  isRawJSON(value: unknown): value is ExactNumber;
  parse(
    text: string,
    reviver: (key: string, value: unknown, context: { source?: string }) => unknown,
  ): unknown;
}

// The lib of the TypeScript target predates JSON.rawJSON and the reviver's context argument (both in
// Node 24); this is the slice of their signatures used here.
const json = JSON as unknown as JsonWithRaw;

const safeIntegerLiteral = /^-?(0|[1-9][0-9]{0,15})$/;

/**
 * JSON.parse, except that a number that a JavaScript number cannot hold exactly (one with a fraction or
 * an exponent, or an integer beyond 2^53 - 1) is returned as an ExactNumber carrying its source text.
 * Integers that fit stay numbers. 1234567890123.45 and 0.1 therefore reach the validator as the exact
 * text the sender wrote.
 */
export function parseJsonExact(text: string): unknown {
  return json.parse(text, (_key, value, context) => {
    if (typeof value !== 'number') return value;
    const source = context.source ?? String(value);
    if (safeIntegerLiteral.test(source) && Number.isSafeInteger(value)) return value;
    return json.rawJSON(source);
  });
}

/** Whether `value` is an exact number from parseJsonExact or jsonNumber. */
export function isExactNumber(value: unknown): value is ExactNumber {
  return json.isRawJSON(value);
}

/** A JSON number token for a decimal string, written exactly by stringifyJsonExact: jsonNumber('0.10'). */
export function jsonNumber(decimal: string): ExactNumber {
  return json.rawJSON(normalizeDecimal(decimal));
}

/**
 * JSON.stringify that writes ExactNumbers as their exact number tokens and bigints as integer tokens,
 * and refuses NaN and the infinities instead of writing null.
 */
export function stringifyJsonExact(value: unknown, indent?: number): string {
  const text = JSON.stringify(
    value,
    (_key, item: unknown) => {
      if (typeof item === 'bigint') return json.rawJSON(item.toString());
      if (typeof item === 'number' && !Number.isFinite(item)) {
        throw new RangeError(`JSON has no representation for ${item}`);
      }
      return item;
    },
    indent,
  );
  if (text === undefined) throw new TypeError('value has no JSON representation');
  return text;
}
