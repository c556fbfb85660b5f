import { type KnownReconciliationCode, reconciliationRows } from '../../reconciliation.ts';
import {
  type AdminOperation,
  type AdminServiceDoc,
  dateTime,
  type Json,
  jsonResponse,
  problem,
  queryParameter,
  retryAfterHeader,
  schemaRef,
  textResponse,
  uuid,
} from './shape.ts';

/**
 * The scheduler's operators' API (services/scheduler/src/app.ts): the processing windows, the debit
 * queue and the reconciliation report. Checked against the running service by
 * services/scheduler/test/admin-contract.int.test.ts.
 */

/** A local calendar date, `YYYY-MM-DD`, in the windows' time zone. */
const businessDate: Json = { type: 'string', format: 'date', pattern: '^\\d{4}-\\d{2}-\\d{2}$' };
const count: Json = { type: 'integer', minimum: 0 };

/** Page size of the JSON report, and the CSV report's read size (app.ts `maxPage`). */
const maxPage = 1_000;
/** The credits gate stops counting credits in flight here (window-state.ts `inFlightCountLimit`). */
const inFlightCountLimit = 500;

const reconciliationCodes = Object.keys(reconciliationRows) as KnownReconciliationCode[];

const debitWindowStates = ['not-a-business-day', 'before-open', 'awaiting-credits', 'open', 'closed'];

