import { contractError } from './errors.ts';
import type {
  Direction,
  EsmTransactionState,
  FinancialTransactionState,
  TransactionEventType,
  TransactionState,
} from './generated/types.ts';

/** The engine's services, in the order a journey reaches them (the console shows them so). */
export const engineServices = [
  'ingress',
  'validator',
  'scheduler',
  'dispatcher',
  'tracker',
  'event-publisher',
] as const;
export type EngineService = (typeof engineServices)[number];

/**
 * The engine's services in the order they start, whether in a process each or together in one, and stop
 * in the reverse: the tracker and the event publisher before anything that produces state changes, the
 * ingress last, so that nothing is acknowledged with a 202 before the services behind it run, and the
 * ingress first to stop taking requests.
 */
export const serviceStartOrder = [
  'tracker',
  'event-publisher',
  'validator',
  'scheduler',
  'dispatcher',
  'ingress',
] as const satisfies readonly EngineService[];

/**
 * The services that change a transaction's state (they emit TransactionStateChanged). The tracker only
 * sequences the changes and the event-publisher only delivers the postings: neither changes a state.
 */
export type StateEmitter = Exclude<EngineService, 'tracker' | 'event-publisher'>;

/** Event types and states this version knows (UNKNOWN is only what an older reader sees for a newer symbol). */
export type KnownEventType = Exclude<TransactionEventType, 'UNKNOWN'>;
export type KnownTransactionState = Exclude<TransactionState, 'UNKNOWN'>;

export type EventClass = 'TRANSACTION_STATE' | 'ESM_STATE';

export interface EventClassInfo {
  description: string;
  /** Who receives postings of the class. */
  recipients: string;
}

export const eventClasses: Readonly<Record<EventClass, EventClassInfo>> = {
  TRANSACTION_STATE: {
    description:
      'The current state of processing of a transaction: one posting each time the transaction moves to a different state, carrying the transaction payload as it was then.',
    recipients: 'Every participant that implements /events, for the transactions it takes part in.',
  },
  ESM_STATE: {
    description:
      'The EFT view of the same state changes: ESM transaction and financial states with the EFT data record, for ZA_EFT transactions.',
    recipients: 'Participants subscribed to the ESM_STATE class, for ZA_EFT transactions.',
  },
};

export interface EventTypeInfo {
  flow: 'debit' | 'credit' | 'any';
  /** What makes the transaction reach this stage. */
  trigger: string;
  /** The service that makes the state change (and so emits the TransactionStateChanged). */
  emittedBy: StateEmitter;
  /**
   * tranInfo.direction of the posting: OUTBOUND for the initiating bank's outbound debit leg, INBOUND
   * for what arrives at a bank; EITHER takes the direction of the stage the transaction was in.
   */
  direction: Direction | 'EITHER';
  /** The ESM_STATE states the stage maps to (state of TRANSACTION_STATE postings, and ESM_STATE postings). */
  esm: { transactionState: EsmTransactionState; financialTransactionState: FinancialTransactionState };
}

const esm = (
  transactionState: EsmTransactionState,
  financialTransactionState: FinancialTransactionState,
): EventTypeInfo['esm'] => ({ transactionState, financialTransactionState });

