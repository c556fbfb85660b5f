import { transactionEventTypes, transactionStates } from '../../event-types.ts';
import { bankPaths } from '../../http/endpoints.ts';
import {
  type AdminServiceDoc,
  dateTime,
  type Json,
  jsonBody,
  jsonResponse,
  pathParameter,
  problem,
  queryParameter,
  retryAfterHeader,
  schemaRef,
} from './shape.ts';

/**
 * The tracker's admin API (services/tracker: `createAdminRoutes` in app.ts, `createDeadLetterRoutes` in
 * dead-letter-routes.ts, both mounted behind the operator guard in service.ts): a transaction's
 * snapshot and event postings, the transaction search, every consumer group's dead letters with their
 * redrive, and the operator audit trail.
 */

/** The UETR check of the routes (`uetrParameter`): a UUID in either case, answered in lower case. */
const uetrPattern = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';
/** `instantQuery` (`parseInstant` with dates and optional seconds): an RFC 3339 time with its offset, or a date. */
const instantPattern = '^\\d{4}-\\d{2}-\\d{2}(T\\d{2}:\\d{2}(:\\d{2}(\\.\\d+)?)?(Z|[+-]\\d{2}:\\d{2}))?$';
/** A dead-letter record's id: `<partition>:<offset>` on the dead-letter topic. */
const recordIdPattern = '^\\d+:\\d+$';

const nonNegativeInteger: Json = { type: 'integer', minimum: 0 };
const lowerCaseUuid: Json = {
  type: 'string',
  format: 'uuid',
  pattern: '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$',
};

