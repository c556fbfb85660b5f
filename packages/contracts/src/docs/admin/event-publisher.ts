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
  uuid,
} from './shape.ts';

/**
 * The event publisher's admin API (`services/event-publisher/src/app.ts`): replays of event postings to a
 * bank, a posting's delivery log per bank, and the lanes where postings wait for a bank.
 */

/** How the publisher writes a UUID it reads (UETRs: the record key or the posting's own). */
const uetr: Json = { ...uuid, description: "The transaction's UETR." };

const memberId: Json = { type: 'string', minLength: 1, description: "The bank's member id (PARTICIPANTS)." };

/** A posting's id: `webhook-id` of every attempt and replay. */
const eventId: Json = {
  type: 'string',
  minLength: 1,
  description:
    "The posting's event id, the webhook-id the bank sees: a TRANSACTION_STATE posting's messageInfo.messageIdentification (from the tracker: `EVT` and the 32 hex digits of the state change's id), an ESM_STATE posting's `ESM` and 32 hex digits.",
  examples: ['EVT4b9e0c8f2d6a4e1f9c3b7a5d8e2f1c6b'],
};

const eventName: Json = {
  type: 'string',
  pattern: '^(TRANSACTION_STATE|ESM_STATE)_[A-Z][A-Z0-9_]*$',
  description: '`TRANSACTION_STATE_<type>` or `ESM_STATE_<transactionState>`.',
  examples: ['TRANSACTION_STATE_DEBIT_REQUEST_RECEIVED', 'ESM_STATE_RECEIVE_PENDING'],
};

const nonNegative: Json = { type: 'integer', minimum: 0 };

/** The RFC 3339 date-times the replay parser takes: `T` and `Z` upper case, an offset, no leap second. */
const replayInstant = (description: string): Json => ({
  ...dateTime,
  pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d+)?(Z|[+-]\\d{2}:\\d{2})$',
  description,
  examples: ['2026-03-02T07:00:00Z'],
});

const logOutcomes = ['pending', 'delivered', 'failed', 'expired'] as const;

/** The members every bank's view has; the three shapes of `EventsBankDelivery` narrow them. */
const bankDeliveryMembers: Record<string, Json> = {
  memberId,
  outcome: { type: 'string' },
  attemptCount: {
    ...nonNegative,
    description: 'Attempts ever made to this bank (the `attempts` list keeps the newest 20).',
  },
  attempts: {
    type: 'array',
    maxItems: 20,
    items: schemaRef('EventsDeliveryAttempt'),
    description: 'The newest attempts (at most 20), oldest first.',
  },
  createdAt: { ...dateTime, description: 'When the first attempt was made (the log entry was created).' },
  updatedAt: { ...dateTime, description: 'When the latest attempt or outcome was recorded.' },
  completedAt: {
    ...dateTime,
    description:
      'When a final outcome (delivered, failed, expired) was last recorded. Kept when a later attempt (a replay refused with a retryable answer) makes the outcome pending again.',
  },
  queuePosition: {
    ...nonNegative,
    description: "Postings ahead of this one in the bank's lane for the transaction (0: it is the head).",
  },
  nextAttemptAt: {
    ...dateTime,
    description: "When the lane's head is tried next (the head is this posting when queuePosition is 0).",
  },
};

const queueMembers = ['queuePosition', 'nextAttemptAt'];