const schemas: Record<string, Json> = {
  SchedulerWindowStatus: {
    type: 'object',
    description:
      "Today's windows (today: the local date of `now` in the windows' time zone, WINDOW_TIMEZONE, default Africa/Johannesburg) and their state. Instants are UTC ISO 8601 strings.",
    required: [
      'now',
      'timeZone',
      'businessDate',
      'isBusinessDay',
      'debitWindow',
      'reconciliationWindow',
      'nextBusinessDate',
    ],
    properties: {
      now: {
        ...dateTime,
        description: "The scheduler's clock (the system clock, or a demo's scaled clock).",
      },
      timeZone: {
        type: 'string',
        description: 'IANA time zone of every business date and window time (WINDOW_TIMEZONE).',
        examples: ['Africa/Johannesburg'],
      },
      businessDate: { ...businessDate, description: 'Today: the local date of `now`, business day or not.' },
      isBusinessDay: {
        type: 'boolean',
        description: 'Whether today is a business day (BUSINESS_DAYS, less BUSINESS_HOLIDAYS).',
      },
      debitWindow: schemaRef('SchedulerDebitWindow'),
      reconciliationWindow: schemaRef('SchedulerReconciliationWindowState'),
      nextBusinessDate: { ...businessDate, description: 'The first business day after today.' },
    },
    additionalProperties: false,
  },
  SchedulerDebitWindow: {
    type: 'object',
    description:
      "Today's debit window. It opens at DEBIT_WINDOW_OPEN once the day's credits are finalised (by an operator, by every credit of the cycle being final, or by the cut-off CREDITS_FINALISED_AT) and closes at DEBIT_WINDOW_CLOSE, or earlier when an operator closes it or the reconciliation window closes.",
    required: ['state', 'opensAt', 'closesAt', 'creditsFinalised'],
    properties: {
      state: {
        type: 'string',
        enum: debitWindowStates,
        description:
          "`open`: today's queued debits are released, and debits made ready go out within RELEASE_DELAY. `awaiting-credits`: within the hours but the credits are not final yet. `before-open`, `not-a-business-day`. `closed`: after DEBIT_WINDOW_CLOSE, closed by an operator, or closed because today's reconciliation window was closed (which an operator's open does not undo).",
      },
      opensAt: {
        ...dateTime,
        description: "DEBIT_WINDOW_OPEN on today's date (whether or not a business day).",
      },
      closesAt: {
        ...dateTime,
        description: "DEBIT_WINDOW_CLOSE on today's date (24:00: the next date's midnight).",
      },
      creditsFinalised: {
        type: 'boolean',
        description:
          "Whether today's credits count as final. Asked of the credits gate whatever the state, so it can be true before the window's hours or on a day off.",
      },
      creditsFinalisedBy: {
        type: 'string',
        enum: ['operator', 'credits', 'cut-off'],
        description:
          'What finalised them: an operator (POST /admin/windows/debit/open), every credit of the cycle reaching a final state (CREDITS_GATE=credits), or the cut-off time. Absent while not finalised.',
      },
      creditsInFlight: {
        type: 'integer',
        minimum: 0,
        maximum: inFlightCountLimit,
        description: `Credits of the cycle not yet final, when the credits gate counted them (counting stops at ${inFlightCountLimit}). Absent when nothing counted them (an operator's open, CREDITS_GATE=operator).`,
      },
      creditsFinalisedAt: {
        ...dateTime,
        description: "The cut-off (CREDITS_FINALISED_AT) on today's date; absent when none is configured.",
      },
      override: {
        type: 'string',
        enum: ['open', 'closed'],
        description:
          "An operator's open or close of today's debit window, which wins over the schedule for the rest of the day; kept in the store, so it survives a restart. Absent when no operator acted today.",
      },
    },
    // creditsFinalisedBy only once they are finalised.
    anyOf: [
      { properties: { creditsFinalised: { const: true } } },
      { not: { required: ['creditsFinalisedBy'] } },
    ],
    additionalProperties: false,
  },
  SchedulerReconciliationWindowState: {
    type: 'object',
    description: "Today's reconciliation window.",
    required: ['closesAt', 'closed'],
    properties: {
      closesAt: {
        ...dateTime,
        description:
          "RECONCILIATION_WINDOW_CLOSE on today's date (24:00: the next date's midnight; the close then runs on the next date's first look at the windows).",
      },
      closed: {
        type: 'boolean',
        description:
          'Whether this scheduler closed it today (on schedule or by an operator). Kept in memory only: false again after a restart.',
      },
      closedAt: {
        ...dateTime,
        description: 'When it was first closed today; present when `closed` is true.',
      },
    },
    // closedAt exactly when closed.
    oneOf: [
      { properties: { closed: { const: true } }, required: ['closedAt'] },
      { properties: { closed: { const: false } }, not: { required: ['closedAt'] } },
    ],
    additionalProperties: false,
  },
  SchedulerQueue: {
    type: 'object',
    description: 'The debit queue in the store (debit_queue).',
    required: ['depth', 'byWindow', 'awaitingStatusReport'],
    properties: {
      depth: { ...count, description: 'Debits queued for any debit window.' },
      byWindow: {
        type: 'object',
        description:
          "Debits queued for today's debit window and for the next business day's, by business date (`YYYY-MM-DD`): always exactly those two members (today's is there even on a day off).",
        propertyNames: { pattern: '^\\d{4}-\\d{2}-\\d{2}$' },
        additionalProperties: count,
        minProperties: 2,
        maxProperties: 2,
      },
      awaitingStatusReport: {
        ...count,
        description:
          'Debits with one half only in the store: an accepted debit whose ACCP status report the initiating bank has not acknowledged yet, or an acknowledgement whose debit has not arrived (including acknowledgements of rejection reports, which never complete). Accepted on-us debits still held in memory (for SCHEDULER_ACCEPTED_HOLD, 3 s, up to about twice that) are not counted.',
      },
    },
    additionalProperties: false,
  },
  SchedulerReconciliationSummary: {
    type: 'object',
    description: 'What a close of the reconciliation window did.',
    required: ['windowId', 'window', 'raised', 'alreadyRaised', 'waiting', 'byRow'],
    properties: {
      windowId: { ...businessDate, description: 'The window closed: its business date.' },
      window: {
        type: 'object',
        required: ['businessDate', 'opensAt', 'closesAt'],
        properties: {
          businessDate,
          opensAt: {
            ...dateTime,
            description: "The previous business day's scheduled reconciliation close: the window's start.",
          },
          closesAt: {
            ...dateTime,
            description:
              "The close: the moment the operator asked for it (today's window), or the day's scheduled close (a past day's).",
          },
        },
        additionalProperties: false,
      },
      raised: { ...count, description: 'Reconciliation items raised by this close.' },
      alreadyRaised: {
        ...count,
        description:
          'Unresolved transactions already raised for this window by an earlier close (not raised again).',
      },
      waiting: {
        ...count,
        description:
          "Unresolved debits waiting for a later debit window at the close (queued for a later date, acknowledged after the day's debit window closed, or released since in a later window): not raised.",
      },
      byRow: {
        type: 'object',
        description:
          'Items raised by this close, by row of the spec section 7 table ("1" to "10"); rows with none are absent.',
        propertyNames: { pattern: '^([1-9]|10)$' },
        additionalProperties: { type: 'integer', minimum: 1 },
      },
    },
    additionalProperties: false,
  },
  SchedulerReconciliationPage: {
    type: 'object',
    description: "One page of a reconciliation window's items, in UETR order.",
    required: ['windowId', 'generatedAt', 'open', 'items'],
    properties: {
      windowId: businessDate,
      generatedAt: { ...dateTime, description: "The scheduler's clock when the page was read." },
      open: { ...count, description: "The window's items not resolved yet (all pages)." },
      items: { type: 'array', maxItems: maxPage, items: schemaRef('SchedulerReconciliationItem') },
      next: {
        ...uuid,
        description:
          "Pass as `after` for the next page (the last item's UETR); absent on the last page. A page exactly as long as `limit` that ends the window has no `next`.",
      },
    },
    additionalProperties: false,
  },
  SchedulerReconciliationItem: {
    type: 'object',
    description:
      'A transaction left unresolved when a reconciliation window closed, as stored (one per window and UETR).',
    required: ['windowId', 'uetr', 'row', 'code', 'text', 'stateAtClose', 'status', 'createdAt'],
    properties: {
      windowId: { ...businessDate, description: 'The business date of the window whose close raised it.' },
      uetr: uuid,
      row: { type: 'integer', minimum: 1, maximum: 10, description: 'Row of the spec section 7 table.' },
      code: { type: 'string', enum: reconciliationCodes, description: 'The row as a code.' },
      text: { type: 'string', description: "The row's condition in words." },
      stateAtClose: {
        type: ['string', 'null'],
        description: "The transaction's state when the window closed (null when it was not recorded).",
      },
      status: {
        type: 'string',
        enum: ['open', 'resolved'],
        description: '`resolved` once an operator resolved it.',
      },
      createdAt: { ...dateTime, description: 'When the close raised it.' },
      resolvedAt: { ...dateTime, description: 'When it was resolved; absent while open.' },
      resolution: { type: 'string', minLength: 1, description: "The operator's note; absent while open." },
    },
    additionalProperties: false,
  },
};

