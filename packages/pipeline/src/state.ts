import {
  type CreditTransfer,
  type DirectDebit,
  nextState,
  type PaymentStatusReport,
  type StateChangeCause,
  type TransactionEventType,
  type TransactionState,
  type TransactionStateChanged,
} from '@rp/contracts';
import type { PipelineProducer } from './producer.ts';

/**
 * A state change to emit. It carries the transaction's payload, except where the emitter does not hold
 * it and the change leaves it as it was (the dispatcher delivering the engine's status report, the ingress
 * taking a bank's report, the validator applying the actioning bank's report): `uetr`
 * then names the transaction, and the tracker fills the payload in from what it recorded.
 */
export type StateChangeInput = {
  /** The state the emitter saw the transaction in; undefined for its first state. */
  fromState?: TransactionState;
  eventType: TransactionEventType;
  statusReport?: PaymentStatusReport;
  causedBy: StateChangeCause;
  occurredAt?: Date;
} & ({ transaction: DirectDebit | CreditTransfer } | { uetr: string });

export interface StateEmitter {
  /**
   * Produces the state changes and resolves once the broker acknowledged them. Await it BEFORE producing
   * the flow record that lets the next service act: a transaction's changes then reach the state topic in
   * causal order. Throws ILLEGAL_TRANSITION (from the transition table) before anything is produced.
   * `headers` go on every record (the ingress marks a resend's changes with `resentHeader`: the tracker
   * reads the snapshot of a transaction it does not hold only for a first change that may repeat one).
   */
  emit(
    changes: readonly StateChangeInput[],
    options?: { readonly headers?: Readonly<Record<string, string>> },
  ): Promise<TransactionStateChanged[]>;
}

export function uetrOf(transaction: DirectDebit | CreditTransfer): string {
  return transaction.transactionIdentifiers.uetr;
}

/** Builds a state change record; `nextState` refuses a transition the table does not allow. */
export function buildStateChange(
  service: string,
  input: StateChangeInput,
  now: Date,
): TransactionStateChanged {
  const toState = nextState(input.fromState, input.eventType);
  return {
    uetr: 'transaction' in input ? uetrOf(input.transaction) : input.uetr,
    ...(input.fromState ? { fromState: input.fromState } : {}),
    toState,
    eventType: input.eventType,
    occurredAt: (input.occurredAt ?? now).toISOString(),
    emittedBy: service,
    causedBy: input.causedBy,
    ...('transaction' in input ? { transaction: input.transaction } : {}),
    ...(input.statusReport ? { statusReport: input.statusReport } : {}),
  };
}

export function createStateEmitter(options: {
  service: string;
  producer: PipelineProducer;
  now?: () => Date;
}): StateEmitter {
  const now = options.now ?? (() => new Date());
  return {
    async emit(changes, emitOptions) {
      const at = now();
      const records = changes.map((change) => buildStateChange(options.service, change, at));
      const headers = emitOptions?.headers;
      await options.producer.send(
        'rp.transaction.state.v1',
        records.map((value) => ({ key: value.uetr, value, ...(headers ? { headers: { ...headers } } : {}) })),
      );
      return records;
    },
  };
}
