import type { DeliveryOutcome, DirectDebit, TopicName } from '@rp/contracts';
import {
  type ConsumerRunner,
  consumerGroupName,
  type KafkaClient,
  outageRetryPolicy,
  type RetryPolicy,
} from '@rp/kafka';
import {
  createStateEmitter,
  type PipelineCodecs,
  type PipelineProducer,
  type TopicNames,
} from '@rp/pipeline';
import {
  type AppEnv,
  AppError,
  type Clock,
  createHealth,
  createHttpApp,
  createMetrics,
  type Health,
  type Logger,
  type Metrics,
  type Operator,
  type OperatorAuthenticator,
  systemClock,
  type Tracing,
} from '@rp/runtime';
import type { Store } from '@rp/store';
import type { Hono } from 'hono';
import { registerAdminRoutes } from './app.ts';
import { schedulerMetrics } from './metrics.ts';
import { PromptRelease } from './prompt-release.ts';
import { createQueueingHandlers } from './queueing.ts';
import { closeReconciliationWindow, type ReconciliationSummary } from './reconciliation.ts';
import { releaseWindow } from './release.ts';
import {
  anyCreditsGate,
  CreditFlowGate,
  type CreditsGate,
  DeclaredCreditsGate,
  rememberedDays,
  scheduledCreditsGate,
  WindowController,
  type WindowStatus,
} from './window-state.ts';
import { WindowCalendar, type WindowSettings } from './windows.ts';

/**
 * How the scheduler's consumers retry a record: through outages (a record dead-lettered for an outage is
 * a debit that never joins its queue). The consumer default, 4 attempts in about 70 s, lost debits when
 * the local MongoDB-compatible server stalled for a few minutes under load.
 */
export const schedulerRetryPolicy: RetryPolicy = outageRetryPolicy;
export const serviceName = 'scheduler';

/** What the scheduler reads. */
export const consumedTopics = [
  'rp.directdebit.accepted.v1',
  'rp.delivery.outcome.v1',
] as const satisfies readonly TopicName[];
/** What the scheduler writes: its producer needs a codec for each. */
export const producedTopics = [
  'rp.transaction.state.v1',
  'rp.directdebit.due.v1',
  'rp.reconciliation.v1',
] as const satisfies readonly TopicName[];

export interface SchedulerOptions {
  /** How often the windows are looked at (real time). Default 1 s; 0: only `tick()` calls (tests). */
  readonly tickIntervalMs?: number;
  /** Debits released per batch. Default 100. */
  readonly releaseBatchSize?: number;
  /**
   * How often the debits queued and those awaiting their status report are counted in the store for
   * `rp_scheduler_queue_depth` (real time), the first count at start. Default 30 s (a ServiceMonitor's
   * scrape); 0: only `GET /admin/queue` counts them.
   */
  readonly queueDepthIntervalMs?: number;
  /** While the debit window is open, the queue is drained at least this often (real time). Default 30 s. */
  readonly drainIntervalMs?: number;
  /**
   * While the debit window is open, how long a debit just queued waits for others before the queue is
   * drained (real time): the debits queued meanwhile go out in the same drain, one read, one send and
   * one write for all of them. Default 250 ms; 0: a drain for each.
   */
  readonly releaseDelayMs?: number;
  /** Transactions of one partition handled at the same time. Default 32. */
  readonly keyConcurrency?: number;
  readonly partitionsConsumedConcurrently?: number;
  /** Default `schedulerRetryPolicy`. */
  readonly retry?: Partial<RetryPolicy>;
  /** Transactions examined at the same time when the reconciliation window closes. Default 8. */
  readonly reconciliationConcurrency?: number;
  /**
   * How long an accepted on-us debit is held in memory for the acknowledgement of its status report (the
   * two then go in one write), and the accepted consumer's commit interval: a commit writes the debits held
   * this long and commits up to the oldest still held, so one waits at most about twice this. Default 3 s;
   * 0 writes each at once.
   */
  readonly acceptedHoldMs?: number;
  /**
   * How long the debit queue keeps tombstones (debits released or withdrawn) and halves whose other
   * half never came. Default 7 days (the input topics' retention).
   */
  readonly intakeRetentionMs?: number;
  /**
   * How long the reconciliation close waits for the tracker's snapshot writes of changes made before it
   * (they follow the postings by up to the tracker's `TRACKER_SNAPSHOT_INTERVAL`). Default 0.
   */
  readonly reconciliationSettleMs?: number;
  /**
   * Verifies operators' access tokens on the admin routes (`ADMIN_AUTH=oauth2`); unset: the routes are
   * open (`ADMIN_AUTH=none`, development only).
   */
  readonly operatorAuth?: OperatorAuthenticator;
  /**
   * Default true: the debit window also waits until every credit of the cycle is final (CreditFlowGate).
   * False: only the cut-off time and the admin trigger open it.
   */
  readonly awaitCredits?: boolean;
}

