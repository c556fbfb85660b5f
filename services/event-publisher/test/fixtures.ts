import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import {
  avroTypeOptions,
  completedDebitJourney,
  type DirectDebit,
  type EventPosting,
  type KnownEventType,
  parseJsonExact,
  validate,
} from '@rp/contracts';
import { createAvroSerde, createKafka, type KafkaClient } from '@rp/kafka';
import {
  createPipelineProducer,
  createPlainCodecs,
  type Participant,
  type PipelineCodecs,
  type PipelineProducer,
  resolveTopicNames,
  stateEventId,
  type TopicNames,
  topicSpecs,
} from '@rp/pipeline';
import { createLogger, createMetrics, type Logger, type Metrics } from '@rp/runtime';
import { connectStore, type Store } from '@rp/store';
import { infra, uniqueName } from '@rp/testkit';
import { postingsOf } from '@rp/tracker';
import { MongoClient } from 'mongodb';
import { DeliveryStore } from '../src/delivery-store.ts';
import { describePosting } from '../src/postings.ts';
import {
  createEventPublisherService,
  type EventPublisherOptions,
  type EventPublisherService,
} from '../src/service.ts';
import { parseSigningSecrets } from '../src/signing.ts';
import { TestBank } from './bank.ts';

const examples = new URL('../../../avro/examples/', import.meta.url);
const exampleDebit = (() => {
  const result = validate(
    'DirectDebit',
    parseJsonExact(readFileSync(new URL('DirectDebit.za-eft-on-us.json', examples), 'utf8')),
  );
  if (!result.ok) throw new Error(JSON.stringify(result.errors));
  return result.value as DirectDebit;
})();

/** A ZA_EFT debit of its own (UETR, identification) between the given banks' member ids. */
export function newDebit(debtorBank: string, creditorBank: string): DirectDebit {
  const uetr = randomUUID();
  return {
    ...exampleDebit,
    messageIdentifiers: {
      ...exampleDebit.messageIdentifiers,
      messageIdentification: `T${uetr.replace(/-/g, '').slice(0, 30)}`,
    },
    transactionIdentifiers: {
      ...exampleDebit.transactionIdentifiers,
      uetr,
      endToEndIdentification: `E2E-${uetr.slice(0, 8)}`,
    },
    debtorAgent: { ...exampleDebit.debtorAgent, memberId: debtorBank },
    creditorAgent: { ...exampleDebit.creditorAgent, memberId: creditorBank },
  };
}

export const uetrOfDebit = (debit: DirectDebit) => debit.transactionIdentifiers.uetr;

/** A posting's event id, as the bank sees it. */
export const idOf = (posting: EventPosting) => describePosting(posting, '').eventId;
/** The event classes a test bank subscribes to. */
export const both = ['TRANSACTION_STATE', 'ESM_STATE'] as const;
export const stateOnly = ['TRANSACTION_STATE'] as const;

/**
 * The postings the tracker produces for step `step` of a debit's journey: TRANSACTION_STATE, then
 * ESM_STATE (the debits are ZA_EFT).
 */
export function journeyPostings(debit: DirectDebit, step: number): EventPosting[] {
  const uetr = uetrOfDebit(debit);
  const eventType = completedDebitJourney[step] as Exclude<KnownEventType, 'UNKNOWN'>;
  return postingsOf({
    uetr,
    eventType,
    eventId: stateEventId(uetr, eventType),
    sequence: step + 1,
    direction: 'OUTBOUND',
    occurredAt: new Date(Date.UTC(2026, 2, 2, 7, 0, step)).toISOString(),
    transaction: debit,
  });
}

/** Member ids of the test banks: A takes both classes, B only TRANSACTION_STATE, C has no events URL. */
export const bankA = '250655';
export const bankB = '198765';
export const bankC = '470010';
export const secretsA = [
  'bank-a-secret-from-last-year',
  `whsec_${Buffer.from('bank-a-new-key-0123456789').toString('base64')}`,
];
export const secretsB = ['bank-b-only-secret-0123'];

export interface TestEnvironment {
  readonly kafka: KafkaClient;
  readonly names: TopicNames;
  readonly codecs: Partial<PipelineCodecs>;
  readonly producer: PipelineProducer;
  readonly store: Store;
  /**
   * Commands `store` has sent, by name. The publisher writes only its delivery log through it (its
   * postings and lanes go through `deliveries`), so its inserts and updates are delivery log writes.
   */
  storeCommands(name: string): number;
  readonly deliveries: DeliveryStore;
  readonly banks: { readonly a: TestBank; readonly b: TestBank };
  readonly participants: Map<string, Participant>;
  readonly logger: Logger;
  /** The publisher's metrics registry (kept across restarts). */
  readonly metrics: Metrics;
  publisher: EventPublisherService;
  /** The value of a counter or gauge with these labels, as /metrics shows it (0 when absent). */
  metric(name: string, labels?: Record<string, string>): Promise<number>;
  /** Produces the postings as the tracker does (keyed by UETR, in state order per UETR). */
  produce(postings: readonly EventPosting[]): Promise<void>;
  /** Stops the publisher and starts a new one on the same topics and database (a restart). */
  restartPublisher(): Promise<EventPublisherService>;
  dispose(): Promise<void>;
}

/** Short schedules so that retries happen within a test. */
export const testOptions: EventPublisherOptions = {
  attemptTimeoutMs: 2_000,
  connectTimeoutMs: 1_000,
  retrySchedule: { delaysMs: [50, 100, 200, 300], jitter: 0.2 },
  breakerThreshold: 3,
  breakerCooldownMs: 100,
  breakerMaxCooldownMs: 300,
  workerTickMs: 50,
  gaugeIntervalMs: 50,
  maxWaitTimeMs: 100,
  consumerRetry: { delaysMs: [200], maxAttempts: 1_000 },
};