/** Every TRANSACTION_STATE event type: debits (the on-us journey of spec section 4) and credits. */
export const transactionEventTypes: Readonly<Record<KnownEventType, EventTypeInfo>> = {
  DEBIT_REQUEST_RECEIVED: {
    flow: 'debit',
    trigger:
      'A bank POSTs outboundDirectDebit, or a clearing house POSTs an inbound off-us debit (inboundDirectDebitFromScheme), and the engine has stored it durably (before answering 202).',
    emittedBy: 'ingress',
    direction: 'OUTBOUND',
    esm: esm('RECEIVED', 'IN_PROGRESS'),
  },
  DEBIT_REQUEST_ACCEPTED: {
    flow: 'debit',
    trigger: 'CDV of both accounts and the limits passed: a PaymentStatusReport ACCP is produced.',
    emittedBy: 'validator',
    direction: 'OUTBOUND',
    esm: esm('RECEIVED', 'IN_PROGRESS'),
  },
  DEBIT_REQUEST_REJECTED: {
    flow: 'debit',
    trigger:
      'CDV, a limit or a business rule failed: a PaymentStatusReport RJCT with an ISO reason is produced.',
    emittedBy: 'validator',
    direction: 'OUTBOUND',
    esm: esm('RECEIVE_ERROR', 'ERROR'),
  },
  DEBIT_STATUS_DELIVERY_PENDING: {
    flow: 'debit',
    trigger:
      'The first attempt to POST the PaymentStatusReport to the initiating bank (outboundDirectDebitResponse) starts.',
    emittedBy: 'dispatcher',
    direction: 'OUTBOUND',
    esm: esm('RECEIVED', 'IN_PROGRESS'),
  },
  DEBIT_STATUS_DELIVERED: {
    flow: 'debit',
    trigger: 'The initiating bank answered the PaymentStatusReport with 202.',
    emittedBy: 'dispatcher',
    direction: 'OUTBOUND',
    esm: esm('RECEIVED', 'IN_PROGRESS'),
  },
  DEBIT_STATUS_DELIVERY_FAILURE: {
    flow: 'debit',
    trigger: 'The initiating bank refused the PaymentStatusReport with a final (non-retryable) 4xx.',
    emittedBy: 'dispatcher',
    direction: 'OUTBOUND',
    esm: esm('RECEIVE_ERROR', 'ERROR'),
  },
  DEBIT_QUEUED: {
    flow: 'debit',
    trigger:
      'The accepted debit is held in the debit queue until the debit window opens after credits are finalised: an on-us debit once its ACCP status report was delivered to the initiating bank, an inbound off-us debit from a clearing house as soon as it is accepted (no status report goes back).',
    emittedBy: 'scheduler',
    direction: 'OUTBOUND',
    esm: esm('ON_HOLD', 'IN_PROGRESS'),
  },
  DEBIT_DELIVERY_PENDING: {
    flow: 'debit',
    trigger:
      'The debit reached the head of the queue and the first attempt to POST inboundDirectDebit to the actioning bank starts.',
    emittedBy: 'dispatcher',
    direction: 'INBOUND',
    esm: esm('SEND_PENDING', 'IN_PROGRESS'),
  },
  DEBIT_DELIVERED: {
    flow: 'debit',
    trigger: 'The actioning bank answered the inbound DirectDebit with 202.',
    emittedBy: 'dispatcher',
    direction: 'INBOUND',
    esm: esm('SENT', 'IN_PROGRESS'),
  },
  DEBIT_DELIVERY_FAILURE: {
    flow: 'debit',
    trigger: 'The actioning bank refused the inbound DirectDebit with a final (non-retryable) 4xx.',
    emittedBy: 'dispatcher',
    direction: 'INBOUND',
    esm: esm('SEND_ERROR', 'ERROR'),
  },
  DEBIT_RESPONSE_ACCEPTED: {
    flow: 'debit',
    trigger:
      'The actioning bank POSTed inboundDirectDebitResponse (PaymentStatusReport) and the engine stored it (202).',
    emittedBy: 'ingress',
    direction: 'INBOUND',
    esm: esm('SENT', 'IN_PROGRESS'),
  },
  DEBIT_COMPLETED: {
    flow: 'debit',
    trigger: "The actioning bank's report says the debtor's account was debited (ACSC).",
    emittedBy: 'validator',
    direction: 'INBOUND',
    esm: esm('SENT', 'ACTIONED'),
  },
  DEBIT_UNPAID: {
    flow: 'debit',
    trigger: "The actioning bank's report rejects the debit (RJCT): the debit is unpaid.",
    emittedBy: 'validator',
    direction: 'INBOUND',
    esm: esm('SENT', 'UNPAID'),
  },
  CREDIT_AUTH_RECEIVED: {
    flow: 'credit',
    trigger: 'The switch received the inboundCreditTransferAuthorization request.',
    emittedBy: 'ingress',
    direction: 'INBOUND',
    esm: esm('RECEIVE_PENDING', 'IN_PROGRESS'),
  },
  CREDIT_AUTH_ACCEPTED: {
    flow: 'credit',
    trigger: 'The credit transfer passed validation.',
    emittedBy: 'validator',
    direction: 'INBOUND',
    esm: esm('RECEIVED', 'IN_PROGRESS'),
  },
  CREDIT_AUTH_REJECTED: {
    flow: 'credit',
    trigger: 'The credit transfer failed validation.',
    emittedBy: 'validator',
    direction: 'INBOUND',
    esm: esm('RECEIVE_ERROR', 'ERROR'),
  },
  CREDIT_AUTH_DELIVERY_PENDING: {
    flow: 'credit',
    trigger: "The first attempt to POST the credit transfer authorisation to the creditor's bank starts.",
    emittedBy: 'dispatcher',
    direction: 'INBOUND',
    esm: esm('SEND_PENDING', 'IN_PROGRESS'),
  },
  CREDIT_AUTH_DELIVERED: {
    flow: 'credit',
    trigger: "The creditor's bank answered the credit transfer authorisation with 202.",
    emittedBy: 'dispatcher',
    direction: 'INBOUND',
    esm: esm('SENT', 'IN_PROGRESS'),
  },
  CREDIT_AUTH_DELIVERY_FAILURE: {
    flow: 'credit',
    trigger:
      "The creditor's bank refused the credit transfer authorisation with a final (non-retryable) 4xx.",
    emittedBy: 'dispatcher',
    direction: 'INBOUND',
    esm: esm('SEND_ERROR', 'ERROR'),
  },
  CREDIT_AUTH_RESPONSE_ACCEPTED: {
    flow: 'credit',
    trigger: "The creditor's bank's response to the authorisation was received and stored.",
    emittedBy: 'ingress',
    direction: 'INBOUND',
    esm: esm('SENT', 'ACTIONED'),
  },
  RECONCILIATION_REQUIRED: {
    flow: 'any',
    trigger:
      'The reconciliation window closed while the transaction was not in a final state (spec section 7).',
    emittedBy: 'scheduler',
    direction: 'EITHER',
    esm: esm('ON_HOLD', 'UNMATCHED'),
  },
};

