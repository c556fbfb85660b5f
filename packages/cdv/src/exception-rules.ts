import { AppError } from '@rp/runtime';
import { type Modulus, passesModulus } from './arithmetic.ts';
import type { Bank, CdvFailureReason } from './outcome.ts';
import { ACCOUNT_POSITIONS, type Weights } from './weights.ts';

/** One row of the parameter file, parsed. */
export interface ParameterRow {
  /** Line in the parameter file, for messages. */
  readonly line: number;
  /** Inclusive six-digit branch code range, as numbers. */
  readonly branchFrom: number;
  readonly branchTo: number;
  readonly accountType: string;
  /** Inclusive range of account values (the account read as a number) the row covers. */
  readonly accountFrom: number;
  readonly accountTo: number;
  /** The account indicator: false means accounts under this row carry no check digit. */
  readonly verifiable: boolean;
  readonly weights: Weights;
  readonly modulus: Modulus;
  readonly fudge: number;
  readonly exceptionCode: string | undefined;
}

/** What an exception rule decides. Reuse the frozen constants below on hot paths. */
export type ExceptionVerdict =
  | { readonly status: 'PASSED' }
  | { readonly status: 'SKIPPED' }
  | {
      readonly status: 'FAILED';
      readonly reason: Exclude<CdvFailureReason, 'INVALID_BRANCH'>;
      readonly detail?: string;
    };

export const verdicts = {
  passed: Object.freeze({ status: 'PASSED' }),
  skipped: Object.freeze({ status: 'SKIPPED' }),
  checkDigitFailed: Object.freeze({ status: 'FAILED', reason: 'CHECK_DIGIT_FAILED' }),
} as const satisfies Record<string, ExceptionVerdict>;

/**
 * What a rule sees for one verification. Positions count 0 to 10 over the account right-justified and
 * zero-filled to 11 digits. Valid only during the `verify` call.
 */
export class ExceptionContext {
  /** The account as supplied: 1 to 11 digits, not all zero. */
  readonly accountNumber: string;
  /** The account read as a number. */
  readonly accountValue: number;
  readonly branchCode: string;
  readonly accountType: string;
  readonly bank: Bank;
  readonly row: ParameterRow;

  constructor(
    accountNumber: string,
    accountValue: number,
    branchCode: string,
    bank: Bank,
    row: ParameterRow,
  ) {
    this.accountNumber = accountNumber;
    this.accountValue = accountValue;
    this.branchCode = branchCode;
    this.accountType = row.accountType;
    this.bank = bank;
    this.row = row;
  }

  /** Number of digits without leading zeros (`0001234` has 4). */
  get significantLength(): number {
    return this.accountValue === 0 ? 0 : Math.floor(Math.log10(this.accountValue)) + 1;
  }

  /** The digit at a position of the zero-filled 11-digit account. */
  digitAt(position: number): number {
    const index = position - (ACCOUNT_POSITIONS - this.accountNumber.length);
    return index < 0 ? 0 : this.accountNumber.charCodeAt(index) - 48;
  }

  /** Sum of digit x weight over positions `fromPosition`..10 (earlier positions count as zero). */
  weightedSum(weights: Weights, fromPosition = 0): number {
    let sum = 0;
    for (let position = fromPosition; position < ACCOUNT_POSITIONS; position++) {
      sum += this.digitAt(position) * weights[position]!;
    }
    return sum;
  }

  /** The standard test with other parameters. */
  passes(weights: Weights, modulus: Modulus, fudge: number): boolean {
    return passesModulus(this.accountNumber, weights, modulus, fudge);
  }

  /** The standard test with the row's own weights, modulus and fudge factor. */
  passesRow(): boolean {
    return passesModulus(this.accountNumber, this.row.weights, this.row.modulus, this.row.fudge);
  }
}

/**
 * A rule behind an exception code of the parameter file. When a verifiable row names an exception code,
 * the engine asks the rule instead of applying the standard test; the rule may still call
 * `context.passesRow()` for it. Rules must be pure and synchronous: they run on the validator's hot path.
 */
export interface ExceptionRule {
  /** The code as it appears in the parameter file's `exception` column. */
  readonly code: string;
  readonly description: string;
  /**
   * Optional load-time check of a row that names this code; return problems to reject the file (the loader
   * adds the line number).
   */
  validateRow?(row: ParameterRow): readonly string[];
  verify(context: ExceptionContext): ExceptionVerdict;
}

export const exceptionCodePattern = /^[A-Z0-9][A-Z0-9_-]{0,15}$/;

/**
 * The exception rules an operator makes available to the parameter file. A parameter file naming a code
 * missing here does not load (unless the loader is told to skip such rows), so a table can never reach a
 * code the engine cannot evaluate.
 */
export class ExceptionRuleRegistry {
  readonly #rules = new Map<string, ExceptionRule>();

  constructor(rules: Iterable<ExceptionRule> = []) {
    for (const rule of rules) this.register(rule);
  }

  register(rule: ExceptionRule): this {
    if (!exceptionCodePattern.test(rule.code)) {
      throw new AppError(
        'CONFIG_INVALID',
        `exception code '${rule.code}' must be 1-16 characters A-Z, 0-9, '_' or '-', starting with a letter or digit`,
      );
    }
    if (this.#rules.has(rule.code)) {
      throw new AppError('CONFIG_INVALID', `exception code '${rule.code}' is already registered`);
    }
    this.#rules.set(rule.code, rule);
    return this;
  }

  get(code: string): ExceptionRule | undefined {
    return this.#rules.get(code);
  }

  has(code: string): boolean {
    return this.#rules.has(code);
  }

  get codes(): readonly string[] {
    return [...this.#rules.keys()].sort();
  }
}
