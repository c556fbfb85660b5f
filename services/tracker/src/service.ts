import type { DeliveryOutcome, TopicName, TransactionStateChanged } from '@rp/contracts';
import { type ConsumerRunner, consumerGroupName, type KafkaClient, type RetryPolicy } from '@rp/kafka';
import type { PipelineCodecs, PipelineProducer, TopicNames } from '@rp/pipeline';
import {
  type AppEnv,
  AppError,
  type Clock,
  createMetrics,
  createProblemJsonErrorHandler,
  type Logger,
  type Metrics,
  type OperatorAuthenticator,
  operatorGuard,
  RecentKeys,
  RecentMap,
  systemClock,
} from '@rp/runtime';
import type { Store } from '@rp/store';
import { Hono } from 'hono';
import { createAdminRoutes, createTrackerHandlers } from './app.ts';
import { createDeadLetterRoutes } from './dead-letter-routes.ts';
import { trackerMetrics } from './metrics.ts';
import { TransactionCache } from './sequencer.ts';
import { SnapshotWriter } from './snapshot-writer.ts';

export const serviceName = 'tracker';

/** What the tracker reads: it is the only consumer group of the state topic. */
export const consumedTopics = [
  'rp.transaction.state.v1',
  'rp.delivery.outcome.v1',
] as const satisfies readonly TopicName[];
/** What the tracker writes. */
export const producedTopics = ['rp.events.v1'] as const satisfies readonly TopicName[];

/**
 * Retries of the state topic. A state change must not be dead-lettered because MongoDB or the broker
 * was away for a minute, so infrastructure failures retry (the transaction's later changes wait behind
 * them) practically without end; a refused change is not retriable and goes to the dead-letter topic at once.
 */
export const stateRetryPolicy: RetryPolicy = { delaysMs: [1_000, 5_000, 30_000], maxAttempts: 100_000 };

export interface TrackerOptions {
  /**
   * Transactions kept in memory (final ones are forgotten first), and delivery outcomes remembered as
   * recorded. Default 100,000.
   */
  readonly cacheSize?: number;
  /**
   * Transaction payloads held for the changes emitted without one (the dispatcher's deliveries of the
   * engine's status report, moments after the transaction's first change; the ingress's record of a
   * bank's report); past it, the snapshot is read.
   * Default 10,000.
   */
  readonly payloadCacheSize?: number;
  /** Partitions handled at the same time per consumer. Default 4. */
  readonly partitionsConsumedConcurrently?: number;
  /** Snapshot reads (cache misses) and delivery attempt writes in flight per batch. Default 16. */
  readonly readConcurrency?: number;
  /** Record event posting deliveries in the snapshot too (the event-publisher keeps its own log). Default false. */
  readonly recordEventPostingAttempts?: boolean;
  readonly stateRetry?: Partial<RetryPolicy>;
  readonly outcomeRetry?: Partial<RetryPolicy>;
  /** How long a fetch waits for records (lower in tests for faster hand-overs). */
  readonly maxWaitTimeMs?: number;
  /**
   * How long applied changes may wait for their snapshot write: the state consumer's commit interval,
   * each commit preceded by the writes. Default 500 ms; 0 writes every batch's changes before it ends.
   */
  readonly snapshotIntervalMs?: number;
  /** Transactions whose changes may wait at once before a batch waits for their writes. Default 5,000. */
  readonly maxPendingSnapshots?: number;
}

export interface TrackerDeps {
  readonly kafka: KafkaClient;
  readonly names: TopicNames;
  /** Codecs of the consumed topics and of rp.events.v1 (the producer was built with the latter). */
  readonly codecs: Partial<PipelineCodecs>;
  /** Owned by the caller, which disconnects it after `stop()`. */
  readonly producer: PipelineProducer;
  readonly store: Pick<Store, 'transactions' | 'audit' | 'deliveryLog' | 'idempotency'>;
  /**
   * Verifies operators' access tokens on every admin route (`ADMIN_AUTH=oauth2`): reads need
   * `operator.read`, a redrive `operator.replay`; unset: the routes are open (`ADMIN_AUTH=none`).
   */
  readonly operatorAuth?: OperatorAuthenticator;
  /** Decodes a dead-lettered value with the schema it names, for the admin API (the serde's `decode`). */
  readonly decodeValue?: (value: Buffer) => Promise<unknown>;
  readonly logger: Logger;
  /** Defaults to a registry of its own without process metrics. */
  readonly metrics?: Metrics;
  readonly clock?: Clock;
  readonly options?: TrackerOptions;
}

export interface TrackerService {
  /**
   * The admin routes, to mount on the service's HTTP app: transactions (`/admin/transactions...`), the
   * dead-letter topics of every group with their redrive (`/admin/dead-letters...`) and the audit trail.
   */
  readonly app: Hono<AppEnv>;
  /** Joins both consumer groups; resolves once both consume. */
  start(): Promise<void>;
  /** Finishes the batches in progress, commits and leaves the groups. */
  stop(): Promise<void>;
  /** For readiness: false once a consumer stopped or crashed. */
  isRunning(): boolean;
  /** The dead-letter topic refused state changes go to (after start). */
  readonly deadLetterTopic: string | undefined;
}

