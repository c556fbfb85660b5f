import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import {
  avroTypeOptions,
  type DirectDebit,
  type TopicName,
  type TransactionState,
  toJson,
} from '@rp/contracts';
import { createAvroSerde, createKafka, type KafkaClient } from '@rp/kafka';
import {
  createPipelineProducer,
  createPlainCodecs,
  type PipelineCodecs,
  type PipelineProducer,
  resolveTopicNames,
  type TopicNames,
  topicSpecs,
} from '@rp/pipeline';
import { jwtOperatorAuthenticator, type OperatorAuthenticator } from '@rp/runtime';
import { connectStore, type Store, type TransactionDeliveryAttempt } from '@rp/store';
import { infra, uniqueName } from '@rp/testkit';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { MongoClient } from 'mongodb';
import { consumedTopics, producedTopics } from '../src/service.ts';

const example = JSON.parse(
  readFileSync(new URL('../../../avro/examples/DirectDebit.za-eft-on-us.json', import.meta.url), 'utf8'),
  (name, value) => (name === 'value' && typeof value === 'number' ? String(value) : value),
) as DirectDebit;

/** An accepted on-us debit with its own UETR and message identification (amounts as decimal strings). */
export function debit(options: { creditorAgent?: string; collectionDate?: string } = {}): DirectDebit {
  const value = structuredClone(example);
  const uetr = randomUUID();
  value.messageIdentifiers = {
    messageIdentification: `S${uetr.replaceAll('-', '').slice(0, 24)}`,
    creationDateTime: new Date().toISOString(),
  };
  value.transactionIdentifiers = { ...value.transactionIdentifiers, uetr };
  if (options.creditorAgent)
    value.creditorAgent = { ...value.creditorAgent, memberId: options.creditorAgent };
  if (options.collectionDate) {
    value.requestedCollectionDate = options.collectionDate;
    value.settlementDate = options.collectionDate;
  }
  return value;
}

export const uetrOf = (value: DirectDebit) => value.transactionIdentifiers.uetr;

/** An on-us debit's states up to its inbound debit being delivered to the actioning bank. */
export const toActioningBank: readonly TransactionState[] = [
  'DEBIT_RECEIVED',
  'DEBIT_ACCEPTED',
  'DEBIT_ACCEPTANCE_DELIVERY_PENDING',
  'DEBIT_ACCEPTANCE_DELIVERED',
  'DEBIT_QUEUED',
  'DEBIT_DELIVERY_PENDING',
];

/**
 * A snapshot as the tracker writes it: the DirectDebit with the first change, then one change per state
 * of the path, all at `at`; delivery attempts recorded after.
 */
export async function recordSnapshot(
  store: Pick<Store, 'transactions'>,
  value: DirectDebit,
  path: readonly TransactionState[],
  at: Date,
  attempts: readonly Omit<TransactionDeliveryAttempt, 'at' | 'messageIdentification'>[] = [],
): Promise<void> {
  const uetr = uetrOf(value);
  await store.transactions.applyChanges(
    path.map((to, index) => ({
      uetr,
      eventId: `${uetr}:${index + 1}`,
      seq: index + 1,
      from: index === 0 ? null : (path[index - 1] as string),
      to,
      eventType: to,
      at,
      service: 'test',
      ...(index === 0
        ? {
            message: {
              kind: 'DirectDebit',
              messageIdentification: value.messageIdentifiers.messageIdentification,
              at,
              bodyJson: toJson('DirectDebit', value),
            },
          }
        : {}),
    })),
  );
  for (const attempt of attempts) {
    await store.transactions.recordDeliveryAttempt(uetr, {
      ...attempt,
      at,
      messageIdentification: value.messageIdentifiers.messageIdentification,
    });
  }
}

/** What a scheduler needs to run against the run's stack, all of it this test's own. */
export interface SchedulerStack {
  readonly kafka: KafkaClient;
  readonly names: TopicNames;
  readonly codecs: Partial<PipelineCodecs>;
  /** The scheduler's producer. */
  readonly producer: PipelineProducer;
  /** The test's, for the records the scheduler consumes. */
  readonly input: PipelineProducer;
  /** Connected to a database of its own, indexes made. */
  readonly store: Store;
  /** Disconnects everything and drops the database. */
  close(): Promise<void>;
}

/** The scheduler's topics (one partition each, under a namespace of their own) and a database of its own. */
export async function schedulerStack(prefix: string): Promise<SchedulerStack> {
  const endpoints = await infra();
  const topics: TopicName[] = [...consumedTopics, ...producedTopics];
  const names = resolveTopicNames(uniqueName(prefix));
  const kafka = createKafka({ brokers: endpoints.kafkaBrokers, clientId: uniqueName(`${prefix}-test`) });
  await kafka.ensureTopics(
    topicSpecs(names, { partitions: 1 }).filter((spec) =>
      topics.some((topic) => names[topic] === spec.topic),
    ),
  );
  const serde = createAvroSerde({ registryUrl: endpoints.schemaRegistryUrl, avro: avroTypeOptions() });
  const codecs = await createPlainCodecs(serde, names, topics);
  const producer = createPipelineProducer(kafka, names, codecs);
  const input = createPipelineProducer(kafka, names, codecs);
  const database = uniqueName(prefix).replace(/-/g, '_');
  const store = await connectStore({ uri: endpoints.mongodbUri, database, appName: `${prefix}-test` });
  await store.ensureIndexes();
  return {
    kafka,
    names,
    codecs,
    producer,
    input,
    store,
    async close() {
      await producer.disconnect();
      await input.disconnect();
      await store.close();
      const mongo = new MongoClient(endpoints.mongodbUri);
      try {
        await mongo.db(database).dropDatabase();
      } finally {
        await mongo.close();
      }
      await kafka.close();
    },
  };
}

/**
 * An identity provider of the test's own for operators' access tokens: an ES256 key pair whose public
 * key the scheduler checks tokens against.
 */
export async function operatorIdentity(): Promise<{
  readonly issuer: string;
  readonly audience: string;
  readonly authenticator: OperatorAuthenticator;
  /** `Bearer <token>` naming `subject`, granting the roles in `scope` (space-separated). */
  token(subject: string, scope: string): Promise<string>;
}> {
  const issuer = 'https://idp.test/oauth2';
  const audience = 'regulated-payments-admin';
  const keys = await generateKeyPair('ES256');
  const jwks = { keys: [{ ...(await exportJWK(keys.publicKey)), kid: 'k1', alg: 'ES256', use: 'sig' }] };
  return {
    issuer,
    audience,
    authenticator: jwtOperatorAuthenticator({ jwks, issuer, audience }),
    async token(subject, scope) {
      const token = await new SignJWT({ scope })
        .setProtectedHeader({ alg: 'ES256', kid: 'k1', typ: 'at+jwt' })
        .setIssuer(issuer)
        .setSubject(subject)
        .setAudience(audience)
        .setIssuedAt()
        .setExpirationTime('10m')
        .sign(keys.privateKey);
      return `Bearer ${token}`;
    },
  };
}