export interface TransactionStateInfo {
  description: string;
  /** No transition leaves a final state. */
  final: boolean;
}

/** Every transaction state. Final states end the transaction's processing in the engine. */
export const transactionStates: Readonly<Record<KnownTransactionState, TransactionStateInfo>> = {
  DEBIT_RECEIVED: { description: 'Outbound debit stored, awaiting validation.', final: false },
  DEBIT_ACCEPTED: {
    description:
      'Validated; its ACCP status report awaits delivery (an inbound off-us debit from a clearing house has none: it awaits the queue).',
    final: false,
  },
  DEBIT_REJECTED: {
    description: 'Refused by validation; its RJCT status report awaits delivery.',
    final: false,
  },
  DEBIT_ACCEPTANCE_DELIVERY_PENDING: {
    description: 'ACCP status report being delivered to the initiating bank.',
    final: false,
  },
  DEBIT_ACCEPTANCE_DELIVERED: {
    description: 'The initiating bank acknowledged the ACCP report.',
    final: false,
  },
  DEBIT_REJECTION_DELIVERY_PENDING: {
    description: 'RJCT status report being delivered to the initiating bank.',
    final: false,
  },
  DEBIT_REJECTION_DELIVERED: {
    description: 'The initiating bank acknowledged the RJCT report.',
    final: true,
  },
  DEBIT_STATUS_DELIVERY_FAILED: {
    description: 'The initiating bank refused the status report (final 4xx).',
    final: false,
  },
  DEBIT_QUEUED: { description: 'Held in the debit queue until the debit window.', final: false },
  DEBIT_DELIVERY_PENDING: {
    description: 'Inbound debit being delivered to the actioning bank.',
    final: false,
  },
  DEBIT_DELIVERED: {
    description: 'The actioning bank acknowledged the inbound debit; its report is awaited.',
    final: false,
  },
  DEBIT_DELIVERY_FAILED: {
    description: 'The actioning bank refused the inbound debit (final 4xx).',
    final: false,
  },
  DEBIT_RESPONSE_ACCEPTED: { description: "The actioning bank's status report was received.", final: false },
  DEBIT_COMPLETED: { description: "The debtor's account was debited.", final: true },
  DEBIT_UNPAID: { description: 'The actioning bank rejected the debit.', final: true },
  CREDIT_AUTH_RECEIVED: {
    description: 'Credit transfer authorisation received, awaiting validation.',
    final: false,
  },
  CREDIT_AUTH_ACCEPTED: { description: 'Validated; awaiting delivery to the creditor bank.', final: false },
  CREDIT_AUTH_REJECTED: { description: 'Refused by validation.', final: true },
  CREDIT_AUTH_DELIVERY_PENDING: { description: "Being delivered to the creditor's bank.", final: false },
  CREDIT_AUTH_DELIVERED: {
    description: "The creditor's bank acknowledged it; its response is awaited.",
    final: false,
  },
  CREDIT_AUTH_DELIVERY_FAILED: { description: "The creditor's bank refused it (final 4xx).", final: false },
  CREDIT_AUTH_RESPONSE_ACCEPTED: { description: "The creditor's bank's response was received.", final: true },
  RECONCILIATION_REQUIRED: {
    description: 'Unresolved when the reconciliation window closed; a reconciliation item was raised.',
    final: true,
  },
};

