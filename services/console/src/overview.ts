import {
  type Exposition,
  type LabelFilter,
  meanBy,
  parsePrometheusText,
  sumBy,
  sumOf,
} from './prometheus.ts';
import { RateTracker } from './rates.ts';
import { consoleTargets, type Target, type UpstreamResult, type Upstreams } from './upstream.ts';

/** One step of the debit pipeline, read from one service's counter. */
export interface StageDefinition {
  readonly id: string;
  readonly label: string;
  readonly target: Target;
  readonly metric: string;
  readonly filter?: LabelFilter;
  /** One line for the page's tooltip. */
  readonly help: string;
}

/** The throughput the page shows, in pipeline order. */
export const stages: readonly StageDefinition[] = [
  {
    id: 'received',
    label: 'Received',
    target: 'ingress',
    metric: 'rp_ingress_messages_received_total',
    filter: { operation: 'outboundDirectDebit' },
    help: 'Direct debits the initiating banks sent to the ingress',
  },
  {
    id: 'validated',
    label: 'Validated',
    target: 'validator',
    metric: 'rp_validator_debits_validated_total',
    filter: { outcome: 'accepted' },
    help: 'Debits the validator accepted (ACCP)',
  },
  {
    id: 'rejected',
    label: 'Rejected',
    target: 'validator',
    metric: 'rp_validator_debits_validated_total',
    filter: { outcome: 'rejected' },
    help: 'Debits the validator rejected (RJCT)',
  },
  {
    id: 'reports-delivered',
    label: 'Reports delivered',
    target: 'dispatcher',
    metric: 'rp_dispatcher_delivered_total',
    filter: { operation: 'outboundDirectDebitResponse' },
    help: 'Status reports the initiating banks acknowledged (202)',
  },
  {
    id: 'queued',
    label: 'Queued',
    target: 'scheduler',
    metric: 'rp_scheduler_debits_queued_total',
    help: 'Debits made ready and queued for their debit window',
  },
  {
    id: 'released',
    label: 'Released',
    target: 'scheduler',
    metric: 'rp_scheduler_debits_released_total',
    help: 'Debits released in their debit window',
  },
  {
    id: 'delivered',
    label: 'Delivered',
    target: 'dispatcher',
    metric: 'rp_dispatcher_delivered_total',
    filter: { operation: 'inboundDirectDebit' },
    help: 'Debits the actioning banks acknowledged (202)',
  },
  {
    id: 'completed',
    label: 'Completed',
    target: 'tracker',
    metric: 'rp_tracker_state_changes_total',
    filter: { outcome: 'applied', event_type: 'DEBIT_COMPLETED' },
    help: 'Debits the actioning bank reported as debited (DEBIT_COMPLETED)',
  },
  {
    id: 'postings-delivered',
    label: 'Postings delivered',
    target: 'event-publisher',
    metric: 'rp_events_deliveries_total',
    filter: { outcome: 'delivered' },
    help: 'Event postings the banks acknowledged',
  },
];

export type ServiceState = 'up' | 'not-ready' | 'down';

export interface ServiceView {
  readonly name: Target;
  readonly url: string;
  readonly state: ServiceState;
  /** How long its /metrics took. */
  readonly latencyMs: number;
  readonly error?: string;
}

export interface StageView {
  readonly id: string;
  readonly label: string;
  readonly service: Target;
  readonly help: string;
  /** The counter's value, since the service's process started; null while the service does not answer. */
  readonly total: number | null;
  /** Per second since the previous scrape at least a second ago; null on the first one. */
  readonly ratePerSecond: number | null;
}

/** A section of the page: its data, or why it is missing. */
export type Section<T> =
  | ({ readonly available: true } & T)
  | { readonly available: false; readonly source: Target; readonly error: string };

export interface QueueView {
  readonly depth: number;
  readonly byWindow: Readonly<Record<string, number>>;
  readonly awaitingStatusReport: number | null;
  /** `admin` from GET /admin/queue; `metrics` from the scheduler's gauge when the admin route failed. */
  readonly from: 'admin' | 'metrics';
}

export type BankState = 'healthy' | 'retrying' | 'failing' | 'paused' | 'idle';

