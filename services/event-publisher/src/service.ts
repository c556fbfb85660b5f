import type { EventPosting, TopicName } from '@rp/contracts';
import { type ConsumerRunner, consumerGroupName, type KafkaClient, type RetryPolicy } from '@rp/kafka';
import type { Participants, PipelineCodecs, TopicNames } from '@rp/pipeline';
import {
  type AppEnv,
  AppError,
  type Clock,
  createMetrics,
  type Logger,
  type Metrics,
  type OperatorAuthenticator,
  systemClock,
  type Tracing,
} from '@rp/runtime';
import type { Store } from '@rp/store';
import type { Hono } from 'hono';
import { createAdminRoutes } from './app.ts';
import { BankClient } from './bank-client.ts';
import { BankGates } from './bank-gate.ts';
import { createPostingHandler } from './consumer.ts';
import { Delivery } from './delivery.ts';
import type { DeliveryStore } from './delivery-store.ts';
import { FirstAttemptLog } from './first-attempts.ts';
import { LaneIndex } from './lane-index.ts';
import { publisherMetrics } from './metrics.ts';
import { Parking } from './parking.ts';
import { createPostingReader } from './posting-reader.ts';
import { deliveryLogRetention, postingRetention, purgeDeliveryLog, purgePostings } from './purge.ts';
import { defaultRetrySchedule, type RetrySchedule, validateRetrySchedule } from './retry-schedule.ts';
import { type SigningSecrets, signerFor } from './signing.ts';
import { Subscriptions, TransactionBanks } from './subscribers.ts';
import { LaneWorker } from './worker.ts';

export const serviceName = 'event-publisher';

/** What the publisher reads. It produces nothing: delivery never feeds back into processing. */
export const consumedTopics = ['rp.events.v1'] as const satisfies readonly TopicName[];

/**
 * Retries of the consumer itself, for what is not the bank's fault: MongoDB away (the posting could be
 * neither logged nor queued) or an ESM_STATE posting whose transaction's banks are not known yet.
 * Practically without end, like the tracker's: dead-lettering a posting for an outage would lose it.
 */
export const consumerRetryPolicy: RetryPolicy = { delaysMs: [1_000, 5_000, 30_000], maxAttempts: 100_000 };

export interface EventPublisherOptions {
  readonly retrySchedule?: Partial<RetrySchedule>;
  /** Longest one POST may take. Default 10 s. */
  readonly attemptTimeoutMs?: number;
  /** Default 3 s. */
  readonly connectTimeoutMs?: number;
  /** Requests in flight per bank, and its keep-alive pool size. Default 32. */
  readonly bankConcurrency?: number;
  /** Idle time of a pooled connection. Default 4 s. */
  readonly keepAliveMs?: number;
  /** Retryable failures in a row that pause a bank. Default 5. */
  readonly breakerThreshold?: number;
  /** First pause of a bank; doubled for each failed probe. Default 1 s. */
  readonly breakerCooldownMs?: number;
  /** Longest pause of a bank between probes. Default 15 s. */
  readonly breakerMaxCooldownMs?: number;
  /** Parked lanes this process keeps track of before the consumer waits. Default 250,000. */
  readonly maxParkedLanes?: number;
  /** Lanes of one batch handled at once. Default 256. */
  readonly laneConcurrency?: number;
  /** How long a batch sends directly before it queues the rest for the worker. Default: the attempt timeout. */
  readonly directBudgetMs?: number;
  /** Lanes the retry worker works at once. Default 64. */
  readonly workerConcurrency?: number;
  /** Longest wait of the retry worker between looks at its lanes. Default 500 ms. */
  readonly workerTickMs?: number;
  /** Partitions handled at once. Default 4. */
  readonly partitionsConsumedConcurrently?: number;
  /** Transactions whose banks are remembered for their ESM_STATE postings. Default 100,000. */
  readonly transactionBanksCached?: number;
  /**
   * Delivery log records of postings sent at once that wait for the consumer's next commit at most; past
   * it the consumer waits for them to be written. Default 2,000 (a few seconds of writes).
   */
  readonly deliveryLogMaxWaiting?: number;
  /** Most postings one replay queues. Default 10,000. */
  readonly replayMaxPostings?: number;
  /** How often every parked lane of the topic is read again (lanes of a process that died). Default 60 s. */
  readonly laneRescanMs?: number;
  /** How often the parked-lane gauges are refreshed. Default 5 s. */
  readonly gaugeIntervalMs?: number;
  /**
   * How long a stored posting (one that waited, or was replayed) is kept after it was last stored. Must
   * exceed the retry schedule's maximum age. Default: that age and a day.
   */
  readonly postingRetentionMs?: number;
  /**
   * How long a delivery log entry is kept once its delivery ended (delivered, failed, expired), after it
   * last changed. Must exceed the retry schedule's maximum age. Default: kept.
   */
  readonly deliveryLogRetentionMs?: number;
  /** How often stored postings and delivery log entries past their retention are deleted. Default 1 h. */
  readonly postingPurgeIntervalMs?: number;
  readonly consumerRetry?: Partial<RetryPolicy>;
  /** How long a fetch waits for records (lower in tests for faster hand-overs). */
  readonly maxWaitTimeMs?: number;
}