/** The endpoints a snapshot's delivery attempt names: the bank path without its slash, or `unknown`. */
const attemptEndpoints = [...Object.values(bankPaths).map((path) => path.replace(/^\//, '')), 'unknown'];

const storeUnavailable = problem(
  'The transaction store (MongoDB) is unavailable, timed out or is closing (code STORE_UNAVAILABLE or SHUTTING_DOWN); retry after the Retry-After (5 s).',
  retryAfterHeader,
);
const brokerUnavailable = problem(
  'Kafka is unavailable, or reading the dead-letter topic took over 30 s (code BROKER_UNAVAILABLE); retry after the Retry-After (5 s).',
  retryAfterHeader,
);
const brokerOrStoreUnavailable = problem(
  'Kafka is unavailable or reading the dead-letter topic took over 30 s (code BROKER_UNAVAILABLE), or the audit store (MongoDB) is (STORE_UNAVAILABLE, SHUTTING_DOWN); retry after the Retry-After (5 s).',
  retryAfterHeader,
);
const internal = (what: string, codes = 'INTERNAL') =>
  problem(`An unexpected failure (code ${codes}: ${what}); the detail says only that.`);

const uetrParameter = pathParameter(
  'uetr',
  "The transaction's UETR: a UUID, in either case (it is looked up in lower case). Anything else is a 422 naming /uetr.",
  { type: 'string', format: 'uuid', pattern: uetrPattern },
  'eb9a5b3c-8c5d-4d3b-9a4e-2f1c0d7e6a55',
);

const notRecorded =
  'No transaction with this UETR: `no transaction <uetr>`, or, when the ingress claimed the UETR but the tracker has not applied its first state change (it is behind, or the message never became durable and its sender was answered 503), `no transaction <uetr> recorded yet: the ingress received its <kind> at <instant>, ...`.';

const invalidUetr = problem('The UETR is not a UUID: errors names /uetr.');

const topicParameter = pathParameter(
  'topic',
  "A dead-letter topic, `<consumer group>.dlq`, as GET /admin/dead-letters lists it (any group's on the cluster, not only the tracker's). A name not among them is a 404.",
  { type: 'string', minLength: 1 },
  'tracker.rp.transaction.state.v1.dlq',
);

const stateSchemaName = 'TrackerTransactionState';
const stateOrNull: Json = { anyOf: [schemaRef(stateSchemaName), { type: 'null' }] };

/** The members a snapshot and its summary share (`toSummary` in @rp/store). */
const summaryProperties: Json = {
  uetr: { ...lowerCaseUuid, description: "The transaction's UETR (the snapshot's _id), lower case." },
  state: {
    ...stateOrNull,
    description:
      'The state the last applied change reached. Null only while delivery attempts were recorded before the first state change.',
  },
  version: { ...nonNegativeInteger, description: 'How many state changes the snapshot holds.' },
  lastSeq: {
    ...nonNegativeInteger,
    description:
      "The sequence number of the last change applied (the postings' stageVersion); 0 before the first.",
  },
  endToEndIdentification: {
    type: 'string',
    description: "The bank's end-to-end id; absent until a change carrying it is applied.",
  },
  debtorAgentMemberId: {
    type: 'string',
    description: "The debtor's bank; absent when its payload names none.",
  },
  creditorAgentMemberId: {
    type: 'string',
    description: "The creditor's bank; absent when its payload names none.",
  },
  deliveryAttemptCount: {
    ...nonNegativeInteger,
    description: 'Every delivery attempt ever recorded, including those no longer kept in deliveryAttempts.',
  },
  createdAt: {
    ...dateTime,
    description: 'When the first state change (or first delivery attempt) happened.',
  },
  updatedAt: { ...dateTime, description: 'The latest change or attempt time it holds.' },
};
const summaryRequired = [
  'uetr',
  'state',
  'version',
  'lastSeq',
  'deliveryAttemptCount',
  'createdAt',
  'updatedAt',
];

const schemas: Record<string, Json> = {
  [stateSchemaName]: {
    type: 'string',
    description: "A transaction's state, as the tracker's transition table knows it.",
    enum: Object.keys(transactionStates),
  },
  TrackerTransactionEventType: {
    type: 'string',
    description: 'The event type of a state change the tracker applied.',
    enum: Object.keys(transactionEventTypes),
  },
  TrackerHistoryEntry: {
    type: 'object',
    description: 'One applied state change.',
    required: ['eventId', 'seq', 'from', 'to', 'eventType', 'at', 'service'],
    properties: {
      eventId: {
        type: 'string',
        format: 'uuid',
        description: "The change's event id (a UUID v5 of the UETR and event type); its postings carry it.",
      },
      seq: { type: 'integer', minimum: 1, description: 'Its sequence number: 1, 2, 3, ... in order.' },
      from: { ...stateOrNull, description: 'The state left; null for the first change.' },
      to: schemaRef(stateSchemaName),
      eventType: schemaRef('TrackerTransactionEventType'),
      at: { ...dateTime, description: 'When the change happened (its occurredAt).' },
      service: {
        type: 'string',
        description:
          "The service that emitted it (ingress, validator, scheduler, dispatcher, ...), or `tracker` for a delivery the tracker applied itself because the bank's report came first.",
      },
    },
    additionalProperties: false,
  },
  TrackerTransactionMessage: {
    type: 'object',
    description:
      'A message of the transaction: its own DirectDebit or CreditTransfer (first change), or a status report.',
    required: ['kind', 'messageIdentification', 'at', 'bodyJson'],
    properties: {
      kind: {
        type: 'string',
        description: 'What the message is: DirectDebit, CreditTransfer or PaymentStatusReport.',
      },
      messageIdentification: { type: 'string' },
      at: { ...dateTime, description: 'When the change that brought it happened.' },
      bodyJson: {
        type: 'string',
        contentMediaType: 'application/json',
        description:
          'The message as JSON text, with exact amounts (kept as text so no user-supplied key becomes a field name).',
      },
    },
    additionalProperties: false,
  },
  TrackerDeliveryAttempt: {
    type: 'object',
    description: "One try at delivering one of the transaction's messages to a bank.",
    required: ['at', 'messageIdentification', 'memberId', 'endpoint', 'httpStatus', 'latencyMs', 'outcome'],
    properties: {
      at: dateTime,
      messageIdentification: { type: 'string', description: 'The message delivered.' },
      memberId: { type: 'string', description: 'The bank called.' },
      endpoint: {
        type: 'string',
        enum: attemptEndpoints,
        description: 'The bank endpoint, its path without the leading slash.',
      },
      httpStatus: {
        type: ['integer', 'null'],
        description: "The bank's HTTP status; null when it did not answer (timeout, refused connection).",
      },
      latencyMs: {
        ...nonNegativeInteger,
        description: 'From sending the request to the end of the answer or error.',
      },
      outcome: {
        type: 'string',
        enum: ['accepted', 'retryable', 'final'],
        description:
          'accepted (acknowledged), retryable (tried again) or final (a failure retrying cannot help).',
      },
      error: {
        type: 'string',
        description: 'Why there was no acknowledgement, `<code>: <message>`; absent otherwise.',
      },
    },
    additionalProperties: false,
  },
  TrackerTransactionSummary: {
    type: 'object',
    description: 'A snapshot without its history, messages and delivery attempts: what the search lists.',
    required: summaryRequired,
    properties: summaryProperties,
    additionalProperties: false,
  },
  TrackerTransaction: {
    type: 'object',
    description: "The tracker's snapshot of one transaction.",
    required: [...summaryRequired, 'history', 'messages', 'deliveryAttempts'],
    properties: {
      ...summaryProperties,
      history: {
        type: 'array',
        description: 'Every applied state change, in sequence order.',
        items: schemaRef('TrackerHistoryEntry'),
      },
      messages: {
        type: 'array',
        description: 'The messages the changes brought, in the order they came.',
        items: schemaRef('TrackerTransactionMessage'),
      },
      deliveryAttempts: {
        type: 'array',
        description:
          'The newest delivery attempts (20 by default), oldest first. Event posting deliveries only with TRACKER_RECORD_EVENT_DELIVERIES=true.',
        items: schemaRef('TrackerDeliveryAttempt'),
      },
    },
    additionalProperties: false,
  },
  TrackerTransactionList: {
    type: 'object',
    required: ['transactions'],
    properties: {
      transactions: {
        description: 'Summaries (no history, messages or attempts), newest created first.',
        type: 'array',
        items: schemaRef('TrackerTransactionSummary'),
      },
    },
    additionalProperties: false,
  },
  TrackerEventDelivery: {
    type: 'object',
    description: "One event posting of the transaction at one bank, from the event publisher's delivery log.",
    required: ['eventId', 'memberId', 'eventType', 'outcome', 'attemptCount', 'attempts', 'createdAt'],
    properties: {
      eventId: { type: 'string', description: 'The event id the bank saw (its webhook-id).' },
      memberId: { type: 'string', description: 'The bank the posting went to.' },
      eventType: { type: 'string', description: 'The posting name, e.g. TRANSACTION_STATE_DEBIT_COMPLETED.' },
      outcome: {
        type: 'string',
        enum: ['pending', 'delivered', 'failed', 'expired'],
        description: 'pending while retries go on; the others are final.',
      },
      attemptCount: {
        ...nonNegativeInteger,
        description: 'Every attempt made, including those no longer kept.',
      },
      attempts: {
        type: 'array',
        description: 'The newest attempts, oldest first.',
        items: {
          type: 'object',
          required: ['at', 'httpStatus', 'latencyMs'],
          properties: {
            at: dateTime,
            httpStatus: {
              type: ['integer', 'null'],
              description: "The bank's HTTP status; null when there was none.",
            },
            latencyMs: { type: 'number', minimum: 0 },
            error: {
              type: 'string',
              description: 'Why it was not delivered; absent for a delivered attempt.',
            },
          },
          additionalProperties: false,
        },
      },
      createdAt: { ...dateTime, description: 'The first attempt.' },
      completedAt: { ...dateTime, description: 'When it reached a final outcome; absent while pending.' },
    },
    additionalProperties: false,
  },
  TrackerTransactionEvents: {
    type: 'object',
    required: ['uetr', 'events'],
    properties: {
      uetr: lowerCaseUuid,
      events: {
        type: 'array',
        maxItems: 500,
        description: 'Per posting and bank, oldest first; at most 500.',
        items: schemaRef('TrackerEventDelivery'),
      },
    },
    additionalProperties: false,
  },
  TrackerDeadLetterTopics: {
    type: 'object',
    required: ['topics'],
    properties: {
      topics: {
        type: 'array',
        description: 'Every `<group>.dlq` topic on the cluster, by name.',
        items: {
          type: 'object',
          required: ['topic', 'group', 'records'],
          properties: {
            topic: { type: 'string' },
            group: { type: 'string', description: 'The consumer group (the topic name without .dlq).' },
            records: {
              ...nonNegativeInteger,
              description:
                "Records between each partition's low and high watermark (retention may have removed older ones).",
            },
          },
          additionalProperties: false,
        },
      },
    },
    additionalProperties: false,
  },
  TrackerDeadLetterRecord: {
    type: 'object',
    description:
      'A dead-lettered record: `value` is its value decoded with the writer schema it names (null for a record without a value); when it cannot be decoded (a poison record, or the schema registry is unreachable) `valueBase64` has its bytes instead.',
    required: [
      'id',
      'topic',
      'partition',
      'offset',
      'key',
      'deadLetteredAt',
      'reason',
      'group',
      'origin',
      'attempts',
      'headers',
      'redrivable',
      'redriven',
    ],
    properties: {
      id: {
        type: 'string',
        pattern: recordIdPattern,
        description: '`<partition>:<offset>`: what a redrive names.',
      },
      topic: { type: 'string', description: 'The dead-letter topic.' },
      partition: nonNegativeInteger,
      offset: {
        type: 'string',
        pattern: '^\\d+$',
        description: 'Its offset on the dead-letter topic, as a string.',
      },
      key: { type: 'string', description: "The record's key (UTF-8; empty when it had none)." },
      deadLetteredAt: { ...dateTime, description: 'When it was dead-lettered.' },
      reason: {
        type: 'string',
        enum: ['poison', 'non-retriable', 'retries-exhausted', 'unknown'],
        description:
          'poison (could not be read), non-retriable (the handler refused it for good), retries-exhausted; unknown when the header is missing.',
      },
      group: { type: 'string', description: 'The consumer group that dead-lettered it.' },
      origin: {
        type: 'object',
        description: 'Where the record was first consumed from (empty strings when its headers do not say).',
        required: ['topic', 'partition', 'offset', 'timestamp'],
        properties: {
          topic: { type: 'string' },
          partition: { type: 'integer' },
          offset: { type: 'string', pattern: '^\\d*$' },
          timestamp: {
            description: 'When it was written to the origin topic.',
            anyOf: [dateTime, { const: '' }],
          },
        },
        additionalProperties: false,
      },
      attempts: { ...nonNegativeInteger, description: 'Handler failures before it was dead-lettered.' },
      firstFailureAt: {
        ...dateTime,
        description: 'When the handler first failed on it; absent when unknown.',
      },
      errorCode: {
        type: 'string',
        description: 'The last error code (e.g. ILLEGAL_TRANSITION); absent when none.',
      },
      errorMessage: { type: 'string', description: 'The last error message; absent when none.' },
      headers: {
        type: 'object',
        description:
          "The record's own headers (traceparent, rp-state, ...), without the retry and dead-letter ones.",
        additionalProperties: { type: 'string' },
      },
      value: {
        description:
          'The value decoded with the schema it names: any JSON value (for the engine topics a record, e.g. a TransactionStateChanged); null when the record had no value.',
      },
      valueBase64: {
        type: 'string',
        contentEncoding: 'base64',
        description: 'The raw bytes, when they cannot be decoded.',
      },
      redrivable: {
        type: 'boolean',
        description:
          'Whether it can go back to its group: false when its origin is a retry tier, not a source topic.',
      },
      redriven: {
        description: 'Who redrove it and when; null when it has not been.',
        anyOf: [
          {
            type: 'object',
            required: ['actor', 'at'],
            properties: { actor: { type: 'string' }, at: dateTime },
            additionalProperties: false,
          },
          { type: 'null' },
        ],
      },
    },
    oneOf: [{ required: ['value'] }, { required: ['valueBase64'] }],
    additionalProperties: false,
  },
  TrackerDeadLetterRecords: {
    type: 'object',
    required: ['topic', 'records'],
    properties: {
      topic: { type: 'string' },
      records: { type: 'array', items: schemaRef('TrackerDeadLetterRecord') },
    },
    additionalProperties: false,
  },
  TrackerRedriveRequest: {
    type: 'object',
    description:
      'Which records to redrive: `records` (1 to 1,000 ids, duplicates counted once) or `all: true`, not both. Other members are ignored.',
    properties: {
      operator: {
        type: 'string',
        minLength: 1,
        maxLength: 100,
        pattern: '\\S',
        description:
          "Who asks (trimmed; audited as the actor). Required with ADMIN_AUTH=none; with operator tokens it is ignored and the token's subject is the actor.",
      },
      records: {
        type: 'array',
        minItems: 1,
        maxItems: 1000,
        items: { type: 'string', pattern: recordIdPattern },
        description: 'Record ids, `<partition>:<offset>`.',
      },
      all: { type: 'boolean', description: 'true: every record of the topic (up to the first 10,000 read).' },
    },
    oneOf: [
      { required: ['records'], properties: { all: { const: false } } },
      { required: ['all'], properties: { all: { const: true } }, not: { required: ['records'] } },
    ],
  },
  TrackerRedriveResult: {
    type: 'object',
    required: ['topic', 'redriven', 'alreadyRedriven', 'refused', 'notFound'],
    properties: {
      topic: { type: 'string' },
      redriven: {
        type: 'array',
        items: { type: 'string', pattern: recordIdPattern },
        description: 'Handed back to their group now (each claimed in the audit trail first).',
      },
      alreadyRedriven: {
        type: 'array',
        description: 'Redriven before: who did it, and when. Not sent again.',
        items: {
          type: 'object',
          required: ['id', 'actor', 'at'],
          properties: {
            id: { type: 'string', pattern: recordIdPattern },
            actor: { type: 'string' },
            at: dateTime,
          },
          additionalProperties: false,
        },
      },
      refused: {
        type: 'array',
        description: 'Dead-lettered from a retry tier, not a source topic: they cannot be redriven.',
        items: {
          type: 'object',
          required: ['id', 'detail'],
          properties: { id: { type: 'string', pattern: recordIdPattern }, detail: { type: 'string' } },
          additionalProperties: false,
        },
      },
      notFound: {
        type: 'array',
        items: { type: 'string', pattern: recordIdPattern },
        description: 'Named, but not among the first 10,000 records of the topic.',
      },
    },
    additionalProperties: false,
  },
  TrackerAuditEntry: {
    type: 'object',
    description: 'One operator action.',
    required: ['id', 'actor', 'action', 'target', 'detail', 'at'],
    properties: {
      id: {
        type: 'string',
        description:
          'Names the action when it must happen once, e.g. `dead-letter.redrive:<topic>:<record id>`.',
      },
      actor: {
        type: 'string',
        description: "The operator: the token's subject, or the name the caller gave.",
      },
      action: { type: 'string', description: 'What kind, e.g. dead-letter.redrive.' },
      target: { type: 'string', description: 'What it acted on, e.g. `<topic> <record id>`.' },
      detail: {
        type: 'object',
        description:
          'Anything else kept with it (reason, origin topic and offset, key, counts): plain values.',
        additionalProperties: { type: ['string', 'number', 'boolean'] },
      },
      at: dateTime,
    },
    additionalProperties: false,
  },
  TrackerAuditEntries: {
    type: 'object',
    required: ['entries'],
    properties: {
      entries: { type: 'array', maxItems: 500, items: schemaRef('TrackerAuditEntry') },
    },
    additionalProperties: false,
  },
};

export const trackerAdmin: AdminServiceDoc = {
  service: 'tracker',
  description:
    "The tracker sequences every transaction and keeps its snapshot: read a transaction's state, history, messages and delivery attempts, and its event postings per bank; search transactions. It also serves the cluster's dead letters (every consumer group's), their redrive, and the operator audit trail.",
  operations: [
    {
      method: 'get',
      path: '/admin/transactions/{uetr}',
      operationId: 'adminGetTransaction',
      summary: "A transaction's snapshot",
      description:
        "The tracker's snapshot of the transaction: its state, every applied state change (history, in sequence order), the messages those changes brought (bodies as JSON text) and its newest delivery attempts. The tracker's own snapshot writes still waiting for this transaction are written first, so the snapshot includes every change this tracker instance has applied.",
      parameters: [uetrParameter],
      responses: {
        '200': jsonResponse('The snapshot.', schemaRef('TrackerTransaction')),
        '404': problem(notRecorded),
        '422': invalidUetr,
        '500': internal('e.g. the store refused the read'),
        '503': storeUnavailable,
      },
    },
    {
      method: 'get',
      path: '/admin/transactions/{uetr}/events',
      operationId: 'adminListTransactionEvents',
      summary: "A transaction's event postings per bank",
      description:
        "The transaction's event postings as the banks got them, from the event publisher's delivery log (same database): per posting and bank, the event id the bank saw, the posting name, the outcome (pending, delivered, failed, expired) and the newest attempts, oldest posting first, at most 500. An empty list when the transaction exists but nothing was delivered yet. When no posting is logged yet, the tracker's snapshot writes still waiting for the transaction are written first, as for GET /admin/transactions/{uetr}: a transaction applied moments ago answers its empty list, not a 404.",
      parameters: [uetrParameter],
      responses: {
        '200': jsonResponse('The postings.', schemaRef('TrackerTransactionEvents')),
        '404': problem(`Neither a delivery log entry nor a snapshot. ${notRecorded}`),
        '422': invalidUetr,
        '500': internal('e.g. the store refused the read'),
        '503': storeUnavailable,
      },
    },
    {
      method: 'get',
      path: '/admin/transactions',
      operationId: 'adminSearchTransactions',
      summary: 'Search transactions',
      description:
        'The transactions that match every filter given (end-to-end id, state, creation time), as summaries (no history, messages or attempts; GET /admin/transactions/{uetr} has the whole snapshot), newest created first, at most `limit`: the filters are applied in the one query, so the limit counts only transactions that match. Banks choose the end-to-end id, so several transactions may share it. No parameter at all lists the newest transactions. Empty parameters count as absent (but an empty limit is a 422).',
      parameters: [
        queryParameter('endToEndId', "The bank's end-to-end identification (exact match).", {
          type: 'string',
        }),
        queryParameter(
          'state',
          'Only transactions in this state (TrackerTransactionState); any other name is a 422 naming /state.',
          schemaRef('TrackerTransactionState'),
        ),
        queryParameter(
          'from',
          'Created at or after: an RFC 3339 time with its offset, the seconds optional (2026-11-23T08:00:00+02:00, 2026-11-23T06:00Z; write + as %2B), or a date (2026-11-23, UTC midnight). It must name a real time (not 2025-11-31, not 24:00); anything else is a 422 naming /from.',
          { type: 'string', pattern: instantPattern },
        ),
        queryParameter(
          'to',
          'Created before (exclusive); the same forms as from. Anything else is a 422 naming /to.',
          {
            type: 'string',
            pattern: instantPattern,
          },
        ),
        queryParameter(
          'limit',
          'How many at most: a whole number from 1 to 500. Anything else is a 422 naming /limit.',
          {
            type: 'integer',
            minimum: 1,
            maximum: 500,
            default: 50,
          },
        ),
      ],
      responses: {
        '200': jsonResponse('The transactions found (possibly none).', schemaRef('TrackerTransactionList')),
        '422': problem(
          'state, limit, from or to is not valid: errors names the parameter (/state, /limit, /from, /to).',
        ),
        '500': internal('e.g. the store refused the query'),
        '503': storeUnavailable,
      },
    },
    {
      method: 'get',
      path: '/admin/dead-letters',
      operationId: 'adminListDeadLetterTopics',
      summary: 'Dead-letter topics',
      description:
        "Every consumer group's dead-letter topic on the cluster (`<group>.dlq`, not only the tracker's), sorted by name, with its group and its record count (between each partition's low and high watermark).",
      responses: {
        '200': jsonResponse('The topics (possibly none).', schemaRef('TrackerDeadLetterTopics')),
        '500': internal('e.g. the broker refused the request'),
        '503': brokerUnavailable,
      },
    },
    {
      method: 'get',
      path: '/admin/dead-letters/{topic}',
      operationId: 'adminListDeadLetters',
      summary: "A dead-letter topic's records",
      description:
        "The topic's records as they stand when asked (later arrivals wait for the next call), oldest dead-lettered first, at most `limit`: id (`<partition>:<offset>`), key, reason, when, the origin topic, partition and offset, attempts, the last error code and message, the record's own headers, its value decoded with the schema it names (else valueBase64), whether it can be redriven and who redrove it when. With several partitions and more records than `limit`, the records are the first `limit` read, partition by partition, then sorted: not surely the oldest of all.",
      parameters: [
        topicParameter,
        queryParameter(
          'limit',
          'How many records at most: a whole number from 1 to 1,000. Anything else (an empty value too) is a 422 naming /limit.',
          { type: 'integer', minimum: 1, maximum: 1000, default: 100 },
        ),
      ],
      responses: {
        '200': jsonResponse('The records (possibly none).', schemaRef('TrackerDeadLetterRecords')),
        '404': problem('No such dead-letter topic on the cluster: `no dead-letter topic <topic>`.'),
        '422': problem(
          'limit is not a whole number from 1 to 1,000: errors names /limit (checked before the topic).',
        ),
        '500': internal('e.g. the topic was deleted while being read', 'INTERNAL or CONFIG_INVALID'),
        '503': brokerOrStoreUnavailable,
      },
    },
    {
      method: 'post',
      path: '/admin/dead-letters/{topic}/redrive',
      operationId: 'adminRedriveDeadLetters',
      summary: 'Redrive dead letters',
      description:
        "Hands the named records (or all of them) back to their own consumer group through its first retry tier, due at once and with a fresh attempt count: only that group handles them again, behind its key's waiting records. Each record is redriven once: the redrive is claimed in the operator audit trail first (action dead-letter.redrive, who and when), so a second request lists it under alreadyRedriven. The dead-letter topic is left as it is; a record that fails again is dead-lettered again as a new record. Records are looked for among the first 10,000 of the topic. The body is read as JSON whatever its Content-Type, and checked before the topic.",
      parameters: [topicParameter],
      requestBody: jsonBody('The records to redrive, and who asks.', schemaRef('TrackerRedriveRequest')),
      responses: {
        '200': jsonResponse(
          'What became of each record named: redriven, alreadyRedriven, refused or notFound.',
          schemaRef('TrackerRedriveResult'),
        ),
        '400': problem('The body is not JSON (code MALFORMED_JSON).'),
        '404': problem('No such dead-letter topic on the cluster: `no dead-letter topic <topic>`.'),
        '422': problem(
          'The request is not valid; errors names each problem: `` (not a JSON object), /operator (missing, blank or over 100 characters, without an operator token), /all (not a boolean), /records (missing, empty, over 1,000, or given with all: true), /records/<i> (not `<partition>:<offset>`).',
        ),
        '500': internal('e.g. the broker refused the redriven records; their claims are taken back'),
        '503': problem(
          'Kafka or the audit store (MongoDB) is unavailable (BROKER_UNAVAILABLE, STORE_UNAVAILABLE, SHUTTING_DOWN); ask again later. Nothing was handed back, and the claims made are taken back, whether the audit store failed part way through them or the hand-over to Kafka failed: asking again redrives the records. A claim the store cannot take back either is logged as an error with the id of its audit entry; its record lists under alreadyRedriven until that entry is deleted.',
          retryAfterHeader,
        ),
      },
    },
    {
      method: 'get',
      path: '/admin/audit',
      operationId: 'adminListAuditEntries',
      summary: 'The operator audit trail',
      description:
        "The operator actions recorded (redrives here; the other services' actions too, in the same database), newest first, at most `limit`; only one action's with `action`.",
      parameters: [
        queryParameter(
          'action',
          'Only entries of this action, e.g. dead-letter.redrive; empty or absent: every action.',
          { type: 'string' },
        ),
        queryParameter(
          'limit',
          'How many entries at most: a whole number from 1 to 500. Anything else (an empty value too) is a 422 naming /limit.',
          { type: 'integer', minimum: 1, maximum: 500, default: 100 },
        ),
      ],
      responses: {
        '200': jsonResponse('The entries (possibly none).', schemaRef('TrackerAuditEntries')),
        '422': problem('limit is not a whole number from 1 to 500: errors names /limit.'),
        '500': internal('e.g. the store refused the query'),
        '503': storeUnavailable,
      },
    },
  ],
  schemas,
};
