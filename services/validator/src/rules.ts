import { compareDecimals, type DirectDebit, type IsoDate, type PaymentSchemeCode } from '@rp/contracts';
import type { Participants } from '@rp/pipeline';
import {
  type AccountRole,
  type AccountVerifier,
  accountNumberOf,
  branchCodeOf,
  cdvAccountType,
  cdvFailureText,
  sideOf,
} from './accounts.ts';
import { addDays, businessTimeZone } from './dates.ts';

/**
 * The ISO 20022 status reasons the validator rejects with. AM12 (invalid amount) is ISO's code for a zero
 * amount; the others are in the engine's list (StatusReason in the contracts). MS03 (reason not
 * specified) only repeats a rejection whose reasons were not recorded.
 */
export type RejectionCode = 'AC01' | 'AC03' | 'AM02' | 'AM03' | 'AM12' | 'DT01' | 'FF01' | 'AG01' | 'MS03';

export interface Rejection {
  readonly code: RejectionCode;
  /** For the report's additionalInfo: at most 105 characters, never an account number. */
  readonly text: string;
}

export type Decision =
  | { readonly accepted: true }
  | { readonly accepted: false; readonly reasons: Rejection[] };

export interface RuleContext {
  readonly participants: Participants;
  readonly accounts: AccountVerifier;
  /** Today in Africa/Johannesburg. */
  readonly today: IsoDate;
  /** How far ahead a collection or settlement date may lie. */
  readonly maxDaysAhead: number;
  /** Told about each CDV outcome, for metrics. */
  readonly onCdv?: (role: AccountRole, status: 'PASSED' | 'SKIPPED' | 'FAILED') => void;
}

/** The South African schemes settle in rand; their accounts carry CDV check digits. */
const domesticSchemes: ReadonlySet<PaymentSchemeCode> = new Set([
  'ZA_EFT',
  'ZA_RTC',
  'ZA_RPP',
  'ZA_AC',
  'ZA_RMS',
]);
const domesticCurrency = 'ZAR';

/**
 * Every business rule of an outbound debit, in the order its reasons appear on the report: the accounts
 * (CDV), the currency, the amount and the initiating bank's limit, the dates, the scheme data, the
 * actioning bank. All rules run, so that the initiating bank can correct every discrepancy at once.
 */
export function validateDebit(debit: DirectDebit, context: RuleContext): Decision {
  const reasons: Rejection[] = [
    ...accountRules(debit, context),
    ...currencyRules(debit),
    ...amountRules(debit, context),
    ...dateRules(debit, context),
    ...schemeDataRules(debit),
    ...agentRules(debit, context),
  ];
  return reasons.length === 0 ? { accepted: true } : { accepted: false, reasons };
}

function accountRules(debit: DirectDebit, context: RuleContext): Rejection[] {
  if (!domesticSchemes.has(debit.paymentScheme.schema)) return [];
  return (['debtor', 'creditor'] as const).flatMap((role) => {
    const code = role === 'debtor' ? 'AC01' : 'AC03';
    const side = role === 'debtor' ? 'Debtor' : 'Creditor';
    const { account, agent, shortened } = sideOf(debit, role);
    const accountNumber = accountNumberOf(account);
    if (accountNumber === undefined) {
      return [{ code, text: `${side} account number is required for ${debit.paymentScheme.schema}` }];
    }
    const branchCode = branchCodeOf(agent);
    if (branchCode === undefined) {
      return [{ code, text: `${side} agent names no branch, so the account cannot be verified` }];
    }
    const reasons: Rejection[] = [];
    const outcome = context.accounts.verify({
      branchCode,
      accountNumber,
      accountType: cdvAccountType(account?.type),
    });
    context.onCdv?.(role, outcome.status);
    if (outcome.status === 'FAILED') {
      reasons.push({ code, text: cdvFailureText(role, branchCode, outcome.reason) });
    }
    if (shortened !== undefined && withoutLeadingZeros(shortened) !== withoutLeadingZeros(accountNumber)) {
      reasons.push({
        code,
        text: `Shortened ${role} account number in the scheme data differs from the ${role} account`,
      });
    }
    return reasons;
  });
}