export interface EventPublisherDeps {
  readonly kafka: KafkaClient;
  readonly names: TopicNames;
  /** Must hold a codec of rp.events.v1 (plain shapes: see createPlainCodecs). */
  readonly codecs: Partial<PipelineCodecs>;
  /** The delivery log and the transaction snapshots (for the banks of ESM_STATE postings). */
  readonly store: Pick<Store, 'deliveryLog' | 'transactions' | 'audit'>;
  /** The publisher's own collections (postings and lanes). */
  readonly deliveries: DeliveryStore;
  readonly participants: Participants;
  readonly signingSecrets: SigningSecrets;
  /** Verifies operators' access tokens on the admin routes; unset: they are open (`ADMIN_AUTH=none`). */
  readonly operatorAuth?: OperatorAuthenticator;
  readonly logger: Logger;
  /** Client spans for the postings sent to banks. */
  readonly tracing?: Tracing;
  readonly metrics?: Metrics;
  readonly clock?: Clock;
  readonly options?: EventPublisherOptions;
}

export interface EventPublisherService {
  /** The admin routes (`/admin/events/...`), to mount on the service's HTTP app. */
  readonly app: Hono<AppEnv>;
  /** Starts the retry worker and joins the consumer group; resolves once it consumes. */
  start(): Promise<void>;
  /** Finishes the batch in progress and commits, stops the worker, closes the connection pools. */
  stop(): Promise<void>;
  /** For readiness: false once the consumer stopped or crashed. */
  isRunning(): boolean;
  /** Parked lanes this process tracks (tests and diagnostics). */
  readonly parkedLanes: number;
}

