import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { accountValue, checkDigitFor, type Modulus, passesModulus, weightedSum } from './arithmetic.ts';
import { formatWeights, parseWeights, type Weights } from './weights.ts';

function gcd(a: number, b: number): number {
  return b === 0 ? a : gcd(b, a % b);
}

/** The textbook definition, written independently of the engine: pad, split, multiply, add. */
function referenceWeightedSum(account: string, weightText: string): number {
  const digits = account.padStart(11, '0').split('').map(Number);
  const weights = weightText.split('').map((character) => Number.parseInt(character, 36));
  return digits.reduce((sum, digit, position) => sum + digit * weights[position]!, 0);
}

function weightsOf(values: readonly number[]): Weights {
  const parsed = parseWeights(formatWeights(values));
  if (!parsed.ok) throw new Error(parsed.problem);
  return parsed.weights;
}

const weightValueArb = fc.integer({ min: 0, max: 35 });
const modulusArb = fc.constantFrom<Modulus>(10, 11);
const accountArb = fc.stringMatching(/^\d{1,11}$/);
const prefixArb = fc.stringMatching(/^\d{10}$/);

/** A row whose last weight is coprime to its modulus, so the check digit determines the remainder. */
const rowArb = modulusArb.chain((modulus) =>
  fc.record({
    modulus: fc.constant(modulus),
    fudge: fc.integer({ min: 0, max: 999 }),
    weights: fc.tuple(
      fc.array(weightValueArb, { minLength: 10, maxLength: 10 }),
      weightValueArb.filter((w) => gcd(w, modulus) === 1),
    ),
  }),
);

describe('accountValue', () => {
  it('reads 1 to 11 digits and refuses everything else', () => {
    expect(accountValue('0')).toBe(0);
    expect(accountValue('00000001234')).toBe(1234);
    expect(accountValue('99999999999')).toBe(99_999_999_999);
    for (const bad of ['', '123456789012', '12 34', '12a4', '-123', '1.5', '１２３']) {
      expect(accountValue(bad)).toBe(-1);
    }
  });
});

describe('weightedSum', () => {
  it('computes the sum by hand for a known row', () => {
    // 1234567899 zero-filled: 0 1 2 3 4 5 6 7 8 9 9; weights 0 0 9 8 7 6 5 4 3 2 1
    // 0 + 0 + 18 + 24 + 28 + 30 + 30 + 28 + 24 + 18 + 9 = 209 = 11 x 19
    expect(weightedSum('1234567899', parseWeightsOrThrow('00987654321'))).toBe(209);
  });

  it('agrees with a straightforward reference implementation', () => {
    fc.assert(
      fc.property(
        accountArb,
        fc.array(weightValueArb, { minLength: 11, maxLength: 11 }),
        (account, values) => {
          const text = formatWeights(values);
          expect(weightedSum(account, weightsOf(values))).toBe(referenceWeightedSum(account, text));
        },
      ),
    );
  });

  it('does not change when the account is right-justified with more zeros', () => {
    fc.assert(
      fc.property(
        accountArb,
        fc.integer({ min: 0, max: 11 }),
        fc.array(weightValueArb, { minLength: 11, maxLength: 11 }),
        (account, width, values) => {
          const weights = weightsOf(values);
          const padded = account.padStart(Math.max(width, account.length), '0');
          expect(weightedSum(padded, weights)).toBe(weightedSum(account, weights));
          expect(accountValue(padded)).toBe(accountValue(account));
        },
      ),
    );
  });
});

describe('check digits', () => {
  it('exactly one digit completes any 10-digit prefix, unless modulus 11 demands a 10', () => {
    fc.assert(
      fc.property(rowArb, prefixArb, ({ modulus, fudge, weights: [head, last] }, prefix) => {
        const weights = weightsOf([...head, last]);
        const passing = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9].filter((digit) =>
          passesModulus(prefix + String(digit), weights, modulus, fudge),
        );
        // The value x with (sum of prefix + last weight * x + fudge) = 0 mod modulus, found by search.
        const partial = weightedSum(`${prefix}0`, weights) + fudge;
        const needed = [...Array(modulus).keys()].find((x) => (partial + last * x) % modulus === 0)!;
        if (needed <= 9) {
          expect(passing).toEqual([needed]);
          expect(checkDigitFor(prefix, weights, modulus, fudge)).toBe(needed);
        } else {
          expect(modulus).toBe(11);
          expect(passing).toEqual([]);
          expect(checkDigitFor(prefix, weights, modulus, fudge)).toBeUndefined();
        }
      }),
    );
  });

  it('changing any digit whose weight is coprime to the modulus makes a passing account fail', () => {
    fc.assert(
      fc.property(rowArb, prefixArb, ({ modulus, fudge, weights: [head, last] }, prefix) => {
        const weights = weightsOf([...head, last]);
        const checkDigit = checkDigitFor(prefix, weights, modulus, fudge);
        fc.pre(checkDigit !== undefined);
        const account = prefix + String(checkDigit);
        expect(passesModulus(account, weights, modulus, fudge)).toBe(true);
        for (let position = 0; position < 11; position++) {
          if (gcd(weights[position]!, modulus) !== 1) continue;
          for (let digit = 0; digit <= 9; digit++) {
            if (String(digit) === account[position]) continue;
            const changed = account.slice(0, position) + String(digit) + account.slice(position + 1);
            expect(passesModulus(changed, weights, modulus, fudge)).toBe(false);
          }
        }
      }),
    );
  });

  it('refuses a prefix that is not 10 digits', () => {
    const weights = parseWeightsOrThrow('00987654321');
    expect(() => checkDigitFor('123', weights, 11, 0)).toThrow(RangeError);
    expect(() => checkDigitFor('12345678x0', weights, 11, 0)).toThrow(RangeError);
  });
});

function parseWeightsOrThrow(text: string): Weights {
  const parsed = parseWeights(text);
  if (!parsed.ok) throw new Error(parsed.problem);
  return parsed.weights;
}