const windowParameter = queryParameter(
  'window',
  "The reconciliation window: its business date, `YYYY-MM-DD` (any real calendar date; it is not checked to be a business day). Absent or empty: today's local date in the windows' time zone (Africa/Johannesburg by default). Anything else (`yesterday`, `2026-02-30`) is a 422 pointing at `/window`.",
  { ...businessDate },
);

const storeUnavailable =
  'The store (MongoDB) did not answer in time or refused the connection (`STORE_UNAVAILABLE`), or the service is shutting down (`SHUTTING_DOWN`); retry after the Retry-After (5 s).';
const internal = problem(
  'An unexpected failure (a command the store or the broker refused for good); the detail is generic and the cause is logged.',
);
const invalidWindow = problem(
  'A query parameter is invalid (`VALIDATION_FAILED`): `errors[0].pointer` names it (`/window`: not a date `YYYY-MM-DD`).',
);

const windowsStatusResponse = (description: string): Json =>
  jsonResponse(description, schemaRef('SchedulerWindowStatus'));

const operations: AdminOperation[] = [
  {
    method: 'get',
    path: '/admin/windows',
    operationId: 'adminGetWindows',
    summary: "Today's debit and reconciliation windows",
    description:
      "Today's windows in the windows' time zone (WINDOW_TIMEZONE, default Africa/Johannesburg): whether today is a business day, when the debit window opens and closes (DEBIT_WINDOW_OPEN 08:00, DEBIT_WINDOW_CLOSE 17:00 by default) and its state, whether the day's credits are finalised and by what (`creditsFinalisedBy`), how many credits of the cycle are still in flight while the window waits for them (counted up to 500), an operator's override, and the reconciliation window's close (RECONCILIATION_WINDOW_CLOSE, 18:00 by default) and whether it has run. Reads only; with CREDITS_GATE=credits it asks the store for the credits in flight.",
    responses: {
      '200': windowsStatusResponse("Today's windows."),
      '500': internal,
      '503': problem(storeUnavailable, retryAfterHeader),
    },
  },
  {
    method: 'post',
    path: '/admin/windows/debit/open',
    operationId: 'adminOpenDebitWindow',
    summary: "Open today's debit window now (declare credits final)",
    description:
      "Declares today's credits final and opens today's debit window now, whatever the schedule (even before DEBIT_WINDOW_OPEN, after DEBIT_WINDOW_CLOSE or on a day off), then releases the debits queued for today's window in the queue's order before it answers (a long queue takes a while); the answer is the windows' state after that. No request body is read. The override is written to the store and to the audit trail (`window.debit.open`, under the token's subject) before it takes effect, so it survives a restart; if that write fails nothing changes (503). Idempotent: opening an open window changes nothing more, but every call is audited. Once today's reconciliation window has closed (`reconciliationWindow.closed`), the day's debit window cannot open again: 409, and nothing is kept or audited. On a day off nothing queued for a business day is released. If the release fails (broker or store unavailable, 503) the window is open all the same and the next release sends the rest.",
    responses: {
      '200': windowsStatusResponse(
        "Today's windows once the window is open and today's queued debits released (`debitWindow.override`: `open`).",
      ),
      '409': problem(
        "`CONFLICT`: today's reconciliation window has closed (the detail says when); the debit window stays closed and nothing was kept or audited.",
      ),
      '500': internal,
      '503': problem(
        `${storeUnavailable} Also when the broker did not take the released debits (\`BROKER_UNAVAILABLE\`): the window is open then, and what was not sent is sent by the next release.`,
        retryAfterHeader,
      ),
    },
  },
  {
    method: 'post',
    path: '/admin/windows/debit/close',
    operationId: 'adminCloseDebitWindow',
    summary: "Close today's debit window for the rest of the day",
    description:
      "Closes today's debit window now, for the rest of the day: a release in progress stops before its next batch, and debits that become ready from now on are queued for the next business day's window. No request body is read. The override is written to the store and to the audit trail (`window.debit.close`, under the token's subject) before it takes effect, so it survives a restart; if that write fails nothing changes (503). Idempotent (every call is audited). A later POST /admin/windows/debit/open opens it again.",
    responses: {
      '200': windowsStatusResponse("Today's windows (`debitWindow.state`: `closed`, `override`: `closed`)."),
      '500': internal,
      '503': problem(storeUnavailable, retryAfterHeader),
    },
  },
  {
    method: 'post',
    path: '/admin/windows/reconciliation/close',
    operationId: 'adminCloseReconciliationWindow',
    summary: "Close a reconciliation window: today's now, or a past business day's",
    description:
      "Closes the reconciliation window of today's local date now (on a day off too), or with `window` that of a past business day at its scheduled close (RECONCILIATION_WINDOW_CLOSE on that date): every transaction created before the close, unresolved then (its state at the close, from its history) and not final now, becomes a reconciliation item with the spec section 7 row of its state at the close (RECONCILIATION_REQUIRED, the item on rp.reconciliation.v1, the item stored), except debits waiting for a later debit window; their debits are withdrawn from the queue. Today's debit window closes with it. The close is kept in the store once it has succeeded, so a restart neither opens that day's debit window again nor runs its scheduled close; the scheduler runs the last business day's close itself on its first look at the windows if it was missed, and a past day's is for one before that. It waits for any window work in progress, then what is left of RECONCILIATION_SETTLE, and can take a while on a large day. No request body is read. Idempotent: a second close raises nothing twice (`alreadyRaised` counts what an earlier one raised). Audited (`window.reconciliation.close`, with the counts) once the close has succeeded. A close that fails half way (503) keeps what it raised; calling again raises the rest.",
    parameters: [
      queryParameter(
        'window',
        "The window to close: its business date, `YYYY-MM-DD`, today's or a past business day's. Absent or empty: today's local date in the windows' time zone. A date that is not one (`yesterday`, `2026-02-30`), after today, or a past day that was not a business day is a 422 pointing at `/window`.",
        { ...businessDate },
      ),
    ],
    responses: {
      '200': jsonResponse('What this close raised.', schemaRef('SchedulerReconciliationSummary')),
      '422': problem(
        'The window is not one that can be closed (`VALIDATION_FAILED`): `errors[0].pointer` is `/window` (not a date `YYYY-MM-DD`, a date after today, or a past day that was not a business day).',
      ),
      '500': internal,
      '503': problem(
        `${storeUnavailable} Also when the broker did not take the items or state changes (\`BROKER_UNAVAILABLE\`).`,
        retryAfterHeader,
      ),
    },
  },
  {
    method: 'get',
    path: '/admin/queue',
    operationId: 'adminGetQueue',
    summary: 'The debit queue',
    description:
      "Debits queued (all windows, today's window and the next business day's, by business date in the windows' time zone) and debits waiting for the other half of their intake (the initiating bank's acknowledgement of the ACCP status report). Counted in the store at the time of the call; also updates the rp_scheduler_queue_depth gauge. Reads only.",
    responses: {
      '200': jsonResponse('The queue.', schemaRef('SchedulerQueue')),
      '500': internal,
      '503': problem(storeUnavailable, retryAfterHeader),
    },
  },
  {
    method: 'get',
    path: '/admin/reconciliation',
    operationId: 'adminGetReconciliation',
    summary: "A reconciliation window's items, a page at a time",
    description:
      "The items a reconciliation window's close raised, in UETR order, `limit` at a time (default and maximum 1000), with the count of the window's items still open. Pass the page's `next` as `after` for the following page; the last page has no `next`. A window with no items (or not closed yet) answers an empty page. Reads only.",
    parameters: [
      windowParameter,
      queryParameter(
        'limit',
        `Items per page: a whole number from 1 to ${maxPage}; default ${maxPage}. Anything else (0, 1001, 1.5, \`abc\`, an empty value) is a 422 pointing at \`/limit\`.`,
        { type: 'integer', minimum: 1, maximum: maxPage, default: maxPage },
      ),
      queryParameter(
        'after',
        "The previous page's `next` (a UETR): the page starts after it. Not validated: items are compared by UETR as text.",
        { type: 'string' },
      ),
    ],
    responses: {
      '200': jsonResponse('One page of the window.', schemaRef('SchedulerReconciliationPage')),
      '422': problem(
        'A query parameter is invalid (`VALIDATION_FAILED`): `errors[0].pointer` names it (`/window`: not a date `YYYY-MM-DD`; `/limit`: not a whole number from 1 to 1000).',
      ),
      '500': internal,
      '503': problem(storeUnavailable, retryAfterHeader),
    },
  },
  {
    method: 'get',
    path: '/admin/reconciliation/report.csv',
    operationId: 'adminGetReconciliationReportCsv',
    summary: "A reconciliation window's items as CSV (the daily report)",
    description:
      "Every item of a reconciliation window as CSV (RFC 4180: CRLF line ends, fields quoted when they hold a comma, a quote or a line break), streamed a thousand items at a time, in UETR order, as an attachment `reconciliation-<window>.csv`. The first line names the columns: `windowId,uetr,row,code,stateAtClose,status,createdAt,resolvedAt,resolution,text` (windowId: YYYY-MM-DD; row: 1-10 of the spec section 7 table; code: the row's code; stateAtClose: the state at the close, empty when unknown; status: `open` or `resolved`; createdAt and resolvedAt: ISO 8601 UTC instants, resolvedAt empty while open; resolution: the operator's note, empty while open; text: the row's condition). A window with no items answers the header line only. The first thousand items are read before the answer starts, so a store that cannot answer gets a 503; if it fails on a later page, the connection is cut before the report's end (never a clean end to a short report). Reads only.",
    parameters: [windowParameter],
    responses: {
      '200': textResponse('The report (`text/csv; charset=utf-8`).', 'text/csv', {
        'Content-Disposition': {
          description: 'attachment; filename="reconciliation-<window>.csv"',
          schema: { type: 'string' },
        },
      }),
      '422': invalidWindow,
      '503': problem(storeUnavailable, retryAfterHeader),
    },
  },
];

export const schedulerAdmin: AdminServiceDoc = {
  service: 'scheduler',
  description:
    "The processing windows (Africa/Johannesburg by default): see and trigger today's debit window and reconciliation close, look at the debit queue, and read the reconciliation report as JSON or CSV. The three window triggers are audited under the operator's token subject.",
  operations,
  schemas,
};
