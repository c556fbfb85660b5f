/**
 * The operators' Grafana dashboard of the engine, built from a list of panels and written to
 * infra/k8s/base/dashboards/regulated-payments.json (`npm run manifests -w @rp/deploy`), which the base
 * ships as a ConfigMap for Grafana's dashboard sidecar. Every query reads the namespace the dashboard's
 * `namespace` variable names; the panels that concern one bank read the `bank` variable too.
 */
import {
  BigValueColorMode,
  BigValueGraphMode,
  BigValueJustifyMode,
  BigValueTextMode,
  type Dashboard,
  DashboardCursorSync,
  type DataSourceRef,
  FieldColorModeId,
  type FieldConfig,
  GraphDrawStyle,
  type GraphFieldConfig,
  LegendDisplayMode,
  MappingType,
  type Panel,
  PercentChangeColorMode,
  type RowPanel,
  SortOrder,
  StackingMode,
  ThresholdsMode,
  TooltipDisplayMode,
  VariableHide,
  type VariableModel,
  VisibilityMode,
  VizOrientation,
} from '@grafana/schema';
import type { Options as StatOptions } from '@grafana/schema/dist/esm/raw/composable/stat/panelcfg/x/StatPanelCfg_types.gen';
import type { Options as TimeSeriesOptions } from '@grafana/schema/dist/esm/raw/composable/timeseries/panelcfg/x/TimeSeriesPanelCfg_types.gen';

/** A query of a panel: a PromQL expression and the legend of each series it returns. */
export interface PanelQuery {
  readonly expr: string;
  /** Grafana's legend format: `{{label}}` names a label of the series. */
  readonly legend: string;
}

/** Grafana unit ids the panels use. */
export type PanelUnit = 'reqps' | 'ops' | 'short' | 's' | 'bytes' | 'Bps' | 'percentunit' | 'none';

export interface PanelSpec {
  readonly title: string;
  /** Shown on the panel's (i): what it reads and what to do when it looks wrong. */
  readonly description: string;
  readonly type: 'timeseries' | 'stat';
  readonly unit: PanelUnit;
  readonly queries: readonly PanelQuery[];
  /** Series stacked (parts of one whole), else drawn each on its own. */
  readonly stacked?: boolean;
  /** A stat's values shown as words (`0` → `closed`). */
  readonly words?: Readonly<Record<string, string>>;
  /** A stat turns red from this value on (default: no threshold). */
  readonly redFrom?: number;
}

interface GridPos {
  readonly x: number;
  readonly y: number;
  readonly w: number;
  readonly h: number;
}

export interface RowSpec {
  readonly title: string;
  /** Folded until opened: a service's internals, for when an overview panel points at it. */
  readonly collapsed?: boolean;
  readonly panels: readonly PanelSpec[];
}

/** The dashboard's template variables (besides Grafana's own, such as `$__rate_interval`). */
export const dashboardVariables = ['datasource', 'namespace', 'bank'] as const;

const ns = 'namespace="$namespace"';

/** A series selector in the dashboard's namespace, with more matchers if given. */
function sel(metric: string, matchers = ''): string {
  return `${metric}{${ns}${matchers ? `, ${matchers}` : ''}}`;
}

/** `sum by (labels) (rate(metric{...}[$__rate_interval]))`: a counter's rate per second. */
function rate(metric: string, by: readonly string[], matchers = ''): string {
  const inner = `rate(${sel(metric, matchers)}[$__rate_interval])`;
  return by.length > 0 ? `sum by (${by.join(', ')}) (${inner})` : `sum(${inner})`;
}

/** `histogram_quantile(q, ...)` of a histogram's buckets, by the given labels. */
function quantile(q: number, histogram: string, by: readonly string[], matchers = ''): string {
  return `histogram_quantile(${q}, ${rate(`${histogram}_bucket`, [...by, 'le'], matchers)})`;
}

/** Which series of a metric a query reads and how its legend names them. */
interface SeriesOptions {
  /** Labels the series are summed by (and, by default, named by). */
  readonly by?: readonly string[];
  /** Matchers besides the namespace's. */
  readonly matchers?: string;
  /** The legend (default: the `by` labels); for percentiles, the prefix of `p50` and `p99`. */
  readonly legend?: string;
}

/** `{{a}} {{b}}`: a legend naming each series by the labels given. */
function labelsLegend(by: readonly string[]): string {
  return by.map((label) => `{{${label}}}`).join(' ');
}

/** A counter's rate per second, summed by the labels given. */
function counted(metric: string, { by = [], matchers = '', legend }: SeriesOptions = {}): PanelQuery {
  return { expr: rate(metric, by, matchers), legend: legend ?? labelsLegend(by) };
}

/**
 * A process's own figure (its CPU, memory, collections, event loop) by pod: the largest of the pod's
 * series, a counter's rate or a gauge. An engine's pod runs several services in one process, each
 * reporting that process's figures under its own target, so a sum would count the process once a service;
 * a pod of one service has one series, the same either way.
 */
function perPod(
  metric: string,
  kind: 'counter' | 'gauge',
  { by = ['pod'], matchers = '' }: SeriesOptions = {},
): PanelQuery {
  const selector = sel(metric, matchers);
  const inner = kind === 'counter' ? `rate(${selector}[$__rate_interval])` : selector;
  return { expr: `max by (${by.join(', ')}) (${inner})`, legend: labelsLegend(by) };
}

