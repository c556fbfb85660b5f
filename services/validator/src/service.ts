import type { CreditTransfer, DirectDebit, PaymentStatusReport, TopicName } from '@rp/contracts';
import {
  type ConsumerRunner,
  consumerGroupName,
  type KafkaClient,
  outageRetryPolicy,
  type RetryPolicy,
} from '@rp/kafka';
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
  RecentKeys,
  systemClock,
} from '@rp/runtime';
import type { Store } from '@rp/store';
import type { AccountVerifier } from './accounts.ts';
import { createValidatorHandlers } from './app.ts';
import { validatorMetrics } from './metrics.ts';

export const serviceName = 'validator';

/** What the validator reads. */
export const consumedTopics = [
  'rp.directdebit.received.v1',
  'rp.credittransfer.received.v1',
  'rp.statusreport.received.v1',
] as const satisfies readonly TopicName[];
/** What the validator writes: its producer needs a codec for each. */
export const producedTopics = [
  'rp.transaction.state.v1',
  'rp.statusreport.outbound.v1',
  'rp.directdebit.accepted.v1',
  'rp.credittransfer.accepted.v1',
] as const satisfies readonly TopicName[];

export interface ValidatorOptions {
  /** How far ahead a collection or settlement date may lie. Default 365 days. */
  readonly maxDaysAhead?: number;
  /** Transactions of one partition's batch handled at the same time. Default 32. */
  readonly keyConcurrency?: number;
  /** Partitions handled at the same time per consumer. Default 4. */
  readonly partitionsConsumedConcurrently?: number;
  readonly retry?: Partial<RetryPolicy>;
  /** Transactions remembered as answered by this process. Default 100,000. */
  readonly answeredCacheSize?: number;
}

export interface ValidatorDeps {
  readonly kafka: KafkaClient;
  readonly names: TopicNames;
  /** Codecs of the consumed and the produced topics (the producer was built with the latter). */
  readonly codecs: Partial<PipelineCodecs>;
  /** Owned by the caller, which disconnects it after `stop()`. */
  readonly producer: PipelineProducer;
  readonly store: Pick<Store, 'transactions'>;
  readonly participants: Participants;
  /** The CDV engine (or tables) accounts are verified against. */
  readonly accounts: AccountVerifier;
  readonly logger: Logger;
  /** Defaults to a registry of its own without process metrics. */
  readonly metrics?: Metrics;
  readonly clock?: Clock;
  readonly options?: ValidatorOptions;
}

export interface ValidatorService {
  /** Joins the consumer groups (debits, credit transfers, reports); resolves once all of them consume. */
  start(): Promise<void>;
  /** Finishes the batches in progress, commits and leaves the groups. */
  stop(): Promise<void>;
  /** For readiness: false once a consumer stopped or crashed. */
  isRunning(): boolean;
}

export function createValidatorService(deps: ValidatorDeps): ValidatorService {
  const { kafka, names, codecs, logger } = deps;
  const options = deps.options ?? {};
  const clock = deps.clock ?? systemClock;
  const metrics = validatorMetrics(
    deps.metrics ?? createMetrics({ service: serviceName, defaultMetrics: false }),
  );
  const handlers = createValidatorHandlers({
    emitter: createStateEmitter({ service: serviceName, producer: deps.producer, now: () => clock.now() }),
    producer: deps.producer,
    transactions: deps.store.transactions,
    participants: deps.participants,
    accounts: deps.accounts,
    clock,
    logger,
    metrics,
    maxDaysAhead: options.maxDaysAhead ?? 365,
    keyConcurrency: options.keyConcurrency ?? 32,
    answered: new RecentKeys(options.answeredCacheSize ?? 100_000),
  });
  const debitCodec = codecs['rp.directdebit.received.v1'];
  const creditCodec = codecs['rp.credittransfer.received.v1'];
  const reportCodec = codecs['rp.statusreport.received.v1'];
  if (!debitCodec || !creditCodec || !reportCodec) {
    throw new AppError('CONFIG_INVALID', `the validator needs codecs for ${consumedTopics.join(', ')}`);
  }
  const common = {
    // A record dead-lettered for an outage is a transaction never answered or never completed: retried
    // through outages.
    retry: { ...outageRetryPolicy, ...options.retry },
    partitionsConsumedConcurrently: options.partitionsConsumedConcurrently ?? 4,
  };
  let runners: ConsumerRunner[] = [];

  return {
    async start() {
      const debitTopic = names['rp.directdebit.received.v1'];
      const reportTopic = names['rp.statusreport.received.v1'];
      const debits = await kafka.runConsumer<DirectDebit>({
        ...common,
        groupId: consumerGroupName(serviceName, debitTopic),
        topics: [debitTopic],
        codec: debitCodec,
        handleBatch: handlers.debits,
      });
      runners.push(debits);
      const creditTopic = names['rp.credittransfer.received.v1'];
      const credits = await kafka.runConsumer<CreditTransfer>({
        ...common,
        groupId: consumerGroupName(serviceName, creditTopic),
        topics: [creditTopic],
        codec: creditCodec,
        handleBatch: handlers.credits,
      });
      runners.push(credits);
      const reports = await kafka.runConsumer<PaymentStatusReport>({
        ...common,
        groupId: consumerGroupName(serviceName, reportTopic),
        topics: [reportTopic],
        codec: reportCodec,
        handleBatch: handlers.reports,
      });
      runners.push(reports);
      logger.info({ groups: runners.map((runner) => runner.groupId) }, 'validator consuming');
    },
    async stop() {
      const stopping = runners;
      runners = [];
      await Promise.all(stopping.map((runner) => runner.stop()));
    },
    isRunning: () =>
      runners.length === consumedTopics.length && runners.every((runner) => runner.isRunning()),
  };
}
