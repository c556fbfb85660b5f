import type { CreditTransfer, DirectDebit, PaymentStatusReport, TopicName } from '@rp/contracts';
import { type ConsumerRunner, consumerGroupName, type KafkaClient } from '@rp/kafka';
import {
  createStateEmitter,
  type Participants,
  type PipelineCodecs,
  type PipelineProducer,
  type TopicNames,
} from '@rp/pipeline';
import {
  AppError,
  type Clock,
  createMetrics,
  type Logger,
  type Metrics,
  systemClock,
  type Tracing,
} from '@rp/runtime';
import { WindowCalendar, type WindowSettings } from '@rp/scheduler/windows';
import { createDispatchHandlers } from './app.ts';
import { type BankClient, createBankClient } from './bank-client.ts';
import { BankGates } from './bank-gate.ts';
import { createDeliverer } from './delivery.ts';
import { dispatcherMetrics } from './metrics.ts';
import { RetrySchedule } from './schedule.ts';
import type { SigningKeys } from './signing.ts';

export const serviceName = 'dispatcher';

/** What the dispatcher reads. */
export const consumedTopics = [
  'rp.statusreport.outbound.v1',
  'rp.directdebit.due.v1',
  'rp.credittransfer.accepted.v1',
] as const satisfies readonly TopicName[];
/** What the dispatcher writes: its producer needs a codec for each. */
export const producedTopics = [
  'rp.transaction.state.v1',
  'rp.delivery.outcome.v1',
] as const satisfies readonly TopicName[];

export interface DispatcherOptions {
  /** Longest one call on a bank may take. Default 10 s. */
  readonly requestTimeoutMs?: number;
  /** Longest a connection may take to open. Default 3 s. */
  readonly connectTimeoutMs?: number;
  /** Calls on one bank at the same time (and its connection pool). Default 16. */
  readonly bankConcurrency?: number;
  /** Longest a call waits for a free slot on its bank before it is deferred. Default 2 s. */
  readonly bankQueueWaitMs?: number;
  /** How long a bank that stopped answering is left alone (then one probe). Default 5 s. */
  readonly bankCooldownMs?: number;
  /** Retryable refusals in a row that pause a bank like a timeout does. Default 5. */
  readonly bankFailureThreshold?: number;
  /** Idle keep-alive of pooled connections. Default 4 s. */
  readonly keepAliveMs?: number;
  /** Exponential backoff with full jitter: first retry's upper bound, and the cap. Defaults 1 s and 5 min. */
  readonly backoffBaseMs?: number;
  readonly backoffMaxMs?: number;
  /** Longest Retry-After honoured. Default 1 h. */
  readonly maxRetryAfterMs?: number;
  /**
   * Delays of the consumer's retry tiers: when a waiting record is looked at again (the last repeats).
   * A record looked at before its backoff is over waits on the next tier. Default 1, 5, 15, 30, 60 s.
   */
  readonly retryTierDelaysMs?: readonly number[];
  /** Transactions of one partition delivered at the same time. Default 64. */
  readonly keyConcurrency?: number;
  readonly partitionsConsumedConcurrently?: number;
  /** Messages whose retry state this process remembers. Default 100,000. */
  readonly retryStateSize?: number;
}

export interface DispatcherDeps {
  readonly kafka: KafkaClient;
  readonly names: TopicNames;
  /** Codecs of the consumed and the produced topics (the producer was built with the latter). */
  readonly codecs: Partial<PipelineCodecs>;
  /** Owned by the caller, which disconnects it after `stop()`. */
  readonly producer: PipelineProducer;
  /** Snapshots: the DirectDebit a status report's state changes carry. */
  readonly participants: Participants;
  /** The business calendar: retries stop at the close of the message's reconciliation window. */
  readonly windows: WindowSettings;
  /** Signing keys per member id (`*`: every other bank); a bank without keys gets unsigned calls. */
  readonly signingKeys?: ReadonlyMap<string, SigningKeys>;
  readonly logger: Logger;
  /** Client spans for the calls to banks. */
  readonly tracing?: Tracing;
  /** Defaults to a registry of its own without process metrics. */
  readonly metrics?: Metrics;
  readonly clock?: Clock;
  readonly options?: DispatcherOptions;
}

export interface DispatcherService {
  /** Joins the consumer groups (one per consumed topic); resolves once all of them consume. */
  start(): Promise<void>;
  /** Finishes the calls in progress, commits, leaves the groups, closes the connection pools. */
  stop(): Promise<void>;
  /** For readiness: false once a consumer stopped or crashed. */
  isRunning(): boolean;
}