export interface SchedulerDeps {
  readonly kafka: KafkaClient;
  readonly names: TopicNames;
  /** Codecs of the consumed and the produced topics (the producer was built with the latter). */
  readonly codecs: Partial<PipelineCodecs>;
  /** Owned by the caller, which disconnects it after `stop()`. */
  readonly producer: PipelineProducer;
  readonly store: Pick<
    Store,
    'transactions' | 'debitQueue' | 'reconciliation' | 'reconciliationCloses' | 'windowOverrides' | 'audit'
  >;
  readonly windows: WindowSettings;
  /** A credits gate besides the admin trigger, the credits themselves and the cut-off time. */
  readonly creditsGate?: CreditsGate;
  readonly logger: Logger;
  /** Server spans for its HTTP routes (see `createHttpApp`). */
  readonly tracing?: Tracing;
  /** Defaults to a registry of its own without process metrics. */
  readonly metrics?: Metrics;
  readonly health?: Health;
  /** The system clock, or a ScaledClock for demos, a ManualClock in tests. */
  readonly clock?: Clock;
  readonly options?: SchedulerOptions;
}

export interface SchedulerService {
  /** Admin routes plus health and metrics. The caller serves it. */
  readonly app: Hono<AppEnv>;
  readonly windows: WindowController;
  /** Joins both consumer groups and starts looking at the windows. */
  start(): Promise<void>;
  /** Stops the window timer, lets the window work in progress finish, leaves the groups. */
  stop(): Promise<void>;
  /** Looks at the windows once: closes a due reconciliation window, releases the open window's debits. */
  tick(): Promise<void>;
  /**
   * Closes the reconciliation window of `businessDate`: today's (the default) now, an earlier day's at
   * its scheduled close (each transaction judged as it stood then).
   */
  closeReconciliationWindow(businessDate?: string): Promise<ReconciliationSummary>;
  /** For readiness: false once a consumer stopped or crashed. */
  isRunning(): boolean;
}

