import type {
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
 * The messageIdentification of the engine's status report on a debit: "RPV" and the UETR's 32 hex digits
 * (35 characters, the ISO limit). Unique because the validator answers each transaction once, and
 * deterministic, so a re-processed debit yields the same report id and the bank can drop the repeat.
 */
export function statusReportId(uetr: string): string {
  return `RPV${uetr.replaceAll('-', '').toUpperCase()}`;
}

/**
 * The engine's answer to an outbound debit (outboundDirectDebitResponse): ACCP, or RJCT with one
 * StatusReasonInformation per reason code, its texts as additionalInfo. The report goes back to the
 * bank that sent the debit, so the agents are swapped: the debit's instructed agent instructs the
 * report, and the report is addressed to the debit's instructing agent.
 */
export function buildStatusReport(
  debit: DirectDebit,
  decision: Decision,
  createdAt: Date,
): PaymentStatusReport {
  const schemeData = reportSchemeData(debit.paymentScheme.schemeData);
  return {
    messageIdentifiers: {
      messageIdentification: statusReportId(debit.transactionIdentifiers.uetr),
      creationDateTime: createdAt.toISOString(),
    },
    originalMessageIdentifiers: debit.messageIdentifiers,
    transactionIdentifiers: debit.transactionIdentifiers,
    ...(debit.instructedAgent ? { instructingAgent: debit.instructedAgent } : {}),
    ...(debit.instructingAgent ? { instructedAgent: debit.instructingAgent } : {}),
    originalTransactionData: originalTransactionData(debit),
    paymentScheme: { schema: debit.paymentScheme.schema, ...(schemeData ? { schemeData } : {}) },
    status: decision.accepted
      ? { status: 'ACCP' }
      : { status: 'RJCT', reasonInfo: reasonInformation(decision.reasons) },
    schema: 'PaymentStatusReport',
  };
}

/** Key elements of the debit the initiating bank matches the report with; the parties' details stay out. */
function originalTransactionData(debit: DirectDebit): OriginalTransactionData {
  return {
    amounts: debit.amounts,
    ...(debit.creditorAccount ? { creditorAccount: debit.creditorAccount } : {}),
    creditorAgent: debit.creditorAgent,
    debtorAccount: debit.debtorAccount,
    debtorAgent: debit.debtorAgent,
    paymentMethod: 'DirectDebit',
    ...(debit.paymentTypeInformation ? { paymentTypeInformation: debit.paymentTypeInformation } : {}),
    ...(debit.settlementDate ? { settlementDate: debit.settlementDate } : {}),
  };
}

/** The references the initiating bank set; the shortened account numbers are already in the debit. */
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
