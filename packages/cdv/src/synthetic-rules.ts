import type { Modulus } from './arithmetic.ts';
import {
  type ExceptionContext,
  type ExceptionRule,
  type ExceptionVerdict,
  type ParameterRow,
  verdicts,
} from './exception-rules.ts';
import { ACCOUNT_POSITIONS, parseWeights, type Weights } from './weights.ts';

/*
 * SYNTHETIC EXAMPLES. The rule kinds below (an alternative chain of weights, a special account length,
 * leading digits outside the check digit) are the kinds of exception the official parameter table uses,
 * but the codes, weights and numbers here are invented for the synthetic test tables. They are not the
 * official exception rules of any bank; an operator registers rules matching the licensed table.
 */

/** Weights, modulus and fudge factor written as in the parameter file (`0000A987654`, 11, 0). */
export interface CheckParameters {
  readonly weights: string;
  readonly modulus: Modulus;
  readonly fudge: number;
}

interface ParsedCheck {
  readonly weights: Weights;
  readonly modulus: Modulus;
  readonly fudge: number;
}

function parseCheck(code: string, check: CheckParameters): ParsedCheck {
  const parsed = parseWeights(check.weights);
  if (!parsed.ok) throw new RangeError(`exception rule ${code}: ${parsed.problem}`);
  if (check.modulus !== 10 && check.modulus !== 11) {
    throw new RangeError(`exception rule ${code}: modulus must be 10 or 11`);
  }
  if (!Number.isInteger(check.fudge) || check.fudge < 0) {
    throw new RangeError(`exception rule ${code}: fudge must be a non-negative integer`);
  }
  return { weights: parsed.weights, modulus: check.modulus, fudge: check.fudge };
}

/**
 * Alternative chain: the row's own test first, then each alternative in order; the account passes when
 * any of them passes. Banks that renumbered accounts or merged books keep several valid schemes this way.
 */
export function alternativeWeightsRule(options: {
  readonly code: string;
  readonly description?: string;
  readonly alternatives: readonly CheckParameters[];
}): ExceptionRule {
  if (options.alternatives.length === 0) {
    throw new RangeError(`exception rule ${options.code}: at least one alternative is needed`);
  }
  const chain = options.alternatives.map((check) => parseCheck(options.code, check));
  return {
    code: options.code,
    description:
      options.description ??
      `row weights first, then ${chain.length} alternative weight set(s); passes when any passes`,
    verify(context: ExceptionContext): ExceptionVerdict {
      if (context.passesRow()) return verdicts.passed;
      for (const check of chain) {
        if (context.passes(check.weights, check.modulus, check.fudge)) return verdicts.passed;
      }
      return verdicts.checkDigitFailed;
    },
  };
}

/**
 * Special account length: accounts with exactly `specialLength` significant digits (an older numbering)
 * are verified with their own parameters; others with the row's. With `regularLength` set, any other
 * length is not an account of this branch range.
 */
export function specialLengthRule(options: {
  readonly code: string;
  readonly description?: string;
  readonly specialLength: number;
  readonly special: CheckParameters;
  readonly regularLength?: number;
}): ExceptionRule {
  const special = parseCheck(options.code, options.special);
  const { specialLength, regularLength } = options;
  for (const length of [specialLength, regularLength]) {
    if (length !== undefined && (!Number.isInteger(length) || length < 1 || length > ACCOUNT_POSITIONS)) {
      throw new RangeError(`exception rule ${options.code}: lengths must be 1..${ACCOUNT_POSITIONS}`);
    }
  }
  const notValid: ExceptionVerdict = Object.freeze({
    status: 'FAILED',
    reason: 'ACCOUNT_NOT_VALID_FOR_BRANCH',
    detail: `account length must be ${specialLength} or ${regularLength} significant digits`,
  });
  return {
    code: options.code,
    description:
      options.description ??
      `accounts of ${specialLength} significant digits use their own weights` +
        (regularLength === undefined ? '' : `; other accounts must have ${regularLength} digits`),
    verify(context: ExceptionContext): ExceptionVerdict {
      const length = context.significantLength;
      if (length === specialLength) {
        return context.passes(special.weights, special.modulus, special.fudge)
          ? verdicts.passed
          : verdicts.checkDigitFailed;
      }
      if (regularLength !== undefined && length !== regularLength) return notValid;
      return context.passesRow() ? verdicts.passed : verdicts.checkDigitFailed;
    },
  };
}

/**
 * Leading digits outside the check: the first `count` significant digits (a product prefix, say) are not
 * covered by the check digit, so they count as zero in the weighted sum. Which positions that zeroes
 * depends on the account's length, so no fixed weight string can express it.
 */
export function ignoreLeadingDigitsRule(options: {
  readonly code: string;
  readonly description?: string;
  readonly count: number;
}): ExceptionRule {
  const { count } = options;
  if (!Number.isInteger(count) || count < 1 || count >= ACCOUNT_POSITIONS) {
    throw new RangeError(`exception rule ${options.code}: count must be 1..${ACCOUNT_POSITIONS - 1}`);
  }
  const tooShort: ExceptionVerdict = Object.freeze({
    status: 'FAILED',
    reason: 'ACCOUNT_NOT_VALID_FOR_BRANCH',
    detail: `account must have more than ${count} significant digits`,
  });
  return {
    code: options.code,
    description: options.description ?? `the first ${count} significant digit(s) are ignored`,
    validateRow(row: ParameterRow): readonly string[] {
      return row.verifiable ? [] : [`exception ${options.code} needs a verifiable row (indicator Y)`];
    },
    verify(context: ExceptionContext): ExceptionVerdict {
      const length = context.significantLength;
      if (length <= count) return tooShort;
      const { weights, modulus, fudge } = context.row;
      const firstCovered = ACCOUNT_POSITIONS - length + count;
      return (context.weightedSum(weights, firstCovered) + fudge) % modulus === 0
        ? verdicts.passed
        : verdicts.checkDigitFailed;
    },
  };
}

/**
 * The rules the synthetic test tables (test-data/synthetic-*.csv) use. Codes start with `SYN-` so they can
 * never be mistaken for official exception codes.
 */
export function syntheticExceptionRules(): ExceptionRule[] {
  return [
    alternativeWeightsRule({
      code: 'SYN-ALT',
      description: 'synthetic: row weights, else 00000A98765 modulus 11',
      alternatives: [{ weights: '00000A98765', modulus: 11, fudge: 0 }],
    }),
    specialLengthRule({
      code: 'SYN-LEN',
      description:
        'synthetic: 7-digit legacy accounts use 00001234567 modulus 10; others must have 10 digits',
      specialLength: 7,
      special: { weights: '00001234567', modulus: 10, fudge: 0 },
      regularLength: 10,
    }),
    ignoreLeadingDigitsRule({
      code: 'SYN-LEAD',
      description: 'synthetic: the first 2 significant digits are a product prefix outside the check',
      count: 2,
    }),
  ];
}
