import type { CdvFailureReason, CdvOutcome, CdvRequest } from '@rp/cdv';
import type {
  Code,
  CreditTransfer,
  DirectDebit,
  InstitutionIdentification,
  PaymentAccount,
} from '@rp/contracts';

/** What the validator needs of the CDV engine (CdvEngine has it; tests pass tables directly). */
export interface AccountVerifier {
  verify(request: CdvRequest): CdvOutcome;
}

export type AccountRole = 'debtor' | 'creditor';

/**
 * ISO 20022 cash account type codes and the account type codes of the CDV tables (the ACB codes: 1
 * current, 2 savings, 3 transmission). Any other ISO code leaves the type to the tables, which derive it
 * from the account number.
 */
const cdvAccountTypes: Readonly<Record<string, string>> = { CACC: '1', SVGS: '2', TRAN: '3' };

/** The CDV account type of an account's `type`: mapped from an ISO code, or a proprietary ACB code as is. */
export function cdvAccountType(type: Code | undefined): string | undefined {
  if (type === undefined) return undefined;
  if (type.schema === 'PROPRIETARY' && /^[0-9A-Z]{1,2}$/.test(type.value)) return type.value;
  return cdvAccountTypes[type.value];
}

/**
 * The branch code of an agent: its branch's identification; else its clearing system member id; else its
 * member id. South African clearing member ids are universal branch codes (250655), which is the branch
 * an account is held at when the message names no branch. The ZA_EFT scheme data carries no branch.
 */
export function branchCodeOf(agent: InstitutionIdentification): string | undefined {
  return agent.branch?.identification ?? agent.clearingSystemMemberId?.memberId ?? agent.memberId;
}

/** The account number to verify: the generic identification's value. A proxy alone cannot be verified. */
export function accountNumberOf(account: PaymentAccount | undefined): string | undefined {
  return account?.identification?.value;
}

/** The account and agent of one side of a debit or a credit transfer. */
export function sideOf(
  transaction: DirectDebit | CreditTransfer,
  role: AccountRole,
): {
  account: PaymentAccount | undefined;
  agent: InstitutionIdentification;
  shortened: string | undefined;
} {
  const schemeData = transaction.paymentScheme.schemeData;
  return role === 'debtor'
    ? {
        account: transaction.debtorAccount,
        agent: transaction.debtorAgent,
        shortened: schemeData?.shortenedDebtorAccountNumber,
      }
    : {
        account: transaction.creditorAccount,
        agent: transaction.creditorAgent,
        shortened: schemeData?.shortenedCreditorAccountNumber,
      };
}

const failureTexts: Readonly<Record<CdvFailureReason, string>> = {
  INVALID_BRANCH: 'not a valid branch code',
  ACCOUNT_NOT_VALID_FOR_BRANCH: 'account not valid for the branch',
  INVALID_ACCOUNT_NUMBER: 'account number must be 1 to 11 digits',
  CHECK_DIGIT_FAILED: 'check digit is wrong',
};

/**
 * Readable text of a CDV (check digit verification) failure for a status report: under the ISO limit of
 * 105 characters, and never the account number itself.
 */
export function cdvFailureText(role: AccountRole, branchCode: string, reason: CdvFailureReason): string {
  const side = role === 'debtor' ? 'Debtor' : 'Creditor';
  return `${side} account failed CDV at branch ${branchCode.slice(0, 11)}: ${failureTexts[reason]}`;
}