export interface Transition {
  /** The state left; null for a transaction's first state. */
  from: KnownTransactionState | null;
  eventType: KnownEventType;
  to: KnownTransactionState;
}

const journey: readonly Transition[] = [
  { from: null, eventType: 'DEBIT_REQUEST_RECEIVED', to: 'DEBIT_RECEIVED' },
  { from: 'DEBIT_RECEIVED', eventType: 'DEBIT_REQUEST_ACCEPTED', to: 'DEBIT_ACCEPTED' },
  { from: 'DEBIT_RECEIVED', eventType: 'DEBIT_REQUEST_REJECTED', to: 'DEBIT_REJECTED' },
  {
    from: 'DEBIT_ACCEPTED',
    eventType: 'DEBIT_STATUS_DELIVERY_PENDING',
    to: 'DEBIT_ACCEPTANCE_DELIVERY_PENDING',
  },
  {
    from: 'DEBIT_REJECTED',
    eventType: 'DEBIT_STATUS_DELIVERY_PENDING',
    to: 'DEBIT_REJECTION_DELIVERY_PENDING',
  },
  {
    from: 'DEBIT_ACCEPTANCE_DELIVERY_PENDING',
    eventType: 'DEBIT_STATUS_DELIVERED',
    to: 'DEBIT_ACCEPTANCE_DELIVERED',
  },
  {
    from: 'DEBIT_ACCEPTANCE_DELIVERY_PENDING',
    eventType: 'DEBIT_STATUS_DELIVERY_FAILURE',
    to: 'DEBIT_STATUS_DELIVERY_FAILED',
  },
  {
    from: 'DEBIT_REJECTION_DELIVERY_PENDING',
    eventType: 'DEBIT_STATUS_DELIVERED',
    to: 'DEBIT_REJECTION_DELIVERED',
  },
  {
    from: 'DEBIT_REJECTION_DELIVERY_PENDING',
    eventType: 'DEBIT_STATUS_DELIVERY_FAILURE',
    to: 'DEBIT_STATUS_DELIVERY_FAILED',
  },
  { from: 'DEBIT_ACCEPTANCE_DELIVERED', eventType: 'DEBIT_QUEUED', to: 'DEBIT_QUEUED' },
  // An inbound off-us debit from a clearing house has no initiating bank among the participants: no status
  // report is delivered, and it is queued once accepted.
  { from: 'DEBIT_ACCEPTED', eventType: 'DEBIT_QUEUED', to: 'DEBIT_QUEUED' },
  { from: 'DEBIT_QUEUED', eventType: 'DEBIT_DELIVERY_PENDING', to: 'DEBIT_DELIVERY_PENDING' },
  { from: 'DEBIT_DELIVERY_PENDING', eventType: 'DEBIT_DELIVERED', to: 'DEBIT_DELIVERED' },
  { from: 'DEBIT_DELIVERY_PENDING', eventType: 'DEBIT_DELIVERY_FAILURE', to: 'DEBIT_DELIVERY_FAILED' },
  { from: 'DEBIT_DELIVERED', eventType: 'DEBIT_RESPONSE_ACCEPTED', to: 'DEBIT_RESPONSE_ACCEPTED' },
  // The bank's report can be recorded before the record of its 202 (two services, one partition).
  { from: 'DEBIT_DELIVERY_PENDING', eventType: 'DEBIT_RESPONSE_ACCEPTED', to: 'DEBIT_RESPONSE_ACCEPTED' },
  { from: 'DEBIT_RESPONSE_ACCEPTED', eventType: 'DEBIT_COMPLETED', to: 'DEBIT_COMPLETED' },
  { from: 'DEBIT_RESPONSE_ACCEPTED', eventType: 'DEBIT_UNPAID', to: 'DEBIT_UNPAID' },
  { from: null, eventType: 'CREDIT_AUTH_RECEIVED', to: 'CREDIT_AUTH_RECEIVED' },
  { from: 'CREDIT_AUTH_RECEIVED', eventType: 'CREDIT_AUTH_ACCEPTED', to: 'CREDIT_AUTH_ACCEPTED' },
  { from: 'CREDIT_AUTH_RECEIVED', eventType: 'CREDIT_AUTH_REJECTED', to: 'CREDIT_AUTH_REJECTED' },
  {
    from: 'CREDIT_AUTH_ACCEPTED',
    eventType: 'CREDIT_AUTH_DELIVERY_PENDING',
    to: 'CREDIT_AUTH_DELIVERY_PENDING',
  },
  { from: 'CREDIT_AUTH_DELIVERY_PENDING', eventType: 'CREDIT_AUTH_DELIVERED', to: 'CREDIT_AUTH_DELIVERED' },
  {
    from: 'CREDIT_AUTH_DELIVERY_PENDING',
    eventType: 'CREDIT_AUTH_DELIVERY_FAILURE',
    to: 'CREDIT_AUTH_DELIVERY_FAILED',
  },
  {
    from: 'CREDIT_AUTH_DELIVERED',
    eventType: 'CREDIT_AUTH_RESPONSE_ACCEPTED',
    to: 'CREDIT_AUTH_RESPONSE_ACCEPTED',
  },
  {
    from: 'CREDIT_AUTH_DELIVERY_PENDING',
    eventType: 'CREDIT_AUTH_RESPONSE_ACCEPTED',
    to: 'CREDIT_AUTH_RESPONSE_ACCEPTED',
  },
];