export function createTrackerService(deps: TrackerDeps): TrackerService {
  const { kafka, names, codecs, logger } = deps;
  const options = deps.options ?? {};
  const metrics = trackerMetrics(
    deps.metrics ?? createMetrics({ service: serviceName, defaultMetrics: false }),
  );
  const stateCodec = codecs['rp.transaction.state.v1'];
  const outcomeCodec = codecs['rp.delivery.outcome.v1'];
  if (!stateCodec || !outcomeCodec || !codecs['rp.events.v1']) {
    throw new AppError(
      'CONFIG_INVALID',
      `the tracker needs codecs for ${[...consumedTopics, ...producedTopics].join(', ')}`,
    );
  }
  const cacheSize = options.cacheSize ?? 100_000;
  const cache = new TransactionCache(cacheSize);
  const snapshots = new SnapshotWriter({
    transactions: deps.store.transactions,
    metrics,
    logger,
    onConflict: (uetr) => cache.delete(uetr),
  });
  const snapshotIntervalMs = options.snapshotIntervalMs ?? 500;
  const handlers = createTrackerHandlers({
    producer: deps.producer,
    transactions: deps.store.transactions,
    snapshots,
    // Without an interval nothing waits: every batch's changes are written before it ends.
    maxPendingSnapshots: snapshotIntervalMs > 0 ? (options.maxPendingSnapshots ?? 5_000) : 0,
    cache,
    clock: deps.clock ?? systemClock,
    logger,
    metrics,
    readConcurrency: options.readConcurrency ?? 16,
    recordEventPostingAttempts: options.recordEventPostingAttempts ?? false,
    recentOutcomes: new RecentKeys(cacheSize),
    payloads: new RecentMap(options.payloadCacheSize ?? 10_000),
  });
  const common = {
    partitionsConsumedConcurrently: options.partitionsConsumedConcurrently ?? 4,
    ...(options.maxWaitTimeMs === undefined ? {} : { maxWaitTimeMs: options.maxWaitTimeMs }),
  };
  let runners: ConsumerRunner[] = [];
  let deadLetterTopic: string | undefined;

  return {
    app: adminApp(deps, snapshots),
    get deadLetterTopic() {
      return deadLetterTopic;
    },
    async start() {
      const stateTopic = names['rp.transaction.state.v1'];
      const outcomeTopic = names['rp.delivery.outcome.v1'];
      const states = await kafka.runConsumer<TransactionStateChanged>({
        ...common,
        groupId: consumerGroupName(serviceName, stateTopic),
        topics: [stateTopic],
        codec: stateCodec,
        retry: { ...stateRetryPolicy, ...options.stateRetry },
        commitIntervalMs: snapshotIntervalMs,
        flush: () => snapshots.flush(),
        handleBatch: handlers.stateChanges,
      });
      runners.push(states);
      deadLetterTopic = states.deadLetterTopic;
      const outcomes = await kafka.runConsumer<DeliveryOutcome>({
        ...common,
        groupId: consumerGroupName(serviceName, outcomeTopic),
        topics: [outcomeTopic],
        codec: outcomeCodec,
        ...(options.outcomeRetry ? { retry: options.outcomeRetry } : {}),
        // The attempts are written behind with the snapshots: committed once they are in MongoDB.
        commitIntervalMs: snapshotIntervalMs,
        flush: () => snapshots.flush(),
        handleBatch: handlers.deliveryOutcomes,
      });
      runners.push(outcomes);
      logger.info({ groups: runners.map((runner) => runner.groupId) }, 'tracker consuming');
    },
    async stop() {
      const stopping = runners;
      runners = [];
      await Promise.all(stopping.map((runner) => runner.stop()));
    },
    isRunning: () => runners.length === 2 && runners.every((runner) => runner.isRunning()),
  };
}

function adminApp(deps: TrackerDeps, snapshots: SnapshotWriter): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.onError(createProblemJsonErrorHandler({ logger: deps.logger }));
  app.use('/admin/*', operatorGuard(deps.operatorAuth));
  app.route(
    '/',
    createAdminRoutes({
      transactions: deps.store.transactions,
      deliveryLog: deps.store.deliveryLog,
      snapshots,
      claims: deps.store.idempotency,
      logger: deps.logger,
    }),
  );
  app.route(
    '/',
    createDeadLetterRoutes({
      deadLetters: deps.kafka.deadLetters(),
      audit: deps.store.audit,
      ...(deps.decodeValue === undefined ? {} : { decode: deps.decodeValue }),
      clock: deps.clock ?? systemClock,
      logger: deps.logger,
    }),
  );
  return app;
}