export interface DispatcherBankView {
  readonly attempts: { readonly acknowledged: number; readonly retryable: number; readonly final: number };
  readonly retryablePerSecond: number | null;
  readonly finalPerSecond: number | null;
  readonly inFlight: number;
  readonly meanLatencyMs: number | null;
}

export interface EventsBankView {
  readonly attempts: { readonly delivered: number; readonly retryable: number; readonly final: number };
  readonly deliveries: { readonly delivered: number; readonly failed: number; readonly expired: number };
  readonly retryablePerSecond: number | null;
  readonly finalPerSecond: number | null;
  readonly parkedLanes: number;
  readonly parkedPostings: number;
  readonly paused: boolean;
  readonly meanLatencyMs: number | null;
}

export interface BankView {
  readonly memberId: string;
  readonly state: BankState;
  /** Debits and status reports to the bank (the dispatcher); null when it does not answer. */
  readonly dispatcher: DispatcherBankView | null;
  /** Event postings to the bank (the event publisher); null when it does not answer. */
  readonly events: EventsBankView | null;
}

export interface LaneView {
  readonly memberId: string;
  readonly uetr: string;
  readonly queued: number;
  readonly headFailures: number;
  readonly nextAttemptAt: string | null;
  readonly parkedAt: string | null;
  readonly lastError: string | null;
}

export interface ReconciliationView {
  readonly windowId: string;
  readonly open: number;
  readonly items: readonly {
    readonly uetr: string;
    readonly row: number;
    readonly code: string;
    readonly text: string;
    readonly stateAtClose: string;
    readonly status: string;
    readonly createdAt: string;
  }[];
}

export interface WindowsView {
  readonly businessDate: string;
  readonly isBusinessDay: boolean;
  readonly timeZone: string;
  readonly now: string;
  readonly debitWindow: {
    readonly state: string;
    readonly opensAt: string;
    readonly closesAt: string;
    readonly creditsFinalised: boolean;
    readonly override?: string;
  };
  readonly reconciliationWindow: {
    readonly closesAt: string;
    readonly closed: boolean;
    readonly closedAt?: string;
  };
  readonly nextBusinessDate: string;
}

export interface Overview {
  readonly generatedAt: string;
  /** `degraded` when any call failed: `problems` says which. The page is never a 500 for it. */
  readonly status: 'ok' | 'degraded';
  readonly problems: readonly string[];
  readonly services: readonly ServiceView[];
  readonly stages: readonly StageView[];
  readonly queue: Section<QueueView>;
  readonly banks: Section<{ readonly items: readonly BankView[] }>;
  readonly lanes: Section<{ readonly items: readonly LaneView[] }>;
  readonly reconciliation: Section<ReconciliationView>;
  readonly windows: Section<WindowsView>;
}

export interface OverviewOptions {
  readonly upstreams: Upstreams;
  readonly rates?: RateTracker;
  readonly now?: () => number;
  /** Parked lanes and reconciliation items listed (the totals are always complete). */
  readonly listLimit?: number;
}

/**
 * Builds the overview from the services' /metrics, /health/ready and admin routes, all fetched at once,
 * each under the upstream deadline. Concurrent requests share one build (several open pages cost one
 * round of calls).
 */
export class OverviewBuilder {
  readonly #upstreams: Upstreams;
  readonly #rates: RateTracker;
  readonly #now: () => number;
  readonly #listLimit: number;
  #inFlight: Promise<Overview> | undefined;

  constructor(options: OverviewOptions) {
    this.#upstreams = options.upstreams;
    this.#rates = options.rates ?? new RateTracker();
    this.#now = options.now ?? Date.now;
    this.#listLimit = options.listLimit ?? 20;
  }