const schemas: Record<string, Json> = {
  EventsReplayRequest: {
    description:
      "Which postings to send a bank again: one transaction's (`memberId`, `uetr`), or those produced in [`from`, `to`) (`memberId`, `from`, `to`). Any other member, or `uetr` together with `from` or `to`, is refused (422).",
    oneOf: [
      {
        title: 'One transaction',
        type: 'object',
        required: ['memberId', 'uetr'],
        properties: {
          memberId: { ...memberId, description: 'The bank to replay to: a participant with an events URL.' },
          uetr: {
            ...uuid,
            pattern: '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$',
            description:
              "The transaction whose postings to the bank are replayed (any case; compared in lower case). Every one of its postings the bank's delivery log holds, in topic order.",
          },
        },
        additionalProperties: false,
      },
      {
        title: 'A time range',
        type: 'object',
        required: ['memberId', 'from', 'to'],
        properties: {
          memberId: { ...memberId, description: 'The bank to replay to: a participant with an events URL.' },
          from: replayInstant(
            'Inclusive: postings the tracker produced at or after this instant (the record timestamp on rp.events.v1). RFC 3339 with `T`, and `Z` or a numeric offset.',
          ),
          to: replayInstant(
            'Exclusive, and later than `from`. RFC 3339 with `T`, and `Z` or a numeric offset.',
          ),
        },
        additionalProperties: false,
      },
    ],
  },
  EventsReplayResult: {
    type: 'object',
    description:
      'What was queued for the bank. `truncated` is true exactly when `resumeFrom` is present. Queued and unavailable together are at most EVENTS_REPLAY_MAX.',
    required: ['memberId', 'queued', 'unavailable', 'transactions', 'eventIds', 'truncated'],
    properties: {
      memberId: { ...memberId, description: 'The bank, as given.' },
      queued: { ...nonNegative, description: 'Postings queued for the bank again.' },
      unavailable: {
        ...nonNegative,
        description:
          'Postings the bank was sent that could not be read again from rp.events.v1 (past its retention, or its record no longer holds the posting): not queued.',
      },
      transactions: { ...nonNegative, description: 'Transactions (lanes) the queued postings belong to.' },
      eventIds: {
        type: 'array',
        maxItems: 100,
        items: eventId,
        description:
          'The first 100 event ids queued, in the order they were selected (topic order for a transaction; production time for a range).',
      },
      truncated: {
        type: 'boolean',
        description: 'More postings matched than one replay takes (EVENTS_REPLAY_MAX, default 10,000).',
      },
      resumeFrom: {
        ...dateTime,
        description:
          'Only when truncated: the production time of the first posting left out. Replay `{ memberId, from: resumeFrom, to }` to go on (postings produced at that same instant are sent again; the bank deduplicates). For a transaction replay this range takes every transaction of the bank.',
      },
    },
    additionalProperties: false,
    if: { properties: { truncated: { const: true } }, required: ['truncated'] },
    // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then
    then: { required: ['resumeFrom'] },
    else: { not: { required: ['resumeFrom'] } },
  },
  EventsPostingSource: {
    type: 'object',
    description: 'Where the posting was read from rp.events.v1: what a replay reads again.',
    required: ['topic', 'partition', 'offset'],
    properties: {
      topic: { type: 'string', minLength: 1, examples: ['rp.events.v1'] },
      partition: nonNegative,
      offset: nonNegative,
    },
    additionalProperties: false,
  },
  EventsDeliveryAttempt: {
    type: 'object',
    description: 'One try at POSTing the posting to the bank, or an outcome recorded without a request.',
    required: ['at', 'httpStatus', 'latencyMs'],
    properties: {
      at: { ...dateTime, description: 'When the attempt started.' },
      httpStatus: {
        type: ['integer', 'null'],
        minimum: 100,
        maximum: 999,
        description:
          "The bank's HTTP status; null without an answer (timeout, refused connection, reset), and for an outcome recorded without an attempt (expiry, no signing secret).",
      },
      latencyMs: {
        type: 'number',
        minimum: 0,
        description:
          'Milliseconds the attempt took, to a tenth; 0 for an outcome recorded without an attempt.',
      },
      error: {
        type: 'string',
        description:
          'Why it was not delivered (`HTTP 503: …`, `no answer within 10000 ms`, `ECONNREFUSED: …`, the expiry); absent on a delivered attempt.',
      },
    },
    additionalProperties: false,
  },
  EventsBankDelivery: {
    description:
      "One bank's side of the posting. `pending`: retries go on; `delivered`: a 2xx; `failed`: a final 4xx; `expired`: undelivered EVENTS_RETRY_MAX_AGE (48 h) after it was queued; `queued`: waiting in its lane without an attempt yet; `unknown`: the stored posting names the bank, but the bank has neither a log entry nor a place in its lane (e.g. it no longer receives events). `queuePosition` and `nextAttemptAt` are there while the posting waits in the bank's lane, whatever the outcome (a delivered posting that was replayed and waits again shows both).",
    oneOf: [
      {
        title: 'Logged',
        type: 'object',
        required: ['memberId', 'outcome', 'attemptCount', 'attempts', 'createdAt', 'updatedAt'],
        properties: {
          ...bankDeliveryMembers,
          outcome: { type: 'string', enum: [...logOutcomes] },
          attemptCount: { ...bankDeliveryMembers.attemptCount, minimum: 1 },
          attempts: { ...bankDeliveryMembers.attempts, minItems: 1 },
        },
        dependentRequired: { queuePosition: ['nextAttemptAt'], nextAttemptAt: ['queuePosition'] },
        additionalProperties: false,
      },
      {
        title: 'Queued',
        type: 'object',
        required: ['memberId', 'outcome', 'attemptCount', 'attempts', ...queueMembers],
        properties: {
          memberId,
          outcome: { const: 'queued' },
          attemptCount: { const: 0 },
          attempts: { type: 'array', maxItems: 0 },
          queuePosition: bankDeliveryMembers.queuePosition as Json,
          nextAttemptAt: bankDeliveryMembers.nextAttemptAt as Json,
        },
        additionalProperties: false,
      },
      {
        title: 'Unknown',
        type: 'object',
        required: ['memberId', 'outcome', 'attemptCount', 'attempts'],
        properties: {
          memberId,
          outcome: { const: 'unknown' },
          attemptCount: { const: 0 },
          attempts: { type: 'array', maxItems: 0 },
        },
        additionalProperties: false,
      },
    ],
  },
  EventsEventDeliveries: {
    type: 'object',
    description:
      'A posting and, per bank, its delivery. `class`, `stageVersion`, `producedAt` and `source` are absent when the posting is known only from log entries written before their source was kept (an upgrade).',
    required: ['eventId', 'uetr', 'eventName', 'deliveries'],
    properties: {
      eventId: {
        ...eventId,
        description: 'The event id (a state-change UUID given in the path is shown as `EVT…`).',
      },
      uetr,
      class: { type: 'string', enum: ['TRANSACTION_STATE', 'ESM_STATE'] },
      eventName,
      stageVersion: {
        type: 'integer',
        minimum: 1,
        description: "TRANSACTION_STATE only: the transaction's sequence number (banks order by it).",
      },
      producedAt: {
        ...dateTime,
        description: 'When the tracker produced the posting (its record timestamp).',
      },
      source: schemaRef('EventsPostingSource'),
      deliveries: {
        type: 'array',
        minItems: 1,
        items: schemaRef('EventsBankDelivery'),
        description:
          'One per bank: the banks the stored posting waits for, then those with a log entry; no other order.',
      },
    },
    dependentRequired: { source: ['producedAt', 'class'], producedAt: ['source'] },
    additionalProperties: false,
  },
  EventsLane: {
    type: 'object',
    description: "One transaction's postings waiting for one bank, oldest first.",
    required: [
      'memberId',
      'uetr',
      'queued',
      'head',
      'headFailures',
      'nextAttemptAt',
      'parkedAt',
      'lastError',
    ],
    properties: {
      memberId,
      uetr,
      queued: { ...nonNegative, description: 'Postings waiting in the lane, the head included.' },
      head: {
        type: ['string', 'null'],
        description: 'The event id of the posting tried next; null when the lane is momentarily empty.',
      },
      headFailures: {
        ...nonNegative,
        description:
          'Failed attempts of the head that its retry schedule counts (an early attempt made because its bank answered again is not counted; the delivery log has every attempt). 0 for a lane queued by a replay or for a paused bank.',
      },
      nextAttemptAt: {
        ...dateTime,
        description:
          'When the head is tried next (it may be tried earlier when its paused bank answers again).',
      },
      parkedAt: { ...dateTime, description: 'When the lane was created: the list is ordered by it.' },
      lastError: {
        type: ['string', 'null'],
        description:
          "The head's last failure (`HTTP 500: …`, `no answer within …`); null when it has not failed.",
      },
    },
    additionalProperties: false,
  },
  EventsLaneList: {
    type: 'object',
    required: ['lanes'],
    properties: {
      lanes: {
        type: 'array',
        maxItems: 500,
        items: schemaRef('EventsLane'),
        description: 'Oldest parked first, at most `limit` of them.',
      },
    },
    additionalProperties: false,
  },
};

