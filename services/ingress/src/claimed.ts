import type { CreditTransfer, DirectDebit } from '@rp/contracts';
import type { ClaimedTransaction } from '@rp/store';
import type { TransactionKind } from './snapshot.ts';

/**
 * What the claim of a UETR records of the transaction a message starts: its kind and the member ids of
 * its debtor's and creditor's agents, the banks that answer it. A bank's report is admitted against this
 * record, which exists from the moment the transaction was acknowledged, rather than against the
 * transaction's snapshot, which the tracker writes after it.
 */
export function claimedTransactionOf(
  kind: TransactionKind,
  message: DirectDebit | CreditTransfer,
): ClaimedTransaction {
  const debtorAgentMemberId = message.debtorAgent.memberId;
  const creditorAgentMemberId = message.creditorAgent.memberId;
  return {
    kind,
    ...(debtorAgentMemberId === undefined ? {} : { debtorAgentMemberId }),
    ...(creditorAgentMemberId === undefined ? {} : { creditorAgentMemberId }),
  };
}