export function createSchedulerService(deps: SchedulerDeps): SchedulerService {
  const { kafka, names, codecs, logger, producer } = deps;
  const options = deps.options ?? {};
  const clock = deps.clock ?? systemClock;
  const registry = deps.metrics ?? createMetrics({ service: serviceName, defaultMetrics: false });
  const metrics = schedulerMetrics(registry);
  const health = deps.health ?? createHealth();
  const calendar = new WindowCalendar(deps.windows);
  const declared = new DeclaredCreditsGate();
  // In the order their reason is reported: an operator's word, the credits themselves, the cut-off.
  const windows = new WindowController(
    calendar,
    anyCreditsGate(
      declared,
      ...(options.awaitCredits === false ? [] : [new CreditFlowGate(deps.store.transactions, calendar)]),
      scheduledCreditsGate(calendar),
      ...(deps.creditsGate ? [deps.creditsGate] : []),
    ),
  );
  const emitter = createStateEmitter({ service: serviceName, producer, now: () => clock.now() });
  const drainIntervalMs = options.drainIntervalMs ?? 30_000;

  // Window work (releases, reconciliation, operator triggers) runs one piece at a time.
  let chain: Promise<unknown> = Promise.resolve();
  function serial<T>(work: () => Promise<T>): Promise<T> {
    const run = chain.then(work, work);
    chain = run.catch(() => undefined);
    return run;
  }

  let wasOpen = false;
  let lastDrainAt = 0;
  let drainQueued = false;

  async function drainIfOpen(): Promise<number> {
    const now = clock.now();
    const date = calendar.localDate(now);
    if (!(await windows.isDebitWindowOpen(date, now))) {
      prompt.closed(date);
      return 0;
    }
    prompt.opened(date);
    lastDrainAt = performance.now();
    const token = prompt.draining();
    const { released, complete } = await releaseWindow(
      {
        debitQueue: deps.store.debitQueue,
        producer,
        windows,
        clock,
        logger,
        metrics,
        batchSize: options.releaseBatchSize ?? 100,
      },
      date,
    );
    prompt.drained(date, token, complete);
    return released;
  }

  const releaseDelayMs = options.releaseDelayMs ?? 250;
  let releaseTimer: NodeJS.Timeout | undefined;
  function requestDrain(): void {
    if (drainQueued) return;
    drainQueued = true;
    const drain = () => {
      releaseTimer = undefined;
      serial(async () => {
        drainQueued = false;
        // What the queue holds for the window first (unless it is known empty), then the debits made
        // ready since with the window open.
        try {
          if (!prompt.isClear(calendar.localDate(clock.now()))) await drainIfOpen();
        } catch (error) {
          prompt.sendBack();
          throw error;
        }
        await prompt.release();
      }).catch((error: unknown) => logger.error({ err: error }, 'releasing queued debits failed'));
    };
    if (releaseDelayMs <= 0) drain();
    else releaseTimer = setTimeout(drain, releaseDelayMs);
  }

  const prompt = new PromptRelease({
    debitQueue: deps.store.debitQueue,
    producer,
    windows,
    clock,
    metrics,
    requestRelease: requestDrain,
    batchSize: options.releaseBatchSize ?? 100,
  });

  const reconciliationDeps = {
    store: deps.store,
    emitter,
    producer,
    windows,
    clock,
    logger,
    metrics,
    concurrency: options.reconciliationConcurrency ?? 8,
    intakeRetentionMs: options.intakeRetentionMs ?? 7 * 86_400_000,
    settleMs: options.reconciliationSettleMs ?? 0,
    onWithdrawn: (uetrs: readonly string[]) => handlers.forget(uetrs),
  };

  const acceptedHoldMs = options.acceptedHoldMs ?? 3_000;
  const handlers = createQueueingHandlers({
    debitQueue: deps.store.debitQueue,
    emitter,
    windows,
    clock,
    logger,
    metrics,
    onQueued(windowDate) {
      if (windowDate === calendar.localDate(clock.now())) requestDrain();
    },
    prompt,
    holdMs: acceptedHoldMs,
  });

  // The queue's depth for the gauge, counted in the store on a timer of its own: a count of a large queue
  // may take seconds and must not hold up the windows. One count at a time; a failed one keeps the last.
  let counting: Promise<void> | undefined;
  function countQueue(): Promise<void> {
    counting ??= Promise.all([deps.store.debitQueue.depth(), deps.store.debitQueue.countAwaiting()])
      .then(([queued, awaiting]) => metrics.queueDepth(queued, awaiting))
      .catch((error: unknown) => logger.warn({ err: error }, 'could not count the debit queue'))
      .finally(() => {
        counting = undefined;
      });
    return counting;
  }

  let ticking: Promise<void> | undefined;
  function tick(): Promise<void> {
    // A tick waiting or running already covers this one (a long reconciliation must not pile them up).
    ticking ??= serial(async () => {
      const now = clock.now();
      const date = calendar.localDate(now);
      // The last business day's close first (at 24:00 it comes on the next day; or it came while no
      // scheduler ran), then today's. A close that fails is run again on the next tick; it does not hold
      // up today's debit window, which releases only debits queued for today.
      for (const due of windows.reconciliationsDue(now)) {
        if (due !== date)
          logger.info({ businessDate: due }, "closing the last business day's reconciliation window");
        try {
          await closeReconciliationWindow(
            reconciliationDeps,
            due,
            calendar.windowsOf(due).reconciliationClosesAt,
          );
        } catch (error) {
          logger.error(
            { err: error, businessDate: due },
            'reconciliation window close failed: it runs again on the next tick',
          );
        }
      }
      const open = await windows.isDebitWindowOpen(date, now);
      if (open) prompt.opened(date);
      else prompt.closed(date);
      metrics.debitWindowOpen(open);
      if (open !== wasOpen)
        logger.info({ businessDate: date, open }, open ? 'debit window open' : 'debit window closed');
      if (open && (!wasOpen || performance.now() - lastDrainAt >= drainIntervalMs)) await drainIfOpen();
      wasOpen = open;
    }).finally(() => {
      ticking = undefined;
    });
    return ticking;
  }

  async function status(): Promise<WindowStatus> {
    return windows.status(clock.now());
  }

  const app = createHttpApp({
    health,
    metrics: registry,
    logger,
    ...(deps.tracing ? { tracing: deps.tracing } : {}),
  });
  registerAdminRoutes(app, {
    windows,
    clock,
    debitQueue: deps.store.debitQueue,
    reconciliation: deps.store.reconciliation,
    ...(options.operatorAuth === undefined ? {} : { operatorAuth: options.operatorAuth }),
    onQueueDepth: (depth, awaiting) => metrics.queueDepth(depth, awaiting),
    openDebitWindow: (operator) =>
      serial(async () => {
        // Once the day's reconciliation window has closed, its debit window stays closed: refused before
        // anything is kept, rather than an override that would show as open and release nothing.
        const today = calendar.localDate(clock.now());
        const reconciled = windows.reconciliationClosedAt(today);
        if (reconciled !== undefined) {
          throw new AppError(
            'CONFLICT',
            `The reconciliation window of ${today} closed at ${reconciled.toISOString()}; that day's debit window cannot open again`,
          );
        }
        const date = await keepOverride('open', operator);
        declared.declare(date);
        windows.openDebitWindow(date);
        logger.info({ businessDate: date }, 'debit window opened by an operator');
        await drainIfOpen();
        return status();
      }),
    async closeDebitWindow(operator) {
      // At once, not behind a release in progress: the release stops before its next batch.
      const date = await keepOverride('closed', operator);
      windows.closeDebitWindow(date);
      prompt.closed(date);
      logger.info({ businessDate: date }, 'debit window closed by an operator');
      return status();
    },
    async closeReconciliationWindow(operator, businessDate) {
      const summary = await closeNow(businessDate);
      await deps.store.audit.record({
        actor: operator.id,
        action: 'window.reconciliation.close',
        target: `reconciliation window ${summary.windowId}`,
        detail: { raised: summary.raised, alreadyRaised: summary.alreadyRaised, waiting: summary.waiting },
        at: clock.now(),
      });
      logger.info(
        { windowId: summary.windowId, operator: operator.id },
        'reconciliation window closed by an operator',
      );
      return summary;
    },
  });

  /**
   * Keeps an operator's open or close of today's debit window in the store before it takes effect, so a
   * scheduler that restarts honours it, and in the audit trail (who, what, when); answers today's
   * business date.
   */
  async function keepOverride(debit: 'open' | 'closed', operator: Operator): Promise<string> {
    const now = clock.now();
    const businessDate = calendar.localDate(now);
    await deps.store.windowOverrides.set({ businessDate, debit, actor: operator.id, at: now });
    await deps.store.audit.record({
      actor: operator.id,
      action: debit === 'open' ? 'window.debit.open' : 'window.debit.close',
      target: `debit window ${businessDate}`,
      at: now,
    });
    return businessDate;
  }

  function closeNow(businessDate?: string): Promise<ReconciliationSummary> {
    return serial(() => {
      const now = clock.now();
      const today = calendar.localDate(now);
      const date = businessDate ?? today;
      const closesAt = date < today ? calendar.windowsOf(date).reconciliationClosesAt : now;
      return closeReconciliationWindow(reconciliationDeps, date, closesAt);
    });
  }

  let runners: ConsumerRunner[] = [];
  let timer: NodeJS.Timeout | undefined;
  let depthTimer: NodeJS.Timeout | undefined;
  const common = {
    retry: { ...schedulerRetryPolicy, ...options.retry },
    partitionsConsumedConcurrently: options.partitionsConsumedConcurrently ?? 4,
    keyConcurrency: options.keyConcurrency ?? 32,
  };

  return {
    app,
    windows,
    async start() {
      // The operators' opens and closes of recent days, as they were before a restart.
      const [overrides, closes] = await Promise.all([
        deps.store.windowOverrides.recent(rememberedDays),
        deps.store.reconciliationCloses.recent(rememberedDays),
      ]);
      windows.restore(overrides);
      windows.restoreReconciliationCloses(closes);
      for (const { debit, businessDate } of overrides) if (debit === 'open') declared.declare(businessDate);
      const acceptedCodec = codecs['rp.directdebit.accepted.v1'];
      const outcomeCodec = codecs['rp.delivery.outcome.v1'];
      if (!acceptedCodec || !outcomeCodec) {
        throw new AppError(
          'CONFIG_INVALID',
          `the scheduler needs codecs for ${consumedTopics.join(' and ')}`,
        );
      }
      const acceptedTopic = names['rp.directdebit.accepted.v1'];
      const outcomeTopic = names['rp.delivery.outcome.v1'];
      runners.push(
        await kafka.runConsumer<DirectDebit>({
          ...common,
          groupId: consumerGroupName(serviceName, acceptedTopic),
          topics: [acceptedTopic],
          codec: acceptedCodec,
          // Accepted on-us debits wait in memory for their acknowledgement: a commit writes those held
          // this long and stops at the oldest record of those it leaves there.
          commitIntervalMs: acceptedHoldMs,
          flush: (scope) => handlers.flush(scope),
          heldFrom: (topic, partition) => handlers.heldFrom(topic, partition),
          handleRecord: async (record) => {
            try {
              await handlers.accepted(record);
            } catch (error) {
              metrics.failed('accepted');
              throw error;
            }
          },
        }),
      );
      runners.push(
        await kafka.runConsumer<DeliveryOutcome>({
          ...common,
          groupId: consumerGroupName(serviceName, outcomeTopic),
          topics: [outcomeTopic],
          codec: outcomeCodec,
          // Debits made ready with their window open are released behind the handler: the offsets wait
          // for that (or for their queueing), committed once a second.
          commitIntervalMs: 1_000,
          flush: () => handlers.flushReleases(),
          handleRecord: async (record) => {
            try {
              await handlers.outcome(record);
            } catch (error) {
              metrics.failed('outcomes');
              throw error;
            }
          },
        }),
      );
      const interval = options.tickIntervalMs ?? 1_000;
      if (interval > 0) {
        timer = setInterval(() => {
          tick().catch((error: unknown) => logger.error({ err: error }, 'window tick failed'));
        }, interval);
      }
      const depthInterval = options.queueDepthIntervalMs ?? 30_000;
      if (depthInterval > 0) {
        void countQueue();
        depthTimer = setInterval(() => void countQueue(), depthInterval);
      }
      logger.info({ groups: runners.map((runner) => runner.groupId) }, 'scheduler consuming');
    },
    async stop() {
      clearInterval(timer);
      timer = undefined;
      clearInterval(depthTimer);
      depthTimer = undefined;
      // A release waiting for company is left to the queue: the next drain, here or elsewhere, sends it.
      clearTimeout(releaseTimer);
      releaseTimer = undefined;
      drainQueued = false;
      // Debits waiting for a release go to the queue instead: their records are committed after that.
      prompt.stop();
      const stopping = runners;
      runners = [];
      await Promise.all(stopping.map((runner) => runner.stop()));
      await Promise.all([chain, counting]);
    },
    tick,
    closeReconciliationWindow: closeNow,
    isRunning: () => runners.length === 2 && runners.every((runner) => runner.isRunning()),
  };
}