const storeOrIdentityUnavailable = (what: string): Json =>
  problem(
    `${what}: MongoDB unavailable or too slow (code STORE_UNAVAILABLE), the service shutting down (SHUTTING_DOWN), or, with ADMIN_AUTH=oauth2, the identity provider's keys could not be fetched (DOWNSTREAM_TIMEOUT). Each with Retry-After: 5.`,
    retryAfterHeader,
  );

const internal = problem(
  'An unexpected failure (code INTERNAL): logged by the service; the detail is a generic sentence.',
);

export const eventPublisherAdmin: AdminServiceDoc = {
  service: 'event-publisher',
  description:
    "Event postings delivered to the banks' /events endpoints: replay postings a bank was sent, read a posting's delivery log per bank, and list the lanes where postings wait for a bank that refused or did not answer.",
  operations: [
    {
      method: 'post',
      path: '/admin/events/replay',
      operationId: 'adminReplayEvents',
      summary: 'Replay postings to a bank',
      description: [
        "Queues again, for one bank, the postings it was sent: one transaction's (`{ memberId, uetr }`) or those the tracker produced in [`from`, `to`) (`{ memberId, from, to }`). They go at the end of their (bank, transaction) lanes with their original event ids (webhook-id), so a bank that deduplicates only fills its gaps; the worker delivers them in topic order per transaction with the same signing, retries and delivery log as any posting. A transaction that still has postings queued gets the replayed ones behind them.",
        "Which postings: the bank's delivery log entries that name their place on rp.events.v1 (entries written before that place was kept are not replayed), oldest first (by offset for a transaction; by production time, then id, for a range). They are read again from the topic while the request waits (up to a minute per topic), so a posting past the topic's retention (30 days) is counted in `unavailable`, not queued; an entry the delivery log no longer holds (past EVENTS_DELIVERY_LOG_RETENTION, when one is set) is not found at all. At most EVENTS_REPLAY_MAX (default 10,000) postings per request: when more matched, `truncated` is true and `resumeFrom` says where to go on. Nothing matching is not an error: 202 with `queued` 0.",
        "Audited (action `events.replay`, actor the token's subject, target the bank and the transaction or range) once the body is valid and the bank receives events, before anything is read or queued, so a replay that fails (503) is audited too; one to a bank that receives no events (404) is refused first and not audited. Not idempotent: each call queues the postings again. A replay that fails part way leaves the lanes it had queued.",
      ].join('\n\n'),
      requestBody: jsonBody(
        'The bank, and the transaction or the time range. The body is read as JSON whatever its Content-Type.',
        schemaRef('EventsReplayRequest'),
      ),
      responses: {
        '202': jsonResponse('Queued for delivery: what was queued.', schemaRef('EventsReplayResult')),
        '400': problem('The body is not JSON (code MALFORMED_JSON), an empty body included.'),
        '404': problem('`memberId` is not a participant with an events URL (code NOT_FOUND). Not audited.'),
        '422': problem(
          'The body is not a valid replay request (code VALIDATION_FAILED); `errors` names each member: `` (the body is not an object), `/<name>` (an unknown member), `/memberId` (missing, empty or not a string), `/uetr` (not a UUID, or given with `from`/`to`), `/from` and `/to` (missing without `uetr`, or not an RFC 3339 date-time with an offset), `/to` (not later than `from`).',
        ),
        '500': internal,
        '503': problem(
          "The replay could not be done now: MongoDB (code STORE_UNAVAILABLE) or Kafka (BROKER_UNAVAILABLE, also when reading a topic took over a minute) unavailable, the service shutting down (SHUTTING_DOWN), or, with ADMIN_AUTH=oauth2, the identity provider's keys could not be fetched (DOWNSTREAM_TIMEOUT). Each with Retry-After: 5. Lanes queued before the failure stay queued; replaying again sends their postings twice (the bank deduplicates).",
          retryAfterHeader,
        ),
      },
    },
    {
      method: 'get',
      path: '/admin/events/lanes',
      operationId: 'adminListEventLanes',
      summary: 'List the lanes of waiting postings',
      description:
        "The (bank, transaction) lanes in MongoDB (every instance's, not only this process's), oldest parked first, optionally of one bank. A lane holds the postings of one transaction that wait for one bank: behind a head that got a retryable answer (`headFailures` > 0, `lastError`), while the bank was paused, or queued by a replay. A lane is deleted once it is empty, so a lane listed may be being worked at that moment. At most `limit` lanes (default 100, at most 500); there is no cursor: filter by bank to see more of one. Not audited.",
      parameters: [
        queryParameter(
          'memberId',
          "Only this bank's lanes. Empty or absent: every bank's. A bank with no lanes (or unknown) gives an empty list.",
          { type: 'string' },
        ),
        queryParameter('limit', 'Most lanes returned: a whole number from 1 to 500.', {
          type: 'integer',
          minimum: 1,
          maximum: 500,
          default: 100,
        }),
      ],
      responses: {
        '200': jsonResponse('The lanes, oldest parked first.', schemaRef('EventsLaneList')),
        '422': problem(
          '`limit` is not a whole number from 1 to 500 (code VALIDATION_FAILED; `errors` has the pointer `/limit`).',
        ),
        '500': internal,
        '503': storeOrIdentityUnavailable('The lanes could not be read'),
      },
    },
    {
      method: 'get',
      path: '/admin/events/{eventId}/deliveries',
      operationId: 'adminGetEventDeliveries',
      summary: "A posting's delivery per bank",
      description:
        "The posting (UETR, class, name, stageVersion, when it was produced and where it is on rp.events.v1) and, for each bank it went to or waits for, its delivery log: the outcome, the attempts (time, HTTP status, latency, error; the newest 20) and, while the posting waits in the bank's lane, its place there and the lane's next attempt. The posting is found by its stored body (postings that waited in a lane or were replayed, kept EVENTS_POSTING_RETENTION after they were last stored) or by the log entries of the banks that receive events now (participants with an events URL): a posting sent at once to a bank that has since lost its events URL is not found. Not audited.",
      parameters: [
        pathParameter(
          'eventId',
          "The posting's event id (`EVT…`, `ESM…`: the webhook-id), or the state change's UUID (any case), which stands for its TRANSACTION_STATE posting `EVT` + its 32 hex digits. Any other text is looked up as it is.",
          { type: 'string', minLength: 1 },
          'EVT4b9e0c8f2d6a4e1f9c3b7a5d8e2f1c6b',
        ),
      ],
      responses: {
        '200': jsonResponse('The posting and its delivery per bank.', schemaRef('EventsEventDeliveries')),
        '404': problem(
          'No posting with this id was sent to, or waits for, any bank that receives events (code NOT_FOUND).',
        ),
        '500': internal,
        '503': storeOrIdentityUnavailable('The posting or its log could not be read'),
      },
    },
  ],
  schemas,
};