/** A gauge summed by the labels given. */
function summed(metric: string, { by = [], matchers = '', legend }: SeriesOptions = {}): PanelQuery {
  const selector = sel(metric, matchers);
  return {
    expr: by.length > 0 ? `sum by (${by.join(', ')}) (${selector})` : `sum(${selector})`,
    legend: legend ?? labelsLegend(by),
  };
}

/**
 * How many times a rare event happened in each `window`, summed by the labels given: a counter's increase,
 * and for a series born within the window (its first count, or a new pod's) its whole count, which
 * `increase` leaves out for want of a sample before it (the alerts' `unless ... offset` does the same).
 */
function occurrences(
  metric: string,
  window: string,
  { by = [], matchers = '', legend }: SeriesOptions = {},
): PanelQuery {
  const selector = sel(metric, matchers);
  const inner = `(${selector} unless ${selector} offset ${window}) or increase(${selector}[${window}])`;
  return {
    expr: by.length > 0 ? `sum by (${by.join(', ')}) (${inner})` : `sum(${inner})`,
    legend: legend ?? labelsLegend(by),
  };
}

/** A histogram's p99, by the labels given. */
function p99(histogram: string, { by = [], matchers = '', legend }: SeriesOptions = {}): PanelQuery {
  return { expr: quantile(0.99, histogram, by, matchers), legend: legend ?? labelsLegend(by) };
}

/** A histogram's p50 and p99, their legends prefixed with `legend` (default: the `by` labels). */
function percentiles(
  histogram: string,
  { by = [], matchers = '', legend }: SeriesOptions = {},
): PanelQuery[] {
  const prefix = legend ?? labelsLegend(by);
  const named = (q: string) => (prefix ? `${prefix} ${q}` : q);
  return [
    { expr: quantile(0.5, histogram, by, matchers), legend: named('p50') },
    { expr: quantile(0.99, histogram, by, matchers), legend: named('p99') },
  ];
}

/** The engine's own pods (not Kafka's, the registry's or MongoDB's, which Prometheus may scrape too). */
const engine = 'app_kubernetes_io_part_of="regulated-payments"';
const bank = 'member_id=~"$bank"';
const dispatchBank = 'bank=~"$bank"';

