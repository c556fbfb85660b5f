import {
  type Amount,
  type CreditTransfer,
  compareDecimals,
  type DirectDebit,
  type InstitutionIdentification,
  type IsoDate,
  type PaymentSchemeCode,
} from '@rp/contracts';
import type { Participant, Participants } from '@rp/pipeline';
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
  // The limit is the initiating bank's: it submitted the debit (instructingAgent), on its creditor's behalf.
  const memberId = debit.instructingAgent?.memberId ?? debit.creditorAgent.memberId;
  const limits = participantOf(memberId, context)?.debitLimits;
  const reasons: Rejection[] = [
    ...verifiedAccountRules(debit, 'debtor', context),
    ...verifiedAccountRules(debit, 'creditor', context),
    ...currencyRules(debit),
    ...amountRules(debit.amounts.bankSettlementAmount, { memberId, limits, per: 'debit' }),
    ...dateRules(debit, context),
    ...schemeDataRules(debit),
    ...deliveryAgentRules(debit.debtorAgent, 'debtor', context),
  ];
  return decisionOf(reasons);
}

/**
 * Every business rule of an inbound off-us debit, one a clearing house sent on behalf of a creditor's bank
 * outside the engine, in report order. The debtor's account is held at the actioning bank, a participant,
 * so it is verified (CDV) as for an on-us debit; the creditor's account is held elsewhere, so only its form
 * is checked. The dates and the scheme data are a debit's. No limit applies: the participants' debit
 * limits bound the debits a bank initiates, and the engine holds no limit on the debits a bank receives.
 * The creditor's bank need not be a participant; the debtor's bank, which actions the debit, must be.
 */
export function validateSchemeDebit(debit: DirectDebit, context: RuleContext): Decision {
  const reasons: Rejection[] = [
    ...verifiedAccountRules(debit, 'debtor', context),
    ...accountFormRules(debit, 'creditor'),
    ...currencyRules(debit),
    ...amountRules(debit.amounts.bankSettlementAmount, {
      memberId: debit.debtorAgent.memberId,
      limits: undefined,
      per: 'debit',
    }),
    ...dateRules(debit, context),
    ...schemeDataRules(debit),
    ...deliveryAgentRules(debit.debtorAgent, 'debtor', context),
  ];
  return decisionOf(reasons);
}

/**
 * Every business rule of an inbound credit transfer authorisation, in report order: the accounts, the
 * currency, the amount and the creditor bank's limit, the creditor bank. The credited account is held at
 * the creditor's bank, a participant, so it is verified (CDV); the debtor's account is held at another
 * institution, whose account rules the engine does not know, so only its form is checked. A credit
 * transfer names no settlement or execution date, so no date rule applies.
 */
export function validateCredit(credit: CreditTransfer, context: RuleContext): Decision {
  const memberId = credit.creditorAgent.memberId;
  const limits = creditLimitsOf(participantOf(memberId, context));
  const reasons: Rejection[] = [
    ...accountFormRules(credit, 'debtor'),
    ...verifiedAccountRules(credit, 'creditor', context),
    ...currencyRules(credit),
    ...amountRules(credit.amounts.bankSettlementAmount, { memberId, limits, per: 'credit' }),
    ...deliveryAgentRules(credit.creditorAgent, 'creditor', context),
  ];
  return decisionOf(reasons);
}

function decisionOf(reasons: Rejection[]): Decision {
  return reasons.length === 0 ? { accepted: true } : { accepted: false, reasons };
}

const reasonOfRole = { debtor: 'AC01', creditor: 'AC03' } as const;
const sideName = { debtor: 'Debtor', creditor: 'Creditor' } as const;

/**
 * An account held at a participant: its number must pass CDV at its branch (South African schemes), and
 * the ZA_EFT scheme data's shortened number, when given, must be the same account.
 */
