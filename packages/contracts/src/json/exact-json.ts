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
  const tokens = exactNumberTokens(text);
  if (tokens === undefined) return revivedParse(text);
  if (tokens.length === 0) {
    try {
      return JSON.parse(text);
    } catch {
      return revivedParse(text);
    }
  }
  // Each number a float cannot hold becomes a placeholder string ("\u0000" and its index): parsed
  // without a reviver (five times faster), then put back as the exact number.
  let rewritten = '';
  let from = 0;
  tokens.forEach((token, index) => {
    rewritten += `${text.slice(from, token.start)}"\\u0000${index}"`;
    from = token.end;
  });
  rewritten += text.slice(from);
  let parsed: unknown;
  try {
    parsed = JSON.parse(rewritten);
  } catch {
    // The error names a place in the text the sender wrote, not in the rewritten one.
    return revivedParse(text);
  }
  const values = tokens.map((token) => json.rawJSON(text.slice(token.start, token.end)));
  // A text that is one number alone parses to its placeholder.
  if (typeof parsed === 'string') return values[0];
  restore(parsed, values, values.length);
  return parsed;
}

/** JSON.parse with a reviver that reads each number's source text: the reference, and the error path. */
function revivedParse(text: string): unknown {
  return json.parse(text, (_key, value, context) => {
    if (typeof value !== 'number') return value;
    const source = context.source ?? String(value);
    if (safeIntegerLiteral.test(source) && Number.isSafeInteger(value)) return value;
    return json.rawJSON(source);
  });
}

const jsonNumberLiteral = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$/;

/**
 * Where the number tokens that a JavaScript number cannot hold exactly are, outside strings. Undefined
 * when the text is not for the fast path: a token that is not a JSON number (the reviver's parse throws
 * the right error), or a `\u0000` escape anywhere, which could spell a placeholder.
 *
 * Strings are skipped by searching for their closing quote (`indexOf`, native), not a character at a
 * time: in a message most of the text is strings, and the characters between them are few.
 */
function exactNumberTokens(text: string): { start: number; end: number }[] | undefined {
  if (text.includes('\\u0000')) return undefined;
  const tokens: { start: number; end: number }[] = [];
  const length = text.length;
  let index = 0;
  while (index < length) {
    const code = text.charCodeAt(index);
    if (code === 0x22) {
      index = closingQuote(text, index + 1) + 1;
    } else if (code === 0x2d || (code >= 0x30 && code <= 0x39)) {
      const start = index;
      index += 1;
      while (index < length) {
        const next = text.charCodeAt(index);
        if (
          (next >= 0x30 && next <= 0x39) ||
          next === 0x2e ||
          next === 0x65 ||
          next === 0x45 ||
          next === 0x2b ||
          next === 0x2d
        )
          index += 1;
        else break;
      }
      const token = text.slice(start, index);
      if (!jsonNumberLiteral.test(token)) return undefined;
      if (!(safeIntegerLiteral.test(token) && Number.isSafeInteger(Number(token))))
        tokens.push({ start, end: index });
    } else index += 1;
  }
  return tokens;
}

/**
 * The index of the quote that closes the string whose text starts at `from` (after its opening quote):
 * the first quote not escaped, that is, not behind an odd run of backslashes. The text's length when the
 * string is not closed.
 */
function closingQuote(text: string, from: number): number {
  let quote = text.indexOf('"', from);
  while (quote !== -1) {
    let backslashes = 0;
    while (quote - backslashes - 1 >= from && text.charCodeAt(quote - backslashes - 1) === 0x5c)
      backslashes += 1;
    if (backslashes % 2 === 0) return quote;
    quote = text.indexOf('"', quote + 1);
  }
  return text.length;
}

/**
 * Puts the exact numbers back in place of their placeholders, and stops once every one is back (a
 * member repeated in the text may have dropped some: then the whole tree is walked). A member named
 * `__proto__` is an own data member of what JSON.parse made, so assigning it sets the member, not the
 * prototype. Returns how many are still to be put back.
 */
function restore(node: unknown, values: readonly ExactNumber[], left: number): number {
  if (typeof node !== 'object' || node === null) return left;
  let remaining = left;
  if (Array.isArray(node)) {
    for (let index = 0; index < node.length && remaining > 0; index += 1) {
      const item = node[index];
      if (typeof item === 'string') {
        if (item.charCodeAt(0) === 0) {
          node[index] = values[Number(item.slice(1))];
          remaining -= 1;
        }
      } else remaining = restore(item, values, remaining);
    }
    return remaining;
  }
  const object = node as Record<string, unknown>;
  for (const key of Object.keys(object)) {
    if (remaining === 0) break;
    const item = object[key];
    if (typeof item === 'string') {
      if (item.charCodeAt(0) === 0) {
        object[key] = values[Number(item.slice(1))];
        remaining -= 1;
      }
    } else remaining = restore(item, values, remaining);
  }
  return remaining;
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
  // Written without the replacer first (JSON.stringify is twice as fast without one), and again with it
  // only where the two may differ: without it JSON.stringify throws on a bigint (and on a cycle, which
  // the replacer's way reports too) and writes NaN and the infinities as null, so a text without `null`
  // is the replacer's text. A value written twice has its toJSON methods and getters run twice.
  let text: string | undefined;
  try {
    text = JSON.stringify(value, undefined, indent);
  } catch {
    text = undefined;
  }
  if (text === undefined || text.includes('null')) text = JSON.stringify(value, exactReplacer, indent);
  if (text === undefined) throw new TypeError('value has no JSON representation');
  return text;
}

function exactReplacer(_key: string, item: unknown): unknown {
  if (typeof item === 'bigint') return json.rawJSON(item.toString());
  if (typeof item === 'number' && !Number.isFinite(item)) {
    throw new RangeError(`JSON has no representation for ${item}`);
  }
  return item;
}
