import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import {
  avroTypeOptions,
  completedDebitJourney,
  type DeliveryOutcome,
  type DirectDebit,
  type KnownEventType,
  type PaymentStatusReport,
  parseJsonExact,
  type TransactionState,
  type TransactionStateChanged,
  validate,
} from '@rp/contracts';
import { type AvroSerde, createAvroSerde, createKafka, type KafkaClient } from '@rp/kafka';
import {
  buildStateChange,
  createPipelineProducer,
  createPlainCodecs,
  type PipelineCodecs,
  type PipelineProducer,
  resolveTopicNames,
  type TopicNames,
  topicSpecs,
} from '@rp/pipeline';
import type { Logger, Metrics } from '@rp/runtime';
import { connectStore, type Store } from '@rp/store';
import { infra, uniqueName } from '@rp/testkit';
import {
  consumedTopics,
  createTrackerService,
  producedTopics,
  type TrackerOptions,
  type TrackerService,
} from '../src/service.ts';

const examples = new URL('../../../avro/examples/', import.meta.url);

function example<N extends 'DirectDebit' | 'PaymentStatusReport' | 'DeliveryOutcome'>(name: N, file: string) {
  const result = validate(name, parseJsonExact(readFileSync(new URL(file, examples), 'utf8')));
  if (!result.ok) throw new Error(`${file}: ${JSON.stringify(result.errors)}`);
  return result.value;
}

export const exampleDebit = example('DirectDebit', 'DirectDebit.za-eft-on-us.json') as DirectDebit;
export const exampleAccp = example(
  'PaymentStatusReport',
  'PaymentStatusReport.accp.json',
) as PaymentStatusReport;
export const exampleAcsc = example(
  'PaymentStatusReport',
  'PaymentStatusReport.acsc.json',
) as PaymentStatusReport;

/** The example debit as a new transaction (own UETR and message identification). */
export function newDebit(overrides: Partial<DirectDebit> = {}): DirectDebit {
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
    ...overrides,
  };
}

/** The report a change of this type carries (the engine's ACCP, the bank's ACSC), for the debit. */
export function reportFor(debit: DirectDebit, eventType: KnownEventType): PaymentStatusReport | undefined {
  const uetr = debit.transactionIdentifiers.uetr;
  const reportOf = (report: PaymentStatusReport, id: string): PaymentStatusReport => ({
    ...report,
    messageIdentifiers: { ...report.messageIdentifiers, messageIdentification: id },
    transactionIdentifiers: debit.transactionIdentifiers,
  });
  const index = completedDebitJourney.indexOf(eventType);
  if (index >= completedDebitJourney.indexOf('DEBIT_RESPONSE_ACCEPTED'))
    return reportOf(exampleAcsc, `B${uetr.replace(/-/g, '').slice(0, 30)}`);
  if (index >= completedDebitJourney.indexOf('DEBIT_REQUEST_ACCEPTED'))
    return reportOf(exampleAccp, `R${uetr.replace(/-/g, '').slice(0, 30)}`);
  return undefined;
}

const emitters: Record<string, string> = {
  DEBIT_REQUEST_RECEIVED: 'ingress',
  DEBIT_RESPONSE_ACCEPTED: 'ingress',
  DEBIT_REQUEST_ACCEPTED: 'validator',
  DEBIT_COMPLETED: 'validator',
  DEBIT_QUEUED: 'scheduler',
};

/** A state change as an emitter builds it (the emitter's fromState given explicitly). */
export function change(
  debit: DirectDebit,
  eventType: KnownEventType,
  fromState: TransactionState | undefined,
  at = new Date('2025-03-14T07:30:00.000Z'),
): TransactionStateChanged {
  const statusReport = reportFor(debit, eventType);
  return buildStateChange(
    emitters[eventType] ?? 'dispatcher',
    {
      ...(fromState ? { fromState } : {}),
      eventType,
      transaction: debit,
      ...(statusReport ? { statusReport } : {}),
      causedBy: {
        messageType: 'DirectDebit',
        messageIdentification: debit.messageIdentifiers.messageIdentification,
      },
      occurredAt: at,
    },
    at,
  );
}