/** Each service's own workings, folded: what its overview panels do not show. */
const internalRows: readonly RowSpec[] = [
  {
    title: 'Ingress internals',
    collapsed: true,
    panels: [
      {
        title: 'Messages received by operation',
        description: 'Requests that reached an operation, before any check, per second.',
        type: 'timeseries',
        unit: 'reqps',
        queries: [counted('rp_ingress_messages_received_total', { by: ['operation'] })],
      },
      {
        title: "Banks' reports checked against",
        description:
          "What a bank's report on a transaction was checked against: the claim this instance made (remembered), the claim read, the snapshot, or a snapshot not written yet (early, answered 503).",
        type: 'timeseries',
        unit: 'ops',
        queries: [counted('rp_ingress_report_checks_total', { by: ['check'] })],
      },
      {
        title: 'Resends waiting for their first attempt',
        description: 'Resends that arrived while their first attempt was still in progress in this instance.',
        type: 'timeseries',
        unit: 'short',
        queries: [summed('rp_ingress_resends_waiting', { by: ['operation'] })],
      },
      {
        title: '"Produced" markers and purged claims',
        description:
          'Markers of acknowledged messages written behind, by whether the write succeeded (a failed one leaves the claim to be checked at a resend), and claims and markers deleted past their retention.',
        type: 'timeseries',
        unit: 'ops',
        queries: [
          counted('rp_ingress_produced_markers_total', { by: ['result'], legend: 'markers {{result}}' }),
          counted('rp_ingress_idempotency_keys_purged_total', { legend: 'purged' }),
        ],
      },
    ],
  },
  {
    title: 'Validator internals',
    collapsed: true,
    panels: [
      {
        title: 'Received and not validated again',
        description:
          'Debits and credit transfers read from the received topic, and those not validated again (a resend, a retry of one answered), by why.',
        type: 'timeseries',
        unit: 'ops',
        queries: [
          counted('rp_validator_debits_received_total', { legend: 'debits received' }),
          counted('rp_validator_credits_received_total', { legend: 'credits received' }),
          counted('rp_validator_debits_skipped_total', {
            by: ['reason'],
            legend: 'debits skipped ({{reason}})',
          }),
          counted('rp_validator_credits_skipped_total', {
            by: ['reason'],
            legend: 'credits skipped ({{reason}})',
          }),
        ],
      },
      {
        title: 'From the received topic to the answer',
        description: 'From the message on the received topic to its answer acknowledged by Kafka.',
        type: 'timeseries',
        unit: 's',
        queries: [
          ...percentiles('rp_validator_debit_latency_seconds', { legend: 'debits' }),
          ...percentiles('rp_validator_credit_latency_seconds', { legend: 'credits' }),
        ],
      },
      {
        title: 'CDV outcomes',
        description: 'Account validation (CDV) outcomes by flow, account side and status.',
        type: 'timeseries',
        unit: 'ops',
        queries: [
          counted('rp_validator_cdv_outcomes_total', {
            by: ['flow', 'role', 'status'],
            legend: '{{flow}} {{role}} {{status}}',
          }),
        ],
      },
      {
        title: "Actioning banks' reports and duplicate checks",
        description:
          "Actioning banks' status reports by status and what was done, and the duplicate check's snapshot reads before validating.",
        type: 'timeseries',
        unit: 'ops',
        queries: [
          counted('rp_validator_status_reports_total', {
            by: ['status', 'outcome'],
            legend: 'reports {{status}} {{outcome}}',
          }),
          counted('rp_validator_duplicate_checks_total', {
            by: ['flow', 'check'],
            legend: 'duplicate check {{flow}} {{check}}',
          }),
        ],
      },
      {
        title: 'Records handled, retried and failed',
        description:
          'Records handled in batches by topic, handled again from a retry tier, and reported failed (to the retry tiers or the dead-letter topic).',
        type: 'timeseries',
        unit: 'ops',
        queries: [
          counted('rp_validator_batch_records_total', { by: ['topic'] }),
          counted('rp_validator_retried_records_total', { by: ['topic'], legend: '{{topic}} retried' }),
          counted('rp_validator_failed_records_total', { by: ['topic'], legend: '{{topic}} failed' }),
        ],
      },
      {
        title: 'Validator batch time by topic (p99)',
        description: "The handler's time for one batch.",
        type: 'timeseries',
        unit: 's',
        queries: [p99('rp_validator_batch_duration_seconds', { by: ['topic'] })],
      },
    ],
  },
  {
    title: 'Scheduler internals',
    collapsed: true,
    panels: [
      {
        title: 'Records by input',
        description: 'Records read, handled again from a retry tier, failed, and needing nothing, by topic.',
        type: 'timeseries',
        unit: 'ops',
        queries: [
          counted('rp_scheduler_records_received_total', { by: ['topic'] }),
          counted('rp_scheduler_retried_records_total', { by: ['topic'], legend: '{{topic}} retried' }),
          counted('rp_scheduler_failed_records_total', { by: ['topic'], legend: '{{topic}} failed' }),
          counted('rp_scheduler_ignored_records_total', {
            by: ['topic', 'reason'],
            legend: '{{topic}} ignored ({{reason}})',
          }),
        ],
      },
      {
        title: 'Debits queued as repeated',
        description:
          'Debits made ready in an open window from a record that may have been handled before (a retry, a re-delivery): queued, since only the queue can tell whether they went out already.',
        type: 'timeseries',
        unit: 'ops',
        queries: [counted('rp_scheduler_debits_queued_as_repeated_total', { legend: 'queued as repeated' })],
      },
      {
        title: 'Release time',
        description:
          "One release: a drain of the window's queue (queue), or one round of debits released as they became ready (ready).",
        type: 'timeseries',
        unit: 's',
        queries: percentiles('rp_scheduler_drain_duration_seconds', { by: ['kind'] }),
      },
      {
        title: 'Waits for room, and the reconciliation close',
        description:
          'Time the accepted handler waited for room past the accepted halves it may hold in memory (its partitions wait meanwhile), and the duration of a reconciliation window close.',
        type: 'timeseries',
        unit: 's',
        queries: [
          ...percentiles('rp_scheduler_accepted_room_wait_seconds', { legend: 'room wait' }),
          ...percentiles('rp_scheduler_reconciliation_duration_seconds', { legend: 'reconciliation' }),
        ],
      },
    ],
  },
  {
    title: 'Dispatcher internals',
    collapsed: true,
    panels: [
      {
        title: 'Messages read and delivered',
        description: 'Messages read for delivery, and those the bank acknowledged (202), by operation.',
        type: 'timeseries',
        unit: 'ops',
        queries: [
          counted('rp_dispatcher_records_received_total', {
            by: ['operation'],
            legend: '{{operation}} read',
          }),
          counted('rp_dispatcher_delivered_total', { by: ['operation'], legend: '{{operation}} delivered' }),
        ],
      },
      {
        title: 'Retries, deferrals and failed records',
        description:
          'Failed attempts that will be retried, records sent back to the retry tiers without an attempt (by why), and records whose handling failed.',
        type: 'timeseries',
        unit: 'ops',
        queries: [
          counted('rp_dispatcher_retries_scheduled_total', {
            by: ['operation'],
            legend: '{{operation}} retries',
          }),
          counted('rp_dispatcher_deferred_total', {
            by: ['operation', 'reason'],
            legend: '{{operation}} deferred ({{reason}})',
          }),
          counted('rp_dispatcher_failed_records_total', {
            by: ['operation'],
            legend: '{{operation}} failed',
          }),
        ],
      },
      {
        title: 'Calls in flight by bank',
        description: 'Calls on a bank in progress.',
        type: 'timeseries',
        unit: 'short',
        queries: [
          summed('rp_dispatcher_bank_calls_in_flight', {
            by: ['bank'],
            matchers: dispatchBank,
            legend: '{{bank}}',
          }),
        ],
      },
    ],
  },
  {
    title: 'Tracker internals',
    collapsed: true,
    panels: [
      {
        title: 'Records handled',
        description:
          'State changes read, records handled in batches by topic, and batches re-run record by record after a failure.',
        type: 'timeseries',
        unit: 'ops',
        queries: [
          counted('rp_tracker_state_changes_received_total', { legend: 'state changes read' }),
          counted('rp_tracker_batch_records_total', { by: ['topic'] }),
          counted('rp_tracker_batches_failed_total', { by: ['topic'], legend: '{{topic}} batches failed' }),
        ],
      },
      {
        title: 'Tracker batch time by topic (p99)',
        description: "The handler's time for one batch.",
        type: 'timeseries',
        unit: 's',
        queries: [p99('rp_tracker_batch_duration_seconds', { by: ['topic'] })],
      },
      {
        title: 'Transaction cache',
        description: 'Cache hits, misses, new transactions (no read) and partition resets per second.',
        type: 'timeseries',
        unit: 'ops',
        queries: [counted('rp_tracker_cache_events_total', { by: ['event'] })],
      },
      {
        title: 'Transactions held, snapshots waiting',
        description:
          'Transactions in the cache, and those whose applied changes wait for their snapshot write (written before each commit).',
        type: 'timeseries',
        unit: 'short',
        queries: [
          summed('rp_tracker_cache_transactions', { legend: 'in the cache' }),
          summed('rp_tracker_snapshots_waiting', { legend: 'snapshots waiting' }),
        ],
      },
      {
        title: 'Snapshot writes and conflicts',
        description:
          'Snapshot write commands (each the writes of up to 25 transactions), and transactions whose snapshot held changes the cache said were new.',
        type: 'timeseries',
        unit: 'ops',
        queries: [
          counted('rp_tracker_snapshot_writes_total', { legend: 'writes' }),
          counted('rp_tracker_snapshot_conflicts_total', { legend: 'conflicts' }),
        ],
      },
      {
        title: 'Delivery outcomes read',
        description: 'Delivery outcomes the tracker read, by operation, result and what was done.',
        type: 'timeseries',
        unit: 'ops',
        queries: [
          counted('rp_tracker_delivery_attempts_total', {
            by: ['operation', 'result', 'outcome'],
            legend: '{{operation}} {{result}} {{outcome}}',
          }),
        ],
      },
    ],
  },
  {
    title: 'Event publisher internals',
    collapsed: true,
    panels: [
      {
        title: 'Postings read and handled',
        description: 'Postings read from rp.events.v1 by class, and records handled in batches.',
        type: 'timeseries',
        unit: 'ops',
        queries: [
          counted('rp_events_postings_received_total', { by: ['class'] }),
          counted('rp_events_batch_records_total', { legend: 'records in batches' }),
        ],
      },
      {
        title: 'Event publisher batch time',
        description: "The handler's time for one consumed batch.",
        type: 'timeseries',
        unit: 's',
        queries: percentiles('rp_events_batch_duration_seconds', { legend: 'batch' }),
      },
      {
        title: 'Retries, parked and replayed by bank',
        description:
          'Attempts that retried a posting that failed before, postings queued in a lane instead of sent, and postings queued again by a replay.',
        type: 'timeseries',
        unit: 'ops',
        queries: [
          counted('rp_events_retries_total', {
            by: ['member_id'],
            matchers: bank,
            legend: '{{member_id}} retries',
          }),
          counted('rp_events_parked_total', {
            by: ['member_id'],
            matchers: bank,
            legend: '{{member_id}} parked',
          }),
          counted('rp_events_replayed_total', {
            by: ['member_id'],
            matchers: bank,
            legend: '{{member_id}} replayed',
          }),
        ],
      },
      {
        title: 'Lanes parked by bank',
        description: "Transactions whose postings wait at a bank (each process's lanes).",
        type: 'timeseries',
        unit: 'short',
        queries: [summed('rp_events_parked_lanes', { by: ['member_id'], matchers: bank })],
      },
      {
        title: 'Partition loads and lanes found',
        description:
          'Partitions whose parked lanes were read from MongoDB (a start or a hand-over), the lanes read then, and parked lanes a rescan found that this process did not know.',
        type: 'timeseries',
        unit: 'ops',
        queries: [
          counted('rp_events_partition_loads_total', { legend: 'partition loads' }),
          counted('rp_events_partition_lanes_loaded_total', { legend: 'lanes loaded' }),
          counted('rp_events_lanes_found_total', { legend: 'lanes found' }),
        ],
      },
      {
        title: 'Delivery log and stored postings',
        description:
          'First attempts written to the delivery log together, stored postings the worker read (from memory or MongoDB), and entries and postings deleted past their retention.',
        type: 'timeseries',
        unit: 'ops',
        queries: [
          counted('rp_events_delivery_log_first_attempts_total', { legend: 'first attempts logged' }),
          counted('rp_events_postings_read_total', { by: ['from'], legend: 'postings read from {{from}}' }),
          counted('rp_events_delivery_log_purged_total', { legend: 'log entries purged' }),
          counted('rp_events_postings_purged_total', { legend: 'postings purged' }),
        ],
      },
      {
        title: 'Delivery log records waiting',
        description:
          'Delivery log records of postings sent at once that wait to be written (before the next commit).',
        type: 'timeseries',
        unit: 'short',
        queries: [summed('rp_events_delivery_log_waiting', { legend: 'waiting' })],
      },
    ],
  },
];