/**
 * Topics in a namespace of their own, a database of its own, two test banks, and a publisher. The
 * signing secrets given to the publisher may differ from those the banks check (`secrets`).
 */
export async function startEnvironment(
  options: {
    publisherSecrets?: Record<string, string[]>;
    bankSecrets?: { a?: string[]; b?: string[] };
    /** Bank A's events URL when another receiver than the test bank stands in for it. */
    eventsUrlA?: string;
    options?: EventPublisherOptions;
  } = {},
): Promise<TestEnvironment> {
  const endpoints = await infra();
  const logger = createLogger({ service: 'event-publisher-test', level: 'warn' });
  const names = resolveTopicNames(uniqueName('evp'));
  const kafka = createKafka({ brokers: endpoints.kafkaBrokers, clientId: 'event-publisher-test', logger });
  await kafka.ensureTopics(topicSpecs(names, { partitions: 3 }));
  const serde = createAvroSerde({ registryUrl: endpoints.schemaRegistryUrl, avro: avroTypeOptions() });
  const codecs = await createPlainCodecs(serde, names, ['rp.events.v1']);
  const producer = createPipelineProducer(kafka, names, codecs);
  const database = uniqueName('evp').replace(/-/g, '_');
  const storeCommands = new Map<string, number>();
  const store = await connectStore({
    uri: endpoints.mongodbUri,
    database,
    appName: 'event-publisher-test',
    onCommand: ({ commandName }) => storeCommands.set(commandName, (storeCommands.get(commandName) ?? 0) + 1),
  });
  await store.ensureIndexes();
  const mongo = new MongoClient(endpoints.mongodbUri);
  await mongo.connect();
  const deliveries = new DeliveryStore(mongo.db(database));
  await deliveries.ensureIndexes();

  const a = await new TestBank(options.bankSecrets?.a ?? secretsA).start();
  const b = await new TestBank(options.bankSecrets?.b ?? secretsB).start();
  const participant = (
    memberId: string,
    eventsUrl: string | undefined,
    eventClasses: string[],
  ): Participant => ({
    memberId,
    name: memberId,
    baseUrl: `http://127.0.0.1:9/${memberId}`,
    ...(eventsUrl ? { eventsUrl } : {}),
    eventClasses,
    debitLimits: {},
  });
  const participants = new Map<string, Participant>([
    [bankA, participant(bankA, options.eventsUrlA ?? a.url, ['TRANSACTION_STATE', 'ESM_STATE'])],
    [bankB, participant(bankB, b.url, ['TRANSACTION_STATE'])],
    [bankC, participant(bankC, undefined, ['TRANSACTION_STATE', 'ESM_STATE'])],
  ]);
  const metrics = createMetrics({ service: 'event-publisher-test', defaultMetrics: false });
  const signingSecrets = parseSigningSecrets(
    JSON.stringify(options.publisherSecrets ?? { [bankA]: secretsA, [bankB]: secretsB }),
  );
  const newPublisher = async () => {
    const service = createEventPublisherService({
      kafka,
      names,
      codecs,
      store,
      deliveries,
      participants,
      signingSecrets,
      logger,
      metrics,
      options: { ...testOptions, ...options.options },
    });
    await service.start();
    return service;
  };

  const environment: TestEnvironment = {
    kafka,
    names,
    codecs,
    producer,
    store,
    storeCommands: (name) => storeCommands.get(name) ?? 0,
    deliveries,
    banks: { a, b },
    participants,
    logger,
    metrics,
    publisher: await newPublisher(),
    async metric(name, labels = {}) {
      const metric = (await metrics.registry.getMetricsAsJSON()).find((entry) => entry.name === name);
      const values = (metric?.values ?? []) as { value: number; labels: Record<string, string | number> }[];
      return values
        .filter((value) =>
          Object.entries(labels).every(([label, wanted]) => String(value.labels[label]) === wanted),
        )
        .reduce((sum, value) => sum + value.value, 0);
    },
    async produce(postings) {
      await producer.send(
        'rp.events.v1',
        postings.map((value) => ({
          key: value.class === 'TRANSACTION_STATE' ? value.tranInfo.tranUetr : value.identifiers.uetr,
          value,
        })),
      );
    },
    async restartPublisher() {
      await environment.publisher.stop();
      environment.publisher = await newPublisher();
      return environment.publisher;
    },
    async dispose() {
      await environment.publisher.stop();
      await producer.disconnect();
      await Promise.all([a.stop(), b.stop()]);
      await kafka.close();
      await store.close();
      await mongo.close();
    },
  };
  return environment;
}

/** Every step of every debit, interleaved (step 1 of all, then step 2 ...), as concurrent journeys produce. */
export function interleavedJourneys(
  debits: readonly DirectDebit[],
  steps = completedDebitJourney.length,
): EventPosting[][] {
  return Array.from({ length: steps }, (_, step) => debits.flatMap((debit) => journeyPostings(debit, step)));
}

/** The event ids a bank should get for a debit, in state order. */
export function expectedIds(
  debit: DirectDebit,
  eventClasses: readonly ('TRANSACTION_STATE' | 'ESM_STATE')[],
  idOf: (posting: EventPosting) => string,
  steps = completedDebitJourney.length,
): string[] {
  return Array.from({ length: steps }, (_, step) => journeyPostings(debit, step))
    .flat()
    .filter((posting) => eventClasses.includes(posting.class))
    .map(idOf);
}

/** Polls for state outside the banks (MongoDB); rejects after `timeoutMs`. */
export async function eventually<R>(
  probe: () => Promise<R | undefined>,
  what: string,
  timeoutMs = 30_000,
): Promise<R> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