function currencyRules(debit: DirectDebit): Rejection[] {
  const scheme = debit.paymentScheme.schema;
  if (!domesticSchemes.has(scheme)) return [];
  const currencies = [
    ['settlement amount', debit.amounts.bankSettlementAmount.currency],
    ['instructed amount', debit.amounts.instructedAmount?.currency],
    ['debtor account', debit.debtorAccount.currency],
    ['creditor account', debit.creditorAccount?.currency],
  ] as const;
  return currencies.flatMap(([what, currency]) =>
    currency === undefined || currency === domesticCurrency
      ? []
      : [
          {
            code: 'AM03' as const,
            text: `Currency ${currency} of the ${what} is not allowed for ${scheme}; use ZAR`,
          },
        ],
  );
}

function amountRules(debit: DirectDebit, context: RuleContext): Rejection[] {
  const { value, currency } = debit.amounts.bankSettlementAmount;
  if (compareDecimals(value, '0') <= 0) {
    return [{ code: 'AM12', text: 'The settlement amount must be greater than zero' }];
  }
  // The limit is the initiating bank's: it submitted the debit (instructingAgent), on its creditor's behalf.
  const memberId = debit.instructingAgent?.memberId ?? debit.creditorAgent.memberId;
  const limit =
    memberId === undefined ? undefined : context.participants.get(memberId)?.debitLimits[currency];
  if (limit !== undefined && compareDecimals(value, limit) > 0) {
    return [
      {
        code: 'AM02',
        text: `Amount ${value} ${currency} exceeds the limit of ${limit} ${currency} per debit of bank ${memberId}`,
      },
    ];
  }
  return [];
}

function dateRules(debit: DirectDebit, context: RuleContext): Rejection[] {
  const { today, maxDaysAhead } = context;
  const latest = addDays(today, maxDaysAhead);
  const reasons: Rejection[] = [];
  const check = (what: string, date: IsoDate | undefined) => {
    if (date === undefined) return;
    if (date < today) {
      reasons.push({
        code: 'DT01',
        text: `${what} ${date} is in the past (today is ${today} in ${businessTimeZone})`,
      });
    } else if (date > latest) {
      reasons.push({ code: 'DT01', text: `${what} ${date} is more than ${maxDaysAhead} days ahead` });
    }
  };
  check('Requested collection date', debit.requestedCollectionDate);
  check('Settlement date', debit.settlementDate);
  const { requestedCollectionDate: collection, settlementDate: settlement } = debit;
  if (collection !== undefined && settlement !== undefined && settlement < collection) {
    reasons.push({
      code: 'DT01',
      text: `Settlement date ${settlement} is before the requested collection date ${collection}`,
    });
  }
  return reasons;
}

/**
 * ZA_EFT debits need the user reference (its first 10 characters are the clearing user code) and both
 * accounts in the 11-character EFT fields, which the actioning bank's EFT processing reads.
 */
function schemeDataRules(debit: DirectDebit): Rejection[] {
  if (debit.paymentScheme.schema !== 'ZA_EFT') return [];
  const data = debit.paymentScheme.schemeData;
  const missing = (
    [
      ['userReference', data?.userReference],
      ['shortenedDebtorAccountNumber', data?.shortenedDebtorAccountNumber],
      ['shortenedCreditorAccountNumber', data?.shortenedCreditorAccountNumber],
    ] as const
  ).filter(([, value]) => value === undefined);
  return missing.map(([name]) => ({
    code: 'FF01' as const,
    text: `ZA_EFT debits need paymentScheme.schemeData.${name}`,
  }));
}

/** The actioning bank (the debtor's) must be a participant: the engine delivers the debit to it. */
function agentRules(debit: DirectDebit, context: RuleContext): Rejection[] {
  const memberId = debit.debtorAgent.memberId;
  if (memberId === undefined) {
    return [{ code: 'AG01', text: 'The debtor agent has no memberId, so the debit cannot be delivered' }];
  }
  if (!context.participants.has(memberId)) {
    return [{ code: 'AG01', text: `Debtor agent ${memberId} is not a participant of this engine` }];
  }
  return [];
}

function withoutLeadingZeros(digits: string): string {
  return digits.replace(/^0+(?=.)/, '');
}