export const dashboardRows: readonly RowSpec[] = [
  {
    title: 'Now',
    panels: [
      {
        title: 'Accepted a second',
        description:
          'Messages from banks and payment schemes the ingress accepted (202), first receipts only.',
        type: 'stat',
        unit: 'reqps',
        queries: [
          counted('rp_ingress_messages_total', { matchers: 'outcome="accepted"', legend: 'accepted' }),
        ],
      },
      {
        title: 'Refused a second',
        description:
          'Messages the ingress refused (invalid, unauthorised, conflicting, rate limited, overloaded, unavailable). Resends answered from their first receipt are not refusals. See the ingress panels for which.',
        type: 'stat',
        unit: 'reqps',
        queries: [
          counted('rp_ingress_messages_total', {
            matchers: 'outcome!~"accepted|replayed|reproduced|joined"',
            legend: 'refused',
          }),
        ],
      },
      {
        title: 'Postings delivered a second',
        description: 'Event postings the banks acknowledged (2xx), all banks of the namespace.',
        type: 'stat',
        unit: 'reqps',
        queries: [
          counted('rp_events_deliveries_total', { matchers: 'outcome="delivered"', legend: 'delivered' }),
        ],
      },
      {
        title: 'Debit window',
        description: 'Whether the debit processing window is open (Africa/Johannesburg business calendar).',
        type: 'stat',
        unit: 'none',
        queries: [{ expr: `max(${sel('rp_scheduler_debit_window_open')})`, legend: 'window' }],
        words: { '0': 'closed', '1': 'open' },
      },
      {
        title: 'Debits queued',
        description: 'Debits held in the queue for the debit window (released when it opens).',
        type: 'stat',
        unit: 'short',
        queries: [summed('rp_scheduler_queue_depth', { matchers: 'stage="queued"', legend: 'queued' })],
      },
      {
        title: 'Most records behind',
        description:
          'The largest backlog of one consumer group: records on its partitions not handled yet (see the Kafka row for which group). Alerted on above 10,000 for 15 minutes.',
        type: 'stat',
        unit: 'short',
        queries: [
          { expr: `max(sum by (group) (${sel('rp_kafka_consumer_lag_records')}))`, legend: 'records behind' },
        ],
        redFrom: 10_000,
      },
      {
        title: 'Dead letters in range',
        description:
          "Records moved to a consumer group's dead-letter topic in the dashboard's time range. Each needs an operator: see the Kafka row and the runbook.",
        type: 'stat',
        unit: 'short',
        queries: [occurrences('rp_kafka_dead_letters_total', '$__range', { legend: 'dead letters' })],
        redFrom: 1,
      },
      {
        title: 'Banks paused',
        description:
          'Banks whose event postings are paused after failures in a row (parked, probed until the bank answers).',
        type: 'stat',
        unit: 'short',
        queries: [
          {
            expr: `count(max by (member_id) (${sel('rp_events_bank_paused')}) == 1) or vector(0)`,
            legend: 'paused',
          },
        ],
        redFrom: 1,
      },
    ],
  },
  {
    title: 'Ingress',
    panels: [
      {
        title: 'Messages by operation and outcome',
        description:
          'What the ingress answered, per second. accepted: produced (202); replayed, reproduced, joined: resends; the rest refusals.',
        type: 'timeseries',
        unit: 'reqps',
        queries: [counted('rp_ingress_messages_total', { by: ['operation', 'outcome'] })],
      },
      {
        title: 'From the claim to the 202',
        description:
          'The ingress from its idempotency claim to Kafka acknowledging the state change and the flow record: the 202 waits on this. Alerted on above 1 s (p99).',
        type: 'timeseries',
        unit: 's',
        queries: percentiles('rp_ingress_produce_duration_seconds'),
      },
      {
        title: 'HTTP requests by route',
        description:
          "Every service's HTTP requests per second, by route and status (probes and scrapes included).",
        type: 'timeseries',
        unit: 'reqps',
        queries: [
          counted('http_request_duration_seconds_count', {
            by: ['service', 'route', 'status'],
            matchers: engine,
          }),
        ],
      },
      {
        title: "Banks' reads of a transaction",
        description: 'GET of a transaction by a bank, by how the ingress answered.',
        type: 'timeseries',
        unit: 'reqps',
        queries: [counted('rp_ingress_transaction_reads_total', { by: ['outcome'] })],
      },
    ],
  },
  {
    title: 'Validation and the debit window',
    panels: [
      {
        title: 'Debits and credits validated',
        description: 'Answers of the validator per second, by outcome (CDV and the checks of the spec).',
        type: 'timeseries',
        unit: 'ops',
        queries: [
          counted('rp_validator_debits_validated_total', { by: ['outcome'], legend: 'debits {{outcome}}' }),
          counted('rp_validator_credits_validated_total', { by: ['outcome'], legend: 'credits {{outcome}}' }),
        ],
      },
      {
        title: 'Rejections by reason',
        description: 'Reasons on the RJCT status reports, by flow and ISO code, per second.',
        type: 'timeseries',
        unit: 'ops',
        queries: [counted('rp_validator_rejection_reasons_total', { by: ['flow', 'code'] })],
      },
      {
        title: 'Debit queue',
        description:
          "Debits queued for the window, awaiting their status report's acknowledgement, and held in the scheduler's memory.",
        type: 'timeseries',
        unit: 'short',
        queries: [summed('rp_scheduler_queue_depth', { by: ['stage'] })],
      },
      {
        title: 'Debits queued and released',
        description:
          'Debits made ready per second, released from the queue in their window, and released the moment they became ready.',
        type: 'timeseries',
        unit: 'ops',
        queries: [
          counted('rp_scheduler_debits_queued_total', { legend: 'made ready' }),
          counted('rp_scheduler_debits_released_total', { legend: 'released from the queue' }),
          counted('rp_scheduler_debits_released_at_once_total', { legend: 'released at once' }),
        ],
      },
      {
        title: 'Time in the queue',
        description: 'From a debit joining the queue to its release.',
        type: 'timeseries',
        unit: 's',
        queries: percentiles('rp_scheduler_queue_wait_seconds'),
      },
      {
        title: 'Reconciliation items, and closes that failed',
        description:
          'Items raised at the reconciliation window close, by row of spec section 7, in each hour: each is a transaction left unresolved. Closes that failed part way (the store or the broker) in each hour: each is run again on the next window tick (RpReconciliationCloseFailing).',
        type: 'timeseries',
        unit: 'short',
        queries: [
          occurrences('rp_scheduler_reconciliation_items_total', '1h', { by: ['row'] }),
          occurrences('rp_scheduler_reconciliation_close_failures_total', '1h', { legend: 'failed closes' }),
        ],
      },
    ],
  },
  {
    title: 'Messages to banks (dispatcher)',
    panels: [
      {
        title: 'Attempts by bank and result',
        description: 'HTTP attempts on the banks per second (status reports, inbound debits), by result.',
        type: 'timeseries',
        unit: 'reqps',
        queries: [
          counted('rp_dispatcher_attempts_total', { by: ['bank', 'result'], matchers: dispatchBank }),
        ],
      },
      {
        title: 'Attempt time by bank',
        description: 'One HTTP attempt on a bank, to its answer.',
        type: 'timeseries',
        unit: 's',
        queries: percentiles('rp_dispatcher_attempt_duration_seconds', {
          by: ['bank'],
          matchers: dispatchBank,
        }),
      },
      {
        title: 'From the topic to the 202',
        description: 'From the message on its topic to the bank acknowledging it (202), retries included.',
        type: 'timeseries',
        unit: 's',
        queries: percentiles('rp_dispatcher_delivery_latency_seconds', { by: ['operation'] }),
      },
      {
        title: 'Refused for good, expired',
        description:
          'Messages a bank refused with a final answer, and deliveries whose retries stopped at the reconciliation window close, per hour. Each is reconciled.',
        type: 'timeseries',
        unit: 'short',
        queries: [
          occurrences('rp_dispatcher_final_failures_total', '1h', {
            by: ['operation'],
            legend: '{{operation}} refused',
          }),
          occurrences('rp_dispatcher_expired_total', '1h', {
            by: ['operation'],
            legend: '{{operation}} expired',
          }),
        ],
      },
    ],
  },
  {
    title: 'State changes and event postings',
    panels: [
      {
        title: 'State changes and postings produced',
        description:
          'State changes the tracker applied per second, by event type, and the postings it produced to rp.events.v1, by class.',
        type: 'timeseries',
        unit: 'ops',
        queries: [
          counted('rp_tracker_state_changes_total', { by: ['event_type'], legend: '{{event_type}}' }),
          counted('rp_tracker_postings_produced_total', { by: ['class'], legend: 'postings {{class}}' }),
        ],
      },
      {
        title: 'From the state change to its postings',
        description:
          'From a state change happening to its postings acknowledged by Kafka and its snapshot written.',
        type: 'timeseries',
        unit: 's',
        queries: percentiles('rp_tracker_change_latency_seconds'),
      },
      {
        title: 'Postings by bank and outcome',
        description:
          'Postings that reached their final outcome at a bank per second: delivered, failed (a 4xx) or expired.',
        type: 'timeseries',
        unit: 'reqps',
        queries: [counted('rp_events_deliveries_total', { by: ['member_id', 'outcome'], matchers: bank })],
      },
      {
        title: 'From production to delivery',
        description:
          'From the posting produced to the bank acknowledging it, retries included. Alerted on above 60 s (p99).',
        type: 'timeseries',
        unit: 's',
        queries: percentiles('rp_events_delivery_lag_seconds', { by: ['member_id'], matchers: bank }),
      },
      {
        title: 'POSTs by bank and result',
        description:
          "Attempts on the banks' /events per second: delivered, retryable (5xx, 429, no answer) or final.",
        type: 'timeseries',
        unit: 'reqps',
        queries: [counted('rp_events_attempts_total', { by: ['member_id', 'result'], matchers: bank })],
      },
      {
        title: 'POST time by bank',
        description: 'One POST to a bank, to its answer.',
        type: 'timeseries',
        unit: 's',
        queries: percentiles('rp_events_attempt_duration_seconds', { by: ['member_id'], matchers: bank }),
      },
      {
        title: 'Postings waiting at a bank',
        description:
          'Postings parked for a bank (retried with back-off, in order per transaction), and whether the bank is paused.',
        type: 'timeseries',
        unit: 'short',
        queries: [
          summed('rp_events_parked_postings', {
            by: ['member_id'],
            matchers: bank,
            legend: '{{member_id}} parked',
          }),
          {
            expr: `max by (member_id) (${sel('rp_events_bank_paused', bank)})`,
            legend: '{{member_id}} paused',
          },
        ],
      },
      {
        title: 'Postings no bank takes',
        description:
          'Postings skipped, by why: no subscriber (no events URL or class), or banks not found yet.',
        type: 'timeseries',
        unit: 'ops',
        queries: [counted('rp_events_postings_skipped_total', { by: ['reason'] })],
      },
    ],
  },
  {
    title: 'Kafka',
    panels: [
      {
        title: 'Records behind by consumer group',
        description:
          'Records on the partitions each group owns not handled yet, as its consumers last saw the partition ends. A growing line is a group that does not keep up.',
        type: 'timeseries',
        unit: 'short',
        queries: [summed('rp_kafka_consumer_lag_records', { by: ['group', 'topic'] })],
      },
      {
        title: 'Dead letters, stalls, crashes',
        description:
          'Records dead-lettered, partitions found stalled (and resumed), consumer crashes, in each 5 minutes.',
        type: 'timeseries',
        unit: 'short',
        queries: [
          occurrences('rp_kafka_dead_letters_total', '5m', {
            by: ['group', 'reason'],
            legend: '{{group}} dead letters ({{reason}})',
          }),
          occurrences('rp_kafka_partition_stalls_total', '5m', { by: ['group'], legend: '{{group}} stalls' }),
          occurrences('rp_kafka_consumer_crashes_total', '5m', {
            by: ['group'],
            legend: '{{group}} crashes',
          }),
        ],
      },
      {
        title: 'Kafka requests by API',
        description: "The services' requests to the brokers per second, by API.",
        type: 'timeseries',
        unit: 'reqps',
        queries: [counted('rp_kafka_requests_total', { by: ['api'] })],
      },
      {
        title: 'Kafka request time by API (p99)',
        description: "Round trip of a request; a fetch's includes the broker's wait for records.",
        type: 'timeseries',
        unit: 's',
        queries: [p99('rp_kafka_request_duration_seconds', { by: ['api'] })],
      },
      {
        title: 'Kafka bytes sent by API',
        description:
          "Bytes of the services' requests to the brokers per second, by API (a produce's records).",
        type: 'timeseries',
        unit: 'Bps',
        queries: [counted('rp_kafka_request_bytes_total', { by: ['api'] })],
      },
    ],
  },
  {
    title: 'MongoDB',
    panels: [
      {
        title: 'Commands by service',
        description: 'MongoDB commands per second, by service and command name (failed ones as outcome).',
        type: 'timeseries',
        unit: 'ops',
        queries: [counted('rp_mongodb_commands_total', { by: ['service', 'command', 'outcome'] })],
      },
      {
        title: 'Command time by service (p99)',
        description: 'Round trip of a MongoDB command. Alerted on above 1 s.',
        type: 'timeseries',
        unit: 's',
        queries: [p99('rp_mongodb_command_duration_seconds', { by: ['service', 'command'] })],
      },
      {
        title: 'Documents written by collection',
        description:
          "Statements of the write commands per second (an insert's documents, an update's statements).",
        type: 'timeseries',
        unit: 'ops',
        stacked: true,
        queries: [counted('rp_mongodb_write_statements_total', { by: ['collection', 'command'] })],
      },
    ],
  },
  {
    title: 'Processes',
    panels: [
      {
        title: 'CPU by pod',
        description: "Cores each of the engine's pods uses.",
        type: 'timeseries',
        unit: 'short',
        queries: [perPod('process_cpu_seconds_total', 'counter', { matchers: engine })],
      },
      {
        title: 'Resident memory by pod',
        description: "Each of the engine's pods' resident set.",
        type: 'timeseries',
        unit: 'bytes',
        queries: [perPod('process_resident_memory_bytes', 'gauge', { matchers: engine })],
      },
      {
        title: 'Event loop standing still',
        description:
          'Share of the time the main thread stood still for 100 ms or more, by cause: waiting (off the CPU: its limit is too low), work (blocked by work) or collection. Alerted on above 5%.',
        type: 'timeseries',
        unit: 'percentunit',
        queries: [perPod('rp_event_loop_stall_seconds_sum', 'counter', { by: ['pod', 'cause'] })],
      },
      {
        title: 'Pods answering Prometheus',
        description:
          "The engine's pods answering Prometheus's scrape, counted by Service: a drop is a pod not answering (alerted on after 5 minutes).",
        type: 'timeseries',
        unit: 'short',
        queries: [summed('up', { by: ['job'], matchers: engine })],
      },
      {
        title: 'Garbage collection',
        description: 'Share of the time in garbage collection, by pod and kind.',
        type: 'timeseries',
        unit: 'percentunit',
        queries: [
          perPod('nodejs_gc_duration_seconds_sum', 'counter', { by: ['pod', 'kind'], matchers: engine }),
        ],
      },
    ],
  },
  ...internalRows,
];