export function createEventPublisherService(deps: EventPublisherDeps): EventPublisherService {
  const { kafka, names, logger } = deps;
  const options = deps.options ?? {};
  const clock = deps.clock ?? systemClock;
  const codec = deps.codecs['rp.events.v1'];
  if (!codec) throw new AppError('CONFIG_INVALID', 'the event publisher needs the codec of rp.events.v1');
  const subscriptions = new Subscriptions(deps.participants);
  const unsigned = subscriptions
    .receivers()
    .filter((participant) => !signerFor(deps.signingSecrets, participant.memberId))
    .map((participant) => participant.memberId);
  if (unsigned.length > 0) {
    throw new AppError(
      'CONFIG_INVALID',
      `banks with an events URL need signing secrets (SIGNING_SECRETS): ${unsigned.join(', ')}`,
    );
  }

  const metrics = publisherMetrics(
    deps.metrics ?? createMetrics({ service: serviceName, defaultMetrics: false }),
  );
  const schedule = validateRetrySchedule({ ...defaultRetrySchedule, ...options.retrySchedule });
  const retentionMs = postingRetention(options.postingRetentionMs, schedule.maxAgeMs);
  const logRetentionMs = deliveryLogRetention(options.deliveryLogRetentionMs, schedule.maxAgeMs);
  const attemptTimeoutMs = options.attemptTimeoutMs ?? 10_000;
  const bankConcurrency = options.bankConcurrency ?? 32;
  const client = new BankClient({
    attemptTimeoutMs,
    connectTimeoutMs: Math.min(options.connectTimeoutMs ?? 3_000, attemptTimeoutMs),
    connectionsPerOrigin: bankConcurrency,
    keepAliveMs: options.keepAliveMs ?? 4_000,
  });
  const gates = new BankGates({
    concurrency: bankConcurrency,
    failureThreshold: options.breakerThreshold ?? 5,
    baseCooldownMs: options.breakerCooldownMs ?? 1_000,
    maxCooldownMs: options.breakerMaxCooldownMs ?? 15_000,
  });
  const index = new LaneIndex(options.maxParkedLanes ?? 250_000);
  const delivery = new Delivery({
    client,
    gates,
    signers: deps.signingSecrets,
    deliveryLog: deps.store.deliveryLog,
    clock,
    logger,
    metrics,
    userAgent: 'rp-event-publisher/1',
    ...(deps.tracing ? { tracing: deps.tracing } : {}),
  });
  const worker = new LaneWorker({
    store: deps.deliveries,
    index,
    delivery,
    subscriptions,
    gates,
    schedule,
    clock,
    logger,
    metrics,
    options: {
      concurrency: options.workerConcurrency ?? 64,
      tickMs: options.workerTickMs ?? 500,
      leaseMs: 3 * attemptTimeoutMs + 30_000,
      errorBackoffMs: 5_000,
      gaugeIntervalMs: options.gaugeIntervalMs ?? 5_000,
    },
  });
  const parking = new Parking({
    store: deps.deliveries,
    index,
    schedule,
    clock,
    metrics,
    wake: () => worker.wake(),
  });
  const firstAttempts = new FirstAttemptLog({
    deliveryLog: deps.store.deliveryLog,
    maxWaiting: options.deliveryLogMaxWaiting ?? 2_000,
    onWaiting: (waiting) => metrics.deliveryLogWaiting(waiting),
    onWritten: (records) => metrics.firstAttemptsLogged(records),
  });
  const handler = createPostingHandler({
    store: deps.deliveries,
    firstAttempts,
    transactions: deps.store.transactions,
    subscriptions,
    transactionBanks: new TransactionBanks(options.transactionBanksCached ?? 100_000),
    index,
    parking,
    delivery,
    gates,
    clock,
    logger,
    metrics,
    laneConcurrency: options.laneConcurrency ?? 256,
    readConcurrency: 16,
    directBudgetMs: options.directBudgetMs ?? attemptTimeoutMs,
  });
  const app = createAdminRoutes({
    store: deps.deliveries,
    deliveryLog: deps.store.deliveryLog,
    replay: {
      deliveryLog: deps.store.deliveryLog,
      reader: createPostingReader({ kafka, codec, logger }),
      store: deps.deliveries,
      parking,
      subscriptions,
      clock,
      logger,
      metrics,
      maxPostings: options.replayMaxPostings ?? 10_000,
    },
    audit: deps.store.audit,
    clock,
    ...(deps.operatorAuth === undefined ? {} : { operatorAuth: deps.operatorAuth }),
    logger,
  });

  let runner: ConsumerRunner | undefined;
  let rescan: NodeJS.Timeout | undefined;
  let purgeTimer: NodeJS.Timeout | undefined;
  const purging = new AbortController();
  let purge: Promise<number> | undefined;
  const purgeOnce = () => {
    purge ??= (async () => {
      const postings = await purgePostings(
        { store: deps.deliveries, clock, logger, metrics, retentionMs, batch: 1_000 },
        purging.signal,
      );
      if (logRetentionMs === undefined) return postings;
      const entries = await purgeDeliveryLog(
        {
          deliveryLog: deps.store.deliveryLog,
          clock,
          logger,
          metrics,
          retentionMs: logRetentionMs,
          batch: 1_000,
        },
        purging.signal,
      );
      return postings + entries;
    })().finally(() => {
      purge = undefined;
    });
  };
  const topic = names['rp.events.v1'];
  /**
   * Reads every parked lane of the topic into the index: at start, and then every rescan. A lane a rescan
   * adds (one a park of this process is writing is left to it) was parked by another instance, or this
   * process lost track of it: either way it is worked from now on, and it is logged with its lane.
   */
  const loadAll = async (rescan: boolean) => {
    try {
      const added = await parking.loadAll(topic);
      if (!rescan) {
        if (added.length > 0) logger.info({ lanes: added.length }, 'parked lanes read from MongoDB');
      } else if (added.length > 0) {
        // Info, not a warning: with several instances, each finds the lanes the others park.
        metrics.lanesFound(added.length);
        logger.info(
          {
            lanes: added.length,
            sample: added.slice(0, 5).map((lane) => ({
              laneId: lane.laneId,
              parkedAt: lane.parkedAt,
              queued: lane.count,
              headFailures: lane.headFailures,
              nextAttemptAt: lane.nextAttemptAt,
            })),
          },
          'parked lanes this process did not know: parked by another instance, or lost track of here; worked from now on',
        );
      }
    } catch (error) {
      logger.warn({ err: error }, 'parked lanes not read; trying again at the next rescan');
    }
  };
  return {
    app,
    get parkedLanes() {
      return index.size;
    },
    async start() {
      if (logRetentionMs !== undefined) await deps.store.deliveryLog.ensurePurgeIndex();
      await loadAll(false);
      worker.start();
      rescan = setInterval(() => void loadAll(true), options.laneRescanMs ?? 60_000);
      rescan.unref();
      purgeOnce();
      purgeTimer = setInterval(purgeOnce, options.postingPurgeIntervalMs ?? 3_600_000);
      purgeTimer.unref();
      runner = await kafka.runConsumer<EventPosting>({
        groupId: consumerGroupName(serviceName, topic),
        topics: [topic],
        codec,
        retry: { ...consumerRetryPolicy, ...options.consumerRetry },
        partitionsConsumedConcurrently: options.partitionsConsumedConcurrently ?? 4,
        ...(options.maxWaitTimeMs === undefined ? {} : { maxWaitTimeMs: options.maxWaitTimeMs }),
        handleBatch: handler,
        flush: () => firstAttempts.flush(),
      });
      logger.info(
        {
          groupId: runner.groupId,
          banks: subscriptions.receivers().map((participant) => participant.memberId),
        },
        'event publisher consuming',
      );
    },
    async stop() {
      clearInterval(rescan);
      clearInterval(purgeTimer);
      purging.abort();
      await purge;
      const stopping = runner;
      runner = undefined;
      await stopping?.stop();
      // The consumer's last commit wrote them, unless it could not commit (a crash, a lost partition).
      await firstAttempts
        .flush()
        .catch((error: unknown) =>
          logger.warn(
            { err: error, waiting: firstAttempts.size },
            'delivery log records not written at stop',
          ),
        );
      await worker.stop();
      await client.close();
    },
    isRunning: () => runner?.isRunning() ?? false,
  };
}
