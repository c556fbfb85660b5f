import type {
  CreditTransfer,
  DirectDebit,
  OriginalTransactionData,
  PaymentSchemeData,
  PaymentStatusReport,
  StatusReasonInformation,
} from '@rp/contracts';
import type { Decision, Rejection } from './rules.ts';

/** ISO 20022 AddtlInf is at most 105 characters. */
const maxAdditionalInfo = 105;
/** The contracts allow 10 additionalInfo entries per reason. */
const maxInfoPerReason = 10;

/**
 * The messageIdentification of the engine's status report on a debit or a credit transfer: "RPV" and the
 * UETR's 32 hex digits (35 characters, the ISO limit). Unique because the validator answers each
 * transaction once, and deterministic, so a re-processed transaction yields the same report id and the
 * bank can drop the repeat.
 */
export function statusReportId(uetr: string): string {
  return `RPV${uetr.replaceAll('-', '').toUpperCase()}`;
}

/**
 * The engine's answer to an outbound debit (outboundDirectDebitResponse) or an inbound credit transfer
 * authorisation: ACCP, or RJCT with one StatusReasonInformation per reason code, its texts as
 * additionalInfo. The report answers the bank that sent the message, so the agents are swapped: the
 * message's instructed agent instructs the report, and the report is addressed to its instructing agent.
 */
export function buildStatusReport(
  transaction: DirectDebit | CreditTransfer,
  decision: Decision,
  createdAt: Date,
): PaymentStatusReport {
  const schemeData = reportSchemeData(transaction.paymentScheme.schemeData);
  return {
    messageIdentifiers: {
      messageIdentification: statusReportId(transaction.transactionIdentifiers.uetr),
      creationDateTime: createdAt.toISOString(),
    },
    originalMessageIdentifiers: transaction.messageIdentifiers,
    transactionIdentifiers: transaction.transactionIdentifiers,
    ...(transaction.instructedAgent ? { instructingAgent: transaction.instructedAgent } : {}),
    ...(transaction.instructingAgent ? { instructedAgent: transaction.instructingAgent } : {}),
    originalTransactionData: originalTransactionData(transaction),
    paymentScheme: { schema: transaction.paymentScheme.schema, ...(schemeData ? { schemeData } : {}) },
    status: decision.accepted
      ? { status: 'ACCP' }
      : { status: 'RJCT', reasonInfo: reasonInformation(decision.reasons) },
    schema: 'PaymentStatusReport',
  };
}

/**
 * Key elements of the original message the sending bank matches the report with: amounts, accounts,
 * agents, payment method and type, the debit's settlement date. The parties' details stay out.
 */
function originalTransactionData(transaction: DirectDebit | CreditTransfer): OriginalTransactionData {
  return {
    amounts: transaction.amounts,
    ...(transaction.creditorAccount ? { creditorAccount: transaction.creditorAccount } : {}),
    creditorAgent: transaction.creditorAgent,
    ...(transaction.debtorAccount ? { debtorAccount: transaction.debtorAccount } : {}),
    debtorAgent: transaction.debtorAgent,
    paymentMethod: transaction.schema,
    ...(transaction.paymentTypeInformation
      ? { paymentTypeInformation: transaction.paymentTypeInformation }
      : {}),
    ...(transaction.schema === 'DirectDebit' && transaction.settlementDate
      ? { settlementDate: transaction.settlementDate }
      : {}),
  };
}

/** The references the sending bank set; the shortened account numbers are already in its message. */
function reportSchemeData(data: PaymentSchemeData | undefined): PaymentSchemeData | undefined {
  if (data === undefined) return undefined;
  const kept: PaymentSchemeData = {
    ...(data.userReference === undefined ? {} : { userReference: data.userReference }),
    ...(data.originatorEchoData === undefined ? {} : { originatorEchoData: data.originatorEchoData }),
    ...(data.businessReference === undefined ? {} : { businessReference: data.businessReference }),
  };
  return Object.keys(kept).length === 0 ? undefined : kept;
}

/** One entry per reason code, in the order the codes first appear, with every text of that code. */
export function reasonInformation(reasons: readonly Rejection[]): StatusReasonInformation[] {
  const byCode = new Map<string, string[]>();
  for (const reason of reasons) {
    const texts = byCode.get(reason.code) ?? [];
    texts.push(
      reason.text.length > maxAdditionalInfo
        ? `${reason.text.slice(0, maxAdditionalInfo - 1)}…`
        : reason.text,
    );
    byCode.set(reason.code, texts);
  }
  return [...byCode].map(([code, texts]) => ({
    reason: { code },
    additionalInfo: texts.slice(0, maxInfoPerReason),
  }));
}