const datasource: DataSourceRef = { type: 'prometheus', uid: '${datasource}' };

function targetsOf(spec: PanelSpec): NonNullable<Panel['targets']> {
  return spec.queries.map((query, index) => ({
    datasource,
    refId: String.fromCharCode(65 + index),
    expr: query.expr,
    legendFormat: query.legend,
    range: true,
  }));
}

function fieldDefaults(spec: PanelSpec): FieldConfig {
  return {
    unit: spec.unit,
    thresholds: {
      mode: ThresholdsMode.Absolute,
      steps: [
        // Grafana's base step has no value: it holds from minus infinity.
        { color: 'green', value: null as unknown as number },
        ...(spec.redFrom === undefined ? [] : [{ color: 'red', value: spec.redFrom }]),
      ],
    },
    mappings: spec.words
      ? [
          {
            type: MappingType.ValueToText,
            options: Object.fromEntries(
              Object.entries(spec.words).map(([value, text], index) => [value, { text, index }]),
            ),
          },
        ]
      : [],
  };
}

function statPanel(spec: PanelSpec, id: number, gridPos: GridPos): Panel {
  const options: StatOptions = {
    reduceOptions: { calcs: ['lastNotNull'], fields: '', values: false },
    colorMode: BigValueColorMode.Value,
    graphMode: BigValueGraphMode.Area,
    justifyMode: BigValueJustifyMode.Auto,
    textMode: BigValueTextMode.Value,
    orientation: VizOrientation.Auto,
    percentChangeColorMode: PercentChangeColorMode.Standard,
    showPercentChange: false,
    wideLayout: true,
  };
  return {
    id,
    type: 'stat',
    title: spec.title,
    description: spec.description,
    datasource,
    gridPos,
    fieldConfig: {
      defaults: { ...fieldDefaults(spec), color: { mode: FieldColorModeId.Thresholds } },
      overrides: [],
    },
    options: { ...options },
    targets: targetsOf(spec),
  };
}