/** The whole journey as emitters would produce it, each change from the state the previous one reached. */
export function journeyChanges(
  debit: DirectDebit,
  types: readonly KnownEventType[] = completedDebitJourney,
): TransactionStateChanged[] {
  const changes: TransactionStateChanged[] = [];
  let state: TransactionState | undefined;
  types.forEach((eventType, index) => {
    const next = change(debit, eventType, state, new Date(Date.UTC(2025, 2, 14, 7, 30, index)));
    changes.push(next);
    state = next.toState;
  });
  return changes;
}

/** The example delivery outcome (`acknowledged`: the debit's 202; `retryable-timeout`: no answer), for `uetr`. */
export function exampleOutcome(kind: 'acknowledged' | 'retryable-timeout', uetr: string): DeliveryOutcome {
  return { ...(example('DeliveryOutcome', `DeliveryOutcome.${kind}.json`) as DeliveryOutcome), uetr };
}

/** The clients a tracker test runs the tracker with: its own topics and database on the real stack. */
export interface TrackerClients {
  readonly kafka: KafkaClient;
  readonly names: TopicNames;
  readonly codecs: Partial<PipelineCodecs>;
  readonly producer: PipelineProducer;
  readonly store: Store;
  readonly serde: AvroSerde;
}

export async function connectTrackerClients(logger: Logger): Promise<TrackerClients> {
  const endpoints = await infra();
  const names = resolveTopicNames(uniqueName('trk'));
  const kafka = createKafka({ brokers: endpoints.kafkaBrokers, clientId: 'tracker-test', logger });
  await kafka.ensureTopics(topicSpecs(names, { partitions: 3 }));
  const serde = createAvroSerde({ registryUrl: endpoints.schemaRegistryUrl, avro: avroTypeOptions() });
  const codecs = await createPlainCodecs(serde, names, [...consumedTopics, ...producedTopics]);
  const producer = createPipelineProducer(kafka, names, codecs);
  const store = await connectStore({
    uri: endpoints.mongodbUri,
    database: uniqueName('trk').replace(/[-.]/g, '_'),
    appName: 'tracker-test',
  });
  await store.ensureIndexes();
  return { kafka, names, codecs, producer, store, serde };
}

/** A tracker as the integration tests run it (short fetch waits, quick state retries), not started. */
export function createTestTracker(
  clients: TrackerClients,
  logger: Logger,
  options: TrackerOptions = {},
  metrics?: Metrics,
): TrackerService {
  const { kafka, names, codecs, producer, store, serde } = clients;
  return createTrackerService({
    ...(metrics === undefined ? {} : { metrics }),
    kafka,
    names,
    codecs,
    producer,
    store,
    decodeValue: (value) => serde.decode(value),
    logger,
    options: { maxWaitTimeMs: 100, stateRetry: { delaysMs: [200], maxAttempts: 50 }, ...options },
  });
}

/** A started tracker with its clients, and what a test feeds it through. */
export interface TrackerStack extends TrackerClients {
  readonly tracker: TrackerService;
  /** Produces state changes to the state topic, keyed by UETR. */
  sendStates(changes: readonly TransactionStateChanged[]): Promise<void>;
  /** Stops the tracker and closes every client. */
  close(): Promise<void>;
}

export async function startTrackerStack(logger: Logger, options: TrackerOptions = {}): Promise<TrackerStack> {
  const clients = await connectTrackerClients(logger);
  const tracker = createTestTracker(clients, logger, options);
  await tracker.start();
  const { kafka, producer, store } = clients;
  return {
    ...clients,
    tracker,
    sendStates: (changes) =>
      producer.send(
        'rp.transaction.state.v1',
        changes.map((value) => ({ key: value.uetr, value })),
      ),
    async close() {
      await tracker.stop();
      await producer.disconnect();
      await store.close();
      await kafka.close();
    },
  };
}
