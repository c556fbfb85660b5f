import { assertNever } from '@rp/runtime';

/** The bank a branch belongs to, as the branch file names it. */
export interface Bank {
  readonly code: string;
  readonly name: string;
}

/** Why an account failed CDV. */
export const cdvFailureReasons = [
  /** The branch code is not in the branch file (or is not six digits). */
  'INVALID_BRANCH',
  /** No parameter row covers this branch, account type and account number. */
  'ACCOUNT_NOT_VALID_FOR_BRANCH',
  /** Not 1 to 11 digits, or zero. */
  'INVALID_ACCOUNT_NUMBER',
  /** The weighted sum (or the exception rule) rejected the account. */
  'CHECK_DIGIT_FAILED',
] as const;

export type CdvFailureReason = (typeof cdvFailureReasons)[number];

export interface CdvPassed {
  readonly status: 'PASSED';
  readonly bank: Bank;
  /** The account type of the parameter row used (supplied by the caller or derived). */
  readonly accountType: string;
}

/** The parameter row says accounts of this kind carry no check digit; nothing was verified. */
export interface CdvSkipped {
  readonly status: 'SKIPPED';
  readonly bank: Bank;
  readonly accountType: string;
}

export interface CdvFailed {
  readonly status: 'FAILED';
  readonly reason: CdvFailureReason;
  /** The bank the branch resolved to; `undefined` only for INVALID_BRANCH. */
  readonly bank: Bank | undefined;
  /** The account type of the parameter row used, when one was found. */
  readonly accountType: string | undefined;
  /** Operator-facing explanation (never contains the account number). */
  readonly detail: string;
}

export type CdvOutcome = CdvPassed | CdvSkipped | CdvFailed;

/** What the caller asks to verify. */
export interface CdvRequest {
  /** Six-digit branch (sort) code. */
  readonly branchCode: string;
  /** 1 to 11 digits; shorter numbers are right-justified and zero-filled. */
  readonly accountNumber: string;
  /**
   * Account type code (for example the ACB codes 1 current, 2 savings, 3 transmission). When absent or
   * empty the engine derives it: the first parameter row, in file order, covering the branch and the
   * account number wins.
   */
  readonly accountType?: string | undefined;
}

/** Which side of the payment the verified account is on. */
export type CdvAccountRole = 'debtor' | 'creditor';

export interface CdvRejectionReason {
  readonly code: 'AC01' | 'AC03';
  /** Short narrative for `reasonInfo.additionalInfo` (at most 105 characters, the ISO 20022 limit). */
  readonly additionalInfo: string;
}

/**
 * The ISO 20022 reason code for an outcome: AC01 (incorrect account number) for a FAILED debtor account,
 * AC03 (invalid creditor account number) for a FAILED creditor account, `undefined` for PASSED and
 * SKIPPED. `cdvRejectionReason` adds the narrative.
 */
export function isoReasonFor(outcome: CdvOutcome, role: CdvAccountRole): 'AC01' | 'AC03' | undefined {
  if (outcome.status !== 'FAILED') return undefined;
  return role === 'creditor' ? 'AC03' : 'AC01';
}

/**
 * The ISO 20022 reason a FAILED outcome becomes when the validator rejects the payment: AC03 (invalid
 * creditor account) for the creditor's account, AC01 (incorrect account number) otherwise. PASSED and
 * SKIPPED give `undefined`: neither is a reason to reject.
 */
export function cdvRejectionReason(
  outcome: CdvOutcome,
  role: CdvAccountRole,
): CdvRejectionReason | undefined {
  switch (outcome.status) {
    case 'PASSED':
    case 'SKIPPED':
      return undefined;
    case 'FAILED': {
      const bank = outcome.bank === undefined ? '' : ` (${outcome.bank.code})`;
      return {
        code: role === 'creditor' ? 'AC03' : 'AC01',
        additionalInfo: `CDV ${outcome.reason}${bank}`.slice(0, 105),
      };
    }
    default:
      return assertNever(outcome);
  }
}