function timeSeriesPanel(spec: PanelSpec, id: number, gridPos: GridPos): Panel {
  const custom: GraphFieldConfig = {
    drawStyle: GraphDrawStyle.Line,
    lineWidth: 1,
    fillOpacity: spec.stacked ? 30 : 10,
    showPoints: VisibilityMode.Never,
    spanNulls: false,
    stacking: { mode: spec.stacked ? StackingMode.Normal : StackingMode.None, group: 'A' },
  };
  const options: TimeSeriesOptions = {
    legend: { displayMode: LegendDisplayMode.List, placement: 'bottom', showLegend: true, calcs: [] },
    tooltip: { mode: TooltipDisplayMode.Multi, sort: SortOrder.Descending },
  };
  return {
    id,
    type: 'timeseries',
    title: spec.title,
    description: spec.description,
    datasource,
    gridPos,
    fieldConfig: {
      defaults: {
        ...fieldDefaults(spec),
        min: 0,
        color: { mode: FieldColorModeId.PaletteClassic },
        custom: { ...custom },
      },
      overrides: [],
    },
    options: { ...options },
    targets: targetsOf(spec),
  };
}

/** The dashboard as Grafana's JSON model: a row panel per row, its panels laid out left to right. */
export function dashboard(rows: readonly RowSpec[] = dashboardRows): Dashboard {
  const panels: (Panel | RowPanel)[] = [];
  let id = 1;
  let y = 0;
  for (const row of rows) {
    const rowId = id++;
    const rowY = y;
    y += 1;
    const inRow: Panel[] = [];
    let x = 0;
    let lineHeight = 0;
    for (const spec of row.panels) {
      // Stats eight to a line, time series two.
      const w = spec.type === 'stat' ? 3 : 12;
      const h = spec.type === 'stat' ? 4 : 8;
      if (x + w > 24) {
        y += lineHeight;
        x = 0;
        lineHeight = 0;
      }
      const gridPos = { x, y, w, h };
      inRow.push(
        spec.type === 'stat' ? statPanel(spec, id++, gridPos) : timeSeriesPanel(spec, id++, gridPos),
      );
      x += w;
      lineHeight = Math.max(lineHeight, h);
    }
    y += lineHeight;
    const collapsed = row.collapsed === true;
    // A folded row keeps its panels, placed as they will be when it opens; the next row follows it at once.
    panels.push({
      id: rowId,
      type: 'row',
      title: row.title,
      collapsed,
      gridPos: { x: 0, y: rowY, w: 24, h: 1 },
      panels: collapsed ? inRow : [],
    });
    if (collapsed) y = rowY + 1;
    else panels.push(...inRow);
  }
  const namespaceQuery = `label_values(up{${engine}}, namespace)`;
  const bankQuery = 'label_values(rp_events_attempts_total{namespace="$namespace"}, member_id)';
  const variables: VariableModel[] = [
    {
      name: 'datasource',
      label: 'Data source',
      type: 'datasource',
      query: 'prometheus',
      hide: VariableHide.dontHide,
    },
    {
      name: 'namespace',
      label: 'Namespace',
      type: 'query',
      datasource,
      query: { query: namespaceQuery, refId: 'namespace' },
      refresh: 2,
      sort: 1,
      hide: VariableHide.dontHide,
      includeAll: false,
      multi: false,
    },
    {
      name: 'bank',
      label: 'Bank',
      description: "Member id of a bank (event postings and the dispatcher's messages); All for every bank.",
      type: 'query',
      datasource,
      query: { query: bankQuery, refId: 'bank' },
      refresh: 2,
      sort: 1,
      hide: VariableHide.dontHide,
      includeAll: true,
      allValue: '.*',
      multi: true,
    },
  ];
  return {
    uid: 'regulated-payments',
    title: 'Regulated payments',
    description:
      'The engine: what it accepts, validates, holds for the debit window and delivers to banks, its Kafka consumers, MongoDB and processes. Generated by packages/deploy (npm run manifests -w @rp/deploy).',
    tags: ['regulated-payments'],
    editable: true,
    graphTooltip: DashboardCursorSync.Crosshair,
    // Grafana 10.3 and later read it (and migrate it forward).
    schemaVersion: 39,
    version: 1,
    time: { from: 'now-6h', to: 'now' },
    timezone: 'browser',
    refresh: '30s',
    annotations: { list: [] },
    links: [],
    templating: { list: variables },
    panels,
  };
}

/** The committed file's text. */
export function renderDashboard(): string {
  return `${JSON.stringify(dashboard(), null, 2)}\n`;
}