  build(requestId?: string): Promise<Overview> {
    this.#inFlight ??= this.#build(requestId).finally(() => {
      this.#inFlight = undefined;
    });
    return this.#inFlight;
  }

  async #build(requestId: string | undefined): Promise<Overview> {
    const up = this.#upstreams;
    const limit = this.#listLimit;
    const [metrics, readiness, queue, windows, reconciliation, lanes] = await Promise.all([
      Promise.all(consoleTargets.map((target) => up.text(target, '/metrics', requestId))),
      Promise.all(consoleTargets.map((target) => up.text(target, '/health/ready', requestId))),
      up.json<Record<string, unknown>>('scheduler', '/admin/queue', requestId),
      up.json<WindowsView>('scheduler', '/admin/windows', requestId),
      up.json<Record<string, unknown>>('scheduler', `/admin/reconciliation?limit=${limit}`, requestId),
      up.json<{ lanes?: unknown }>('event-publisher', `/admin/events/lanes?limit=${limit}`, requestId),
    ]);
    const at = this.#now();
    const problems: string[] = [];
    const expositions = new Map<Target, Exposition>();
    const services = consoleTargets.map((name, index): ServiceView => {
      const scrape = metrics[index] as UpstreamResult<string>;
      const ready = readiness[index] as UpstreamResult<string>;
      const url = up.url(name);
      if (!scrape.ok) {
        problems.push(`${name}: /metrics ${scrape.error}`);
        return { name, url, state: 'down', latencyMs: scrape.latencyMs, error: scrape.error };
      }
      expositions.set(name, parsePrometheusText(scrape.value));
      if (!ready.ok) {
        const error = ready.status === 503 ? notReadyReason(ready.body) : ready.error;
        problems.push(`${name}: /health/ready ${error}`);
        return { name, url, state: 'not-ready', latencyMs: scrape.latencyMs, error };
      }
      return { name, url, state: 'up', latencyMs: scrape.latencyMs };
    });

    const stageViews = stages.map((stage): StageView => {
      const exposition = expositions.get(stage.target);
      const base = { id: stage.id, label: stage.label, service: stage.target, help: stage.help };
      if (!exposition) return { ...base, total: null, ratePerSecond: null };
      // A labelled counter appears once it was first incremented: absent means none yet.
      const total = sumOf(exposition, stage.metric, stage.filter) ?? 0;
      return { ...base, total, ratePerSecond: this.#rates.observe(`stage:${stage.id}`, at, total) };
    });

    const section = <T, V>(
      source: Target,
      what: string,
      result: UpstreamResult<T>,
      view: (value: T) => V,
    ): Section<V> => {
      if (!result.ok) {
        problems.push(`${source}: ${what} ${result.error}`);
        return { available: false, source, error: result.error };
      }
      try {
        return { available: true, ...view(result.value) };
      } catch (error) {
        const message = `answered ${what} in an unexpected shape: ${(error as Error).message}`;
        problems.push(`${source}: ${message}`);
        return { available: false, source, error: message };
      }
    };

    let queueView = section('scheduler', '/admin/queue', queue, queueOf);
    const schedulerMetrics = expositions.get('scheduler');
    if (!queueView.available && schedulerMetrics) {
      const depth = sumOf(schedulerMetrics, 'rp_scheduler_queue_depth', { stage: 'queued' });
      if (depth !== undefined) {
        queueView = {
          available: true,
          depth,
          byWindow: {},
          awaitingStatusReport:
            sumOf(schedulerMetrics, 'rp_scheduler_queue_depth', { stage: 'awaiting-status-report' }) ?? null,
          from: 'metrics',
        };
      }
    }

    const dispatcher = expositions.get('dispatcher');
    const publisher = expositions.get('event-publisher');
    const banks: Section<{ items: BankView[] }> =
      dispatcher || publisher
        ? { available: true, items: bankViews(dispatcher, publisher, this.#rates, at) }
        : {
            available: false,
            source: 'dispatcher',
            error: 'neither the dispatcher nor the event publisher answers',
          };

    return {
      generatedAt: new Date(at).toISOString(),
      status: problems.length === 0 ? 'ok' : 'degraded',
      problems,
      services,
      stages: stageViews,
      queue: queueView,
      banks,
      lanes: section('event-publisher', '/admin/events/lanes', lanes, (value) => ({
        items: lanesOf(value),
      })),
      reconciliation: section('scheduler', '/admin/reconciliation', reconciliation, reconciliationOf),
      windows: section('scheduler', '/admin/windows', windows, windowsOf),
    };
  }
}

/** `not ready (starting)`, with the failing checks when the readiness report names them. */
export function notReadyReason(body: string | undefined): string {
  try {
    const report = JSON.parse(body ?? '') as { state?: unknown; checks?: unknown };
    const failing = Array.isArray(report.checks)
      ? report.checks
          .filter((check: { ok?: unknown }) => check.ok === false)
          .map((check: { name?: unknown; error?: unknown }) =>
            typeof check.error === 'string' ? `${String(check.name)}: ${check.error}` : String(check.name),
          )
      : [];
    const state = typeof report.state === 'string' ? report.state : 'unknown state';
    return `not ready (${[state, ...failing].join('; ')})`;
  } catch {
    return 'not ready (HTTP 503)';
  }
}

const number = (value: unknown, what: string): number => {
  if (typeof value !== 'number' || !Number.isFinite(value)) throw new Error(`${what} is not a number`);
  return value;
};
const text = (value: unknown, what: string): string => {
  if (typeof value !== 'string') throw new Error(`${what} is not a string`);
  return value;
};
const optionalText = (value: unknown): string | null => (typeof value === 'string' ? value : null);

export function queueOf(value: Record<string, unknown>): QueueView {
  const byWindow: Record<string, number> = {};
  const windows = value.byWindow;
  if (windows && typeof windows === 'object') {
    for (const [date, count] of Object.entries(windows)) byWindow[date] = number(count, `byWindow.${date}`);
  }
  return {
    depth: number(value.depth, 'depth'),
    byWindow,
    awaitingStatusReport:
      value.awaitingStatusReport === undefined
        ? null
        : number(value.awaitingStatusReport, 'awaitingStatusReport'),
    from: 'admin',
  };
}

export function lanesOf(value: { lanes?: unknown }): LaneView[] {
  if (!Array.isArray(value.lanes)) throw new Error('lanes is not a list');
  return value.lanes.map((lane: Record<string, unknown>) => ({
    memberId: text(lane.memberId, 'memberId'),
    uetr: text(lane.uetr, 'uetr'),
    queued: number(lane.queued, 'queued'),
    headFailures: typeof lane.headFailures === 'number' ? lane.headFailures : 0,
    nextAttemptAt: optionalText(lane.nextAttemptAt),
    parkedAt: optionalText(lane.parkedAt),
    lastError: optionalText(lane.lastError),
  }));
}

export function reconciliationOf(value: Record<string, unknown>): ReconciliationView {
  if (!Array.isArray(value.items)) throw new Error('items is not a list');
  return {
    windowId: text(value.windowId, 'windowId'),
    open: number(value.open, 'open'),
    items: value.items.map((item: Record<string, unknown>) => ({
      uetr: text(item.uetr, 'uetr'),
      row: number(item.row, 'row'),
      code: text(item.code, 'code'),
      text: text(item.text, 'text'),
      stateAtClose: text(item.stateAtClose, 'stateAtClose'),
      status: text(item.status, 'status'),
      createdAt: text(item.createdAt, 'createdAt'),
    })),
  };
}

export function windowsOf(value: WindowsView): WindowsView {
  text(value.businessDate, 'businessDate');
  text(value.debitWindow?.state, 'debitWindow.state');
  return value;
}

/**
 * Delivery health per bank: the dispatcher's attempts by `bank` and the event publisher's by
 * `member_id` (both are the bank's member id), with the parked lanes and the pause of each bank.
 */
export function bankViews(
  dispatcher: Exposition | undefined,
  publisher: Exposition | undefined,
  rates: RateTracker,
  at: number,
): BankView[] {
  const ids = new Set<string>();
  const dispatcherAttempts = dispatcher
    ? {
        acknowledged: sumBy(dispatcher, 'rp_dispatcher_attempts_total', 'bank', { result: 'ACKNOWLEDGED' }),
        retryable: sumBy(dispatcher, 'rp_dispatcher_attempts_total', 'bank', { result: 'RETRYABLE_FAILURE' }),
        final: sumBy(dispatcher, 'rp_dispatcher_attempts_total', 'bank', { result: 'FINAL_FAILURE' }),
        inFlight: sumBy(dispatcher, 'rp_dispatcher_bank_calls_in_flight', 'bank'),
        latency: meanBy(dispatcher, 'rp_dispatcher_attempt_duration_seconds', 'bank'),
      }
    : undefined;
  const events = publisher
    ? {
        delivered: sumBy(publisher, 'rp_events_attempts_total', 'member_id', { result: 'delivered' }),
        retryable: sumBy(publisher, 'rp_events_attempts_total', 'member_id', { result: 'retryable' }),
        final: sumBy(publisher, 'rp_events_attempts_total', 'member_id', { result: 'final' }),
        outcomeDelivered: sumBy(publisher, 'rp_events_deliveries_total', 'member_id', {
          outcome: 'delivered',
        }),
        outcomeFailed: sumBy(publisher, 'rp_events_deliveries_total', 'member_id', { outcome: 'failed' }),
        outcomeExpired: sumBy(publisher, 'rp_events_deliveries_total', 'member_id', { outcome: 'expired' }),
        parkedLanes: sumBy(publisher, 'rp_events_parked_lanes', 'member_id'),
        parkedPostings: sumBy(publisher, 'rp_events_parked_postings', 'member_id'),
        paused: sumBy(publisher, 'rp_events_bank_paused', 'member_id'),
        latency: meanBy(publisher, 'rp_events_attempt_duration_seconds', 'member_id'),
      }
    : undefined;
  for (const group of [dispatcherAttempts, events]) {
    for (const map of Object.values(group ?? {})) for (const id of map.keys()) ids.add(id);
  }
  const milliseconds = (seconds: number | undefined) =>
    seconds === undefined ? null : Math.round(seconds * 100_000) / 100;

  return [...ids].sort().map((memberId): BankView => {
    const get = (map: Map<string, number> | undefined) => map?.get(memberId) ?? 0;
    const dispatcherView: DispatcherBankView | null = dispatcherAttempts
      ? {
          attempts: {
            acknowledged: get(dispatcherAttempts.acknowledged),
            retryable: get(dispatcherAttempts.retryable),
            final: get(dispatcherAttempts.final),
          },
          retryablePerSecond: rates.observe(
            `bank:${memberId}:dispatcher:retryable`,
            at,
            get(dispatcherAttempts.retryable),
          ),
          finalPerSecond: rates.observe(
            `bank:${memberId}:dispatcher:final`,
            at,
            get(dispatcherAttempts.final),
          ),
          inFlight: get(dispatcherAttempts.inFlight),
          meanLatencyMs: milliseconds(dispatcherAttempts.latency.get(memberId)),
        }
      : null;
    const eventsView: EventsBankView | null = events
      ? {
          attempts: {
            delivered: get(events.delivered),
            retryable: get(events.retryable),
            final: get(events.final),
          },
          deliveries: {
            delivered: get(events.outcomeDelivered),
            failed: get(events.outcomeFailed),
            expired: get(events.outcomeExpired),
          },
          retryablePerSecond: rates.observe(`bank:${memberId}:events:retryable`, at, get(events.retryable)),
          finalPerSecond: rates.observe(`bank:${memberId}:events:final`, at, get(events.final)),
          parkedLanes: get(events.parkedLanes),
          parkedPostings: get(events.parkedPostings),
          paused: get(events.paused) > 0,
          meanLatencyMs: milliseconds(events.latency.get(memberId)),
        }
      : null;
    return {
      memberId,
      state: bankState(dispatcherView, eventsView),
      dispatcher: dispatcherView,
      events: eventsView,
    };
  });
}

/**
 * paused: the event publisher's breaker holds the bank; failing: final refusals since the last scrape;
 * retrying: retryable failures since the last scrape, or postings parked; idle: nothing sent yet.
 */
export function bankState(dispatcher: DispatcherBankView | null, events: EventsBankView | null): BankState {
  if (events?.paused) return 'paused';
  if ((dispatcher?.finalPerSecond ?? 0) > 0 || (events?.finalPerSecond ?? 0) > 0) return 'failing';
  if (
    (dispatcher?.retryablePerSecond ?? 0) > 0 ||
    (events?.retryablePerSecond ?? 0) > 0 ||
    (events?.parkedLanes ?? 0) > 0
  ) {
    return 'retrying';
  }
  const attempts =
    (dispatcher
      ? dispatcher.attempts.acknowledged + dispatcher.attempts.retryable + dispatcher.attempts.final
      : 0) + (events ? events.attempts.delivered + events.attempts.retryable + events.attempts.final : 0);
  return attempts === 0 ? 'idle' : 'healthy';
}
