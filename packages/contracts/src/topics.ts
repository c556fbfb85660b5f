import type { EngineService } from './event-types.ts';
import type { MessageName, Messages } from './generated/types.ts';

export type CleanupPolicy = 'delete' | 'compact';

export interface TopicDefinition {
  /** The record key: the transaction's UETR as a UTF-8 string (not Avro), so one transaction lives on one partition. */
  key: 'uetr';
  /** Name of the Avro message every value is (registered as `<topic>-value`). */
  value: MessageName;
  /** Default partition count; consumers scale out to it. */
  partitions: number;
  retentionMs: number;
  cleanupPolicy: CleanupPolicy;
  producers: readonly EngineService[];
  consumers: readonly (EngineService | 'analytics' | 'store')[];
  description: string;
  /** Record headers every record carries (name: meaning), besides trace context. */
  headers?: Readonly<Record<string, string>>;
}

const day = 86_400_000;

/**
 * Every topic of the pipeline. Retry tiers and dead-letter topics per consumer are derived by the kafka
 * package and are not listed. Compaction is never used: a key (UETR) has many records, all of them needed.
 */
export const topics = {
  'rp.directdebit.received.v1': {
    key: 'uetr',
    value: 'DirectDebit',
    partitions: 12,
    retentionMs: 7 * day,
    cleanupPolicy: 'delete',
    producers: ['ingress'],
    consumers: ['validator'],
    description: 'Outbound direct debits as banks submitted them, after schema validation.',
  },
  'rp.directdebit.accepted.v1': {
    key: 'uetr',
    value: 'DirectDebit',
    partitions: 12,
    retentionMs: 7 * day,
    cleanupPolicy: 'delete',
    producers: ['validator'],
    consumers: ['scheduler'],
    description: 'Direct debits that passed CDV, limits and business rules, waiting for the debit window.',
  },
  'rp.directdebit.due.v1': {
    key: 'uetr',
    value: 'DirectDebit',
    partitions: 12,
    retentionMs: 7 * day,
    cleanupPolicy: 'delete',
    producers: ['scheduler'],
    consumers: ['dispatcher'],
    description:
      'Direct debits released from the queue in the debit window, to deliver to the actioning bank.',
  },
  'rp.statusreport.outbound.v1': {
    key: 'uetr',
    value: 'PaymentStatusReport',
    partitions: 12,
    retentionMs: 7 * day,
    cleanupPolicy: 'delete',
    producers: ['validator'],
    consumers: ['dispatcher'],
    description:
      "The engine's ACCP or RJCT reports, to deliver to the initiating bank (outboundDirectDebitResponse).",
  },
  'rp.statusreport.received.v1': {
    key: 'uetr',
    value: 'PaymentStatusReport',
    partitions: 12,
    retentionMs: 7 * day,
    cleanupPolicy: 'delete',
    producers: ['ingress'],
    consumers: ['validator'],
    description:
      "The actioning bank's reports (inboundDirectDebitResponse): debited (ACSC) or unpaid (RJCT).",
  },
  'rp.credittransfer.received.v1': {
    key: 'uetr',
    value: 'CreditTransfer',
    partitions: 12,
    retentionMs: 7 * day,
    cleanupPolicy: 'delete',
    producers: ['ingress'],
    consumers: ['validator'],
    description: 'Credit transfer authorisations the switch received (inboundCreditTransferAuthorization).',
  },
  'rp.credittransfer.accepted.v1': {
    key: 'uetr',
    value: 'CreditTransfer',
    partitions: 12,
    retentionMs: 7 * day,
    cleanupPolicy: 'delete',
    producers: ['validator'],
    consumers: ['dispatcher'],
    description:
      "Validated credit transfer authorisations, for delivery to the creditor's bank (store-and-forward until it answers 202).",
  },
  'rp.transaction.state.v1': {
    key: 'uetr',
    value: 'TransactionStateChanged',
    partitions: 12,
    retentionMs: 30 * day,
    cleanupPolicy: 'delete',
    producers: ['ingress', 'validator', 'scheduler', 'dispatcher'],
    consumers: ['tracker'],
    description: "Every state change of every transaction, in order per UETR: the flow's system of record.",
  },
  'rp.events.v1': {
    key: 'uetr',
    value: 'EventPosting',
    partitions: 12,
    retentionMs: 30 * day,
    cleanupPolicy: 'delete',
    producers: ['tracker'],
    consumers: ['event-publisher', 'analytics'],
    description:
      'The event postings (TRANSACTION_STATE and ESM_STATE) as sent to banks, for delivery, replay and analytics.',
    headers: {
      'rp-posting-id':
        "The posting's event id, the webhook-id a bank gets: EVT and 32 hex digits of the state change's id for TRANSACTION_STATE (its messageInfo.messageIdentification), ESM and the same digits for that change's ESM_STATE posting.",
    },
  },
  'rp.reconciliation.v1': {
    key: 'uetr',
    value: 'ReconciliationItem',
    partitions: 12,
    retentionMs: 90 * day,
    cleanupPolicy: 'delete',
    producers: ['scheduler'],
    consumers: ['store', 'analytics'],
    description:
      'Transactions unresolved when the reconciliation window closed, with the spec section 7 row.',
  },
  'rp.delivery.outcome.v1': {
    key: 'uetr',
    value: 'DeliveryOutcome',
    partitions: 12,
    retentionMs: 7 * day,
    cleanupPolicy: 'delete',
    producers: ['dispatcher'],
    consumers: ['scheduler', 'tracker'],
    description:
      "The outcome of every HTTP delivery attempt of the dispatcher to a bank (event postings are logged in the event-publisher's own delivery log).",
  },
} as const satisfies Record<string, TopicDefinition>;

export type TopicName = keyof typeof topics;

/** The message name of a topic's values. */
export type TopicValueName<T extends TopicName> = (typeof topics)[T]['value'];

/** The payload type of a topic's values: a handler of topic T receives TopicValue<T>. */
export type TopicValue<T extends TopicName> = Messages[TopicValueName<T>];

export const topicNames = Object.keys(topics) as TopicName[];

/** The schema registry subject of a topic's values (TopicNameStrategy). */
export function valueSubject(topic: string): string {
  return `${topic}-value`;
}

/** Subject to message name for every topic (or the ones given): what registerSchemas registers. */
export function topicSubjects(names: readonly TopicName[] = topicNames): Record<string, MessageName> {
  return Object.fromEntries(names.map((name) => [valueSubject(name), topics[name].value]));
}