/**
 * The allowed transitions: the journeys above, and RECONCILIATION_REQUIRED from every state that is not
 * final. Anything not listed is illegal.
 */
export const transactionTransitions: readonly Transition[] = [
  ...journey,
  ...(Object.keys(transactionStates) as KnownTransactionState[])
    .filter((state) => !transactionStates[state].final)
    .map(
      (state): Transition => ({
        from: state,
        eventType: 'RECONCILIATION_REQUIRED',
        to: 'RECONCILIATION_REQUIRED',
      }),
    ),
];

const byStateAndEvent = new Map(
  transactionTransitions.map((transition) => [
    `${transition.from ?? ''}:${transition.eventType}`,
    transition.to,
  ]),
);

/** The event types of an on-us debit that completes (spec section 4's journey), in the order they happen. */
export const completedDebitJourney: readonly KnownEventType[] = [
  'DEBIT_REQUEST_RECEIVED',
  'DEBIT_REQUEST_ACCEPTED',
  'DEBIT_STATUS_DELIVERY_PENDING',
  'DEBIT_STATUS_DELIVERED',
  'DEBIT_QUEUED',
  'DEBIT_DELIVERY_PENDING',
  'DEBIT_DELIVERED',
  'DEBIT_RESPONSE_ACCEPTED',
  'DEBIT_COMPLETED',
];

/**
 * The state a transaction in `current` (undefined before its first state) moves to on `eventType`.
 * Throws ILLEGAL_TRANSITION when the table does not allow it.
 */
export function nextState(
  current: TransactionState | undefined,
  eventType: TransactionEventType,
): KnownTransactionState {
  const to = byStateAndEvent.get(`${current ?? ''}:${eventType}`);
  if (!to) {
    throw contractError('ILLEGAL_TRANSITION', `${eventType} is not allowed from ${current ?? 'no state'}`);
  }
  return to;
}

/** The event types allowed from `current` (undefined: a new transaction). */
export function allowedEventTypes(current: TransactionState | undefined): KnownEventType[] {
  return transactionTransitions
    .filter((transition) => transition.from === (current ?? null))
    .map((transition) => transition.eventType);
}

export function isFinalState(state: TransactionState): boolean {
  return state !== 'UNKNOWN' && transactionStates[state].final;
}
