import { ACCOUNT_POSITIONS, type Weights } from './weights.ts';

/** The two moduli CDV parameter rows use. */
export type Modulus = 10 | 11;

/** Largest account value an 11-digit account can hold; every account value fits a double exactly. */
export const MAX_ACCOUNT_VALUE = 99_999_999_999;

/**
 * The account's numeric value, or -1 when it is not 1 to 11 ASCII digits. Leading zeros are allowed
 * (they are what right-justification adds anyway). Runs on every verification, so it walks the string
 * once without building anything.
 */
export function accountValue(account: string): number {
  const length = account.length;
  if (length === 0 || length > ACCOUNT_POSITIONS) return -1;
  let value = 0;
  for (let index = 0; index < length; index++) {
    const digit = account.charCodeAt(index) - 48;
    if (digit < 0 || digit > 9) return -1;
    value = value * 10 + digit;
  }
  return value;
}

/**
 * Sum of digit x weight over the account right-justified and zero-filled to 11 positions. The zero fill
 * contributes nothing, so only the supplied digits are visited: the last digit meets the last weight.
 * Precondition: `account` passed `accountValue` (1 to 11 digits).
 */
export function weightedSum(account: string, weights: Weights): number {
  const offset = ACCOUNT_POSITIONS - account.length;
  let sum = 0;
  for (let index = 0; index < account.length; index++) {
    sum += (account.charCodeAt(index) - 48) * weights[offset + index]!;
  }
  return sum;
}

/** The standard CDV test: (weighted sum + fudge factor) mod modulus is zero. */
export function passesModulus(account: string, weights: Weights, modulus: Modulus, fudge: number): boolean {
  return (weightedSum(account, weights) + fudge) % modulus === 0;
}

/**
 * The smallest digit that, appended to a 10-digit prefix, makes the account pass the standard test;
 * `undefined` when none does (a modulus 11 row needing a "digit" of 10, or a last weight sharing a factor
 * with the modulus). When the last weight is coprime to the modulus at most one digit passes. Useful for generating test accounts and for operators checking a table row by hand.
 */
export function checkDigitFor(
  prefix: string,
  weights: Weights,
  modulus: Modulus,
  fudge: number,
): number | undefined {
  if (prefix.length !== ACCOUNT_POSITIONS - 1 || accountValue(prefix) < 0) {
    throw new RangeError('prefix must be exactly 10 digits');
  }
  for (let digit = 0; digit <= 9; digit++) {
    if (passesModulus(prefix + String(digit), weights, modulus, fudge)) return digit;
  }
  return undefined;
}