function verifiedAccountRules(
  transaction: DirectDebit | CreditTransfer,
  role: AccountRole,
  context: RuleContext,
): Rejection[] {
  const scheme = transaction.paymentScheme.schema;
  if (!domesticSchemes.has(scheme)) return [];
  const code = reasonOfRole[role];
  const side = sideName[role];
  const { account, agent, shortened } = sideOf(transaction, role);
  const accountNumber = accountNumberOf(account);
  if (accountNumber === undefined) {
    return [{ code, text: `${side} account number is required for ${scheme}` }];
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
  return [...reasons, ...shortenedNumberRules(role, shortened, accountNumber)];
}

/** A South African account number: 1 to 11 digits, not all zero (what CDV would refuse before any table). */
const accountNumberForm = /^(?!0+$)\d{1,11}$/;

/**
 * An account held at another institution (a credit's debtor account, an off-us debit's creditor account):
 * the engine has no tables for it, so only its form is checked (South African schemes), and the shortened
 * number against it. It may be absent: the other institution knows its own customer.
 */
function accountFormRules(transaction: DirectDebit | CreditTransfer, role: AccountRole): Rejection[] {
  if (!domesticSchemes.has(transaction.paymentScheme.schema)) return [];
  const { account, shortened } = sideOf(transaction, role);
  const accountNumber = accountNumberOf(account);
  if (accountNumber === undefined) return [];
  const reasons: Rejection[] = accountNumberForm.test(accountNumber)
    ? []
    : [
        {
          code: reasonOfRole[role],
          text: `${sideName[role]} account number must be 1 to 11 digits, not all zero`,
        },
      ];
  return [...reasons, ...shortenedNumberRules(role, shortened, accountNumber)];
}

function shortenedNumberRules(
  role: AccountRole,
  shortened: string | undefined,
  accountNumber: string,
): Rejection[] {
  if (shortened === undefined || withoutLeadingZeros(shortened) === withoutLeadingZeros(accountNumber))
    return [];
  return [
    {
      code: reasonOfRole[role],
      text: `Shortened ${role} account number in the scheme data differs from the ${role} account`,
    },
  ];
}

function currencyRules(transaction: DirectDebit | CreditTransfer): Rejection[] {
  const scheme = transaction.paymentScheme.schema;
  if (!domesticSchemes.has(scheme)) return [];
  const currencies = [
    ['settlement amount', transaction.amounts.bankSettlementAmount.currency],
    ['instructed amount', transaction.amounts.instructedAmount?.currency],
    ['debtor account', transaction.debtorAccount?.currency],
    ['creditor account', transaction.creditorAccount?.currency],
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

function participantOf(memberId: string | undefined, context: RuleContext): Participant | undefined {
  return memberId === undefined ? undefined : context.participants.get(memberId);
}

/**
 * The creditor bank's limits per credit transfer (`creditLimits` of its participant entry, by currency),
 * kept apart from its debit limits: what a bank allows on the debits it initiates says nothing about the
 * credits its customers may receive. The participants' settings do not carry credit limits yet, so until
 * they do no limit applies to credits.
 */
function creditLimitsOf(participant: Participant | undefined): Readonly<Record<string, string>> | undefined {
  return (participant as (Participant & { creditLimits?: Readonly<Record<string, string>> }) | undefined)
    ?.creditLimits;
}

function amountRules(
  amount: Amount,
  bank: {
    memberId: string | undefined;
    /** The bank's limit per transaction by currency; a currency without one has no limit. */
    limits: Readonly<Record<string, string>> | undefined;
    per: 'debit' | 'credit';
  },
): Rejection[] {
  const { value, currency } = amount;
  if (compareDecimals(value, '0') <= 0) {
    return [{ code: 'AM12', text: 'The settlement amount must be greater than zero' }];
  }
  const limit = bank.limits?.[currency];
  if (limit !== undefined && compareDecimals(value, limit) > 0) {
    return [
      {
        code: 'AM02',
        text: `Amount ${value} ${currency} exceeds the limit of ${limit} ${currency} per ${bank.per} of bank ${bank.memberId}`,
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

/**
 * The bank the engine delivers the transaction to must be a participant, named by its member id: the
 * actioning bank (the debtor's) for a debit, the creditor's bank for a credit transfer.
 */
function deliveryAgentRules(
  agent: InstitutionIdentification,
  role: AccountRole,
  context: RuleContext,
): Rejection[] {
  const memberId = agent.memberId;
  if (memberId === undefined) {
    const what = role === 'debtor' ? 'debit' : 'credit';
    return [{ code: 'AG01', text: `The ${role} agent has no memberId, so the ${what} cannot be delivered` }];
  }
  if (!context.participants.has(memberId)) {
    return [
      { code: 'AG01', text: `${sideName[role]} agent ${memberId} is not a participant of this engine` },
    ];
  }
  return [];
}

function withoutLeadingZeros(digits: string): string {
  return digits.replace(/^0+(?=.)/, '');
}