export function createDispatcherService(deps: DispatcherDeps): DispatcherService {
  const { kafka, names, codecs, logger } = deps;
  const options = deps.options ?? {};
  const clock = deps.clock ?? systemClock;
  const metrics = dispatcherMetrics(
    deps.metrics ?? createMetrics({ service: serviceName, defaultMetrics: false }),
  );
  const timeoutMs = options.requestTimeoutMs ?? 10_000;
  const bankConcurrency = options.bankConcurrency ?? 16;
  let client: BankClient | undefined;
  let runners: ConsumerRunner[] = [];

  return {
    async start() {
      const reportCodec = codecs['rp.statusreport.outbound.v1'];
      const dueCodec = codecs['rp.directdebit.due.v1'];
      const creditCodec = codecs['rp.credittransfer.accepted.v1'];
      if (!reportCodec || !dueCodec || !creditCodec) {
        throw new AppError('CONFIG_INVALID', `the dispatcher needs codecs for ${consumedTopics.join(', ')}`);
      }
      client = createBankClient({
        timeoutMs,
        connectTimeoutMs: options.connectTimeoutMs ?? 3_000,
        connectionsPerBank: bankConcurrency,
        keepAliveMs: options.keepAliveMs ?? 4_000,
      });
      const deliver = createDeliverer({
        client,
        gates: new BankGates({
          concurrency: bankConcurrency,
          maxWaitMs: options.bankQueueWaitMs ?? 2_000,
          cooldownMs: options.bankCooldownMs ?? 5_000,
          failureThreshold: options.bankFailureThreshold ?? 5,
        }),
        schedule: new RetrySchedule(options.retryStateSize ?? 100_000),
        emitter: createStateEmitter({
          service: serviceName,
          producer: deps.producer,
          now: () => clock.now(),
        }),
        producer: deps.producer,
        calendar: new WindowCalendar(deps.windows),
        clock,
        backoff: { baseMs: options.backoffBaseMs ?? 1_000, maxMs: options.backoffMaxMs ?? 300_000 },
        maxRetryAfterMs: options.maxRetryAfterMs ?? 3_600_000,
        signingKeys: deps.signingKeys ?? new Map(),
        metrics,
        ...(deps.tracing ? { tracing: deps.tracing } : {}),
        logger,
        userAgent: 'rp-dispatcher/0.1',
      });
      const handlers = createDispatchHandlers({
        deliver,
        participants: deps.participants,
        metrics,
      });
      const common = {
        // Store-and-forward: a record is retried until its deadline (the handler stops it), never
        // dead-lettered for the number of its attempts.
        retry: {
          delaysMs: options.retryTierDelaysMs ?? [1_000, 5_000, 15_000, 30_000, 60_000],
          maxAttempts: 1_000_000,
        },
        keyConcurrency: options.keyConcurrency ?? 64,
        partitionsConsumedConcurrently: options.partitionsConsumedConcurrently ?? 4,
      };
      const reportTopic = names['rp.statusreport.outbound.v1'];
      const dueTopic = names['rp.directdebit.due.v1'];
      const creditTopic = names['rp.credittransfer.accepted.v1'];
      runners.push(
        await kafka.runConsumer<PaymentStatusReport>({
          ...common,
          groupId: consumerGroupName(serviceName, reportTopic),
          topics: [reportTopic],
          codec: reportCodec,
          handleRecord: handlers.statusReport,
        }),
      );
      runners.push(
        await kafka.runConsumer<DirectDebit>({
          ...common,
          groupId: consumerGroupName(serviceName, dueTopic),
          topics: [dueTopic],
          codec: dueCodec,
          handleRecord: handlers.dueDebit,
        }),
      );
      // A consumer group of its own: credits are delivered even while debit deliveries lag, and the other
      // way round.
      runners.push(
        await kafka.runConsumer<CreditTransfer>({
          ...common,
          groupId: consumerGroupName(serviceName, creditTopic),
          topics: [creditTopic],
          codec: creditCodec,
          handleRecord: handlers.creditTransfer,
        }),
      );
      logger.info({ groups: runners.map((runner) => runner.groupId) }, 'dispatcher consuming');
    },
    async stop() {
      const stopping = runners;
      runners = [];
      await Promise.all(stopping.map((runner) => runner.stop()));
      await client?.close();
      client = undefined;
    },
    isRunning: () =>
      runners.length === consumedTopics.length && runners.every((runner) => runner.isRunning()),
  };
}
