/** Number of digit positions CDV works on: accounts are right-justified and zero-filled to this length. */
export const ACCOUNT_POSITIONS = 11;

/** Largest weight a weight character can express (`Z`). */
export const MAX_WEIGHT = 35;

/**
 * One weight per digit position, left to right over the zero-filled 11-digit account. Parsed once when a
 * table loads, so verification indexes an integer array instead of decoding characters per call. Treat as
 * read-only: the arrays are shared by every verification.
 */
export type Weights = Uint8Array;

/** The value of one weight character: `0`-`9` are 0-9, `A`-`Z` are 10-35; anything else is `undefined`. */
export function weightValue(character: string): number | undefined {
  if (character.length !== 1) return undefined;
  const code = character.charCodeAt(0);
  if (code >= 48 && code <= 57) return code - 48;
  if (code >= 65 && code <= 90) return code - 55;
  return undefined;
}

/** The weight character for a value 0-35 (inverse of `weightValue`). */
export function weightCharacter(value: number): string {
  if (!Number.isInteger(value) || value < 0 || value > MAX_WEIGHT) {
    throw new RangeError(`weight ${value} is outside 0..${MAX_WEIGHT}`);
  }
  return value < 10 ? String.fromCharCode(48 + value) : String.fromCharCode(55 + value);
}

export type WeightParseResult =
  | { readonly ok: true; readonly weights: Weights }
  | { readonly ok: false; readonly problem: string };

/** Parses an 11-character weight string such as `0000A987654`. Lower-case letters are rejected. */
export function parseWeights(text: string): WeightParseResult {
  if (text.length !== ACCOUNT_POSITIONS) {
    return {
      ok: false,
      problem: `weights must have ${ACCOUNT_POSITIONS} characters (one per digit), got ${text.length}`,
    };
  }
  const weights = new Uint8Array(ACCOUNT_POSITIONS);
  for (let position = 0; position < ACCOUNT_POSITIONS; position++) {
    const character = text.charAt(position);
    const value = weightValue(character);
    if (value === undefined) {
      return {
        ok: false,
        problem: `weight character '${character}' at position ${position + 1} is not 0-9 or A-Z`,
      };
    }
    weights[position] = value;
  }
  return { ok: true, weights };
}

/** Weights as their 11-character string (inverse of `parseWeights`). */
export function formatWeights(weights: ArrayLike<number>): string {
  let text = '';
  for (let position = 0; position < weights.length; position++) text += weightCharacter(weights[position]!);
  return text;
}
