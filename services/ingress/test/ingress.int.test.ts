import { createServer } from 'node:net';
import {
  avroTypeOptions,
  type DirectDebit,
  maxRequestBodyBytes,
  type PaymentStatusReport,
  servicePaths,
  toJson,
} from '@rp/contracts';
import { createAvroSerde, createKafka, type KafkaClient } from '@rp/kafka';
import {
  createPipelineProducer,
  createPlainCodecs,
  type PipelineCodecs,
  type PipelineProducer,
  parseParticipants,
  resolveTopicNames,
  type TopicNames,
  topicSpecs,
} from '@rp/pipeline';
import { createLogger, createMetrics, type HttpServer, type Metrics, startHttpServer } from '@rp/runtime';
import { connectStore, type Store } from '@rp/store';
import { infra, uniqueName } from '@rp/testkit';
import { MongoClient } from 'mongodb';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { idempotencyKey, payloadHash, producedMarkerKey } from '../src/idempotency.ts';
import { createIngressService, type IngressService, producedTopics } from '../src/service.ts';
import { canonicalAmounts, debitBody, messageId, reportBody } from './fixtures.ts';
import { readTopic, type TopicReader } from './topic-reader.ts';

const participants = parseParticipants(
  JSON.stringify([
    {
      memberId: '250655',
      name: 'First National Bank',
      baseUrl: 'http://fnb.test',
      debitLimits: { ZAR: '500000' },
    },
    { memberId: '632005', name: 'ABSA', baseUrl: 'http://absa.test', debitLimits: { ZAR: '500000' } },
  ]),
);
const logger = createLogger({
  service: 'ingress-test',
  level: (process.env.TEST_LOG_LEVEL as 'warn' | undefined) ?? 'warn',
});

interface Running {
  service: IngressService;
  server: HttpServer;
  metrics: Metrics;
  producer: PipelineProducer;
  kafka: KafkaClient;
}

let endpoints: Awaited<ReturnType<typeof infra>>;
let names: TopicNames;
let codecs: Partial<PipelineCodecs>;
let store: Store;
let databaseName: string;
let healthy: Running;
let received: TopicReader<'rp.directdebit.received.v1'>;
let reports: TopicReader<'rp.statusreport.received.v1'>;
let states: TopicReader<'rp.transaction.state.v1'>;

async function startIngress(brokers: string[], deliveryTimeoutMs: number): Promise<Running> {
  const kafka = createKafka({ brokers, clientId: uniqueName('ingress-test'), connectionTimeoutMs: 1_000 });
  const producer = createPipelineProducer(kafka, names, codecs, { deliveryTimeoutMs });
  const metrics = createMetrics({ service: 'ingress', defaultMetrics: false });
  const service = createIngressService({
    producer,
    store,
    participants,
    logger,
    metrics,
    retryAfterSeconds: 7,
  });
  await service.start();
  const server = await startHttpServer(service.app, { port: 0, host: '127.0.0.1' });
  return { service, server, metrics, producer, kafka };
}

async function stopIngress(running: Running): Promise<void> {
  await running.service.stop();
  await running.server.close();
  await running.producer.disconnect().catch(() => undefined);
  await running.kafka.close().catch(() => undefined);
}

function post(
  running: Running,
  path: string,
  body: string,
  contentType = 'application/json',
): Promise<Response> {
  return fetch(`${running.server.url}${path}`, {
    method: 'POST',
    body,
    headers: { 'content-type': contentType },
  });
}

const postDebit = (debit: DirectDebit, running = healthy) =>
  post(running, servicePaths.outboundDirectDebit, JSON.stringify(debit));
const postReport = (report: PaymentStatusReport, running = healthy) =>
  post(running, servicePaths.inboundDirectDebitResponse, JSON.stringify(report));

/**
 * Produces a sentinel record under the transaction's key (the service's own producer, so the same
 * partition) and waits until it is read: any record the service produced for the key before it has been
 * read by then.
 */
async function readPastKey(debit: DirectDebit): Promise<void> {
  const sentinelId = messageId('S');
  await healthy.producer.send('rp.directdebit.received.v1', [
    {
      key: debit.transactionIdentifiers.uetr,
      value: canonicalAmounts({
        ...debit,
        messageIdentifiers: { ...debit.messageIdentifiers, messageIdentification: sentinelId },
      }),
    },
  ]);
  await received.waitFor((entry) => entry.value.messageIdentifiers.messageIdentification === sentinelId);
}

async function outcomes(running: Running): Promise<Record<string, number>> {
  const metric = await running.metrics.registry.getSingleMetric('rp_ingress_messages_total')?.get();
  return Object.fromEntries(
    (metric?.values ?? []).map((value) => [`${value.labels.operation}:${value.labels.outcome}`, value.value]),
  );
}

/** A port nothing listens on: bound once by the OS, then released. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

beforeAll(async () => {
  endpoints = await infra();
  names = resolveTopicNames(uniqueName('ingress'));
  const admin = createKafka({ brokers: endpoints.kafkaBrokers, clientId: 'ingress-test-admin' });
  await admin.ensureTopics(
    topicSpecs(names, { partitions: 3 }).filter((spec) =>
      producedTopics.some((topic) => names[topic] === spec.topic),
    ),
  );
  await admin.close();
  const serde = createAvroSerde({ registryUrl: endpoints.schemaRegistryUrl, avro: avroTypeOptions() });
  codecs = await createPlainCodecs(serde, names, producedTopics);
  databaseName = uniqueName('ingress').replace(/-/g, '_');
  store = await connectStore({ uri: endpoints.mongodbUri, database: databaseName, appName: 'ingress-test' });
  await store.ensureIndexes();
  healthy = await startIngress(endpoints.kafkaBrokers, 10_000);
  received = await readTopic(healthy.kafka, names, codecs, 'rp.directdebit.received.v1');
  reports = await readTopic(healthy.kafka, names, codecs, 'rp.statusreport.received.v1');
  states = await readTopic(healthy.kafka, names, codecs, 'rp.transaction.state.v1');
});

afterAll(async () => {
  await Promise.all([received?.stop(), reports?.stop(), states?.stop()]);
  if (healthy) await stopIngress(healthy);
  await store?.close();
  const client = new MongoClient(endpoints.mongodbUri);
  await client.db(databaseName).dropDatabase();
  await client.close();
});

describe('POST outbound/direct-debit', () => {
  test('answers 202 once the state change and the debit are on their topics', async () => {
    const debit = debitBody();
    const uetr = debit.transactionIdentifiers.uetr;
    const response = await postDebit(debit);
    expect(response.status).toBe(202);
    const acknowledgement = (await response.json()) as Record<string, string>;
    expect(acknowledgement).toEqual({
      messageIdentification: debit.messageIdentifiers.messageIdentification,
      uetr,
      receivedAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
    });

    const record = await received.waitFor((entry) => entry.key === uetr);
    expect(record.headers['rp-state']).toBe('DEBIT_RECEIVED');
    expect(record.value).toEqual(canonicalAmounts(debit));
    const change = await states.waitFor((entry) => entry.key === uetr);
    expect(change.value).toMatchObject({
      uetr,
      toState: 'DEBIT_RECEIVED',
      eventType: 'DEBIT_REQUEST_RECEIVED',
      emittedBy: 'ingress',
      causedBy: {
        messageType: 'DirectDebit',
        messageIdentification: debit.messageIdentifiers.messageIdentification,
      },
    });
    expect(change.value.fromState).toBeUndefined();
    // Awaited in order: the state change was acknowledged before the debit was sent.
    expect(Date.parse(change.timestamp)).toBeLessThanOrEqual(Date.parse(record.timestamp));
  });

  test('a resend of a produced message gets the same 202 and is not produced again', async () => {
    const debit = debitBody();
    const uetr = debit.transactionIdentifiers.uetr;
    const first = await postDebit(debit);
    expect(first.status).toBe(202);
    const resend = await postDebit(debit);
    expect(resend.status).toBe(202);
    expect(await resend.json()).toEqual(await first.json());

    await readPastKey(debit);
    const copies = received.records.filter(
      (entry) =>
        entry.key === uetr &&
        entry.value.messageIdentifiers.messageIdentification ===
          debit.messageIdentifiers.messageIdentification,
    );
    expect(copies).toHaveLength(1);
    expect((await outcomes(healthy))['outboundDirectDebit:replayed']).toBeGreaterThanOrEqual(1);
  });

  test('a resend of a message whose first attempt may not have been produced is produced, with the first answer', async () => {
    const debit = debitBody();
    const uetr = debit.transactionIdentifiers.uetr;
    const validated = canonicalAmounts(debit);
    const firstReceivedAt = new Date('2025-03-14T07:30:00.412Z');
    // What a crash between the claim and the broker's acknowledgement leaves behind: a claim, no marker.
    await store.idempotency.claim({
      key: idempotencyKey('250655', debit.messageIdentifiers.messageIdentification),
      payloadHash: payloadHash(validated),
      uetr,
      receivedAt: firstReceivedAt,
    });
    const response = await postDebit(debit);
    expect(response.status).toBe(202);
    expect(await response.json()).toMatchObject({ uetr, receivedAt: firstReceivedAt.toISOString() });
    const record = await received.waitFor((entry) => entry.key === uetr);
    expect(record.value).toEqual(validated);
    expect((await outcomes(healthy))['outboundDirectDebit:reproduced']).toBe(1);

    // Now marked as produced: a further resend is answered without producing.
    expect((await postDebit(debit)).status).toBe(202);
    expect((await outcomes(healthy))['outboundDirectDebit:reproduced']).toBe(1);
  });

  test('the same message identification with another body is a 409 conflict', async () => {
    const debit = debitBody();
    expect((await postDebit(debit)).status).toBe(202);
    const altered: DirectDebit = {
      ...debit,
      amounts: { bankSettlementAmount: { value: 1500.01 as unknown as string, currency: 'ZAR' } },
    };
    const response = await postDebit(altered);
    expect(response.status).toBe(409);
    expect(response.headers.get('content-type')).toBe('application/problem+json');
    expect(await response.json()).toMatchObject({
      type: '/problems/duplicate-message',
      status: 409,
      detail: expect.stringContaining(debit.messageIdentifiers.messageIdentification),
      instance: servicePaths.outboundDirectDebit,
    });
  });

  test('a second message naming a UETR already in use is a 409 at the UETR, and is not produced', async () => {
    const first = debitBody();
    const uetr = first.transactionIdentifiers.uetr;
    expect((await postDebit(first)).status).toBe(202);
    await received.waitFor((entry) => entry.key === uetr);
    const conflictsBefore = (await outcomes(healthy))['outboundDirectDebit:conflict'] ?? 0;

    // A corrected debit that kept the UETR of the first: a new message identification, new content.
    const corrected = debitBody({
      transactionIdentifiers: first.transactionIdentifiers,
      amounts: { bankSettlementAmount: { value: 99.5 as unknown as string, currency: 'ZAR' } },
    });
    for (let attempt = 0; attempt < 2; attempt++) {
      // Its resend is answered the same way.
      const response = await postDebit(corrected);
      expect(response.status).toBe(409);
      expect(response.headers.get('content-type')).toBe('application/problem+json');
      expect(await response.json()).toMatchObject({
        type: '/problems/duplicate-transaction',
        status: 409,
        detail: expect.stringContaining(uetr),
        errors: [{ pointer: '/transactionIdentifiers/uetr' }],
      });
    }
    expect((await outcomes(healthy))['outboundDirectDebit:conflict']).toBe(conflictsBefore + 2);
    const claimKey = idempotencyKey(
      corrected.instructingAgent?.memberId ?? '',
      corrected.messageIdentifiers.messageIdentification,
    );
    expect(await store.idempotency.get(producedMarkerKey(claimKey))).toBeNull();
    await readPastKey(first);
    const corrections = received.records.filter(
      (entry) =>
        entry.value.messageIdentifiers.messageIdentification ===
        corrected.messageIdentifiers.messageIdentification,
    );
    expect(corrections).toEqual([]);

    // The first message's resend is still the same transaction: 202.
    expect((await postDebit(first)).status).toBe(202);
  });

  test('refuses what it cannot read with problem bodies: 415, 413, 400', async () => {
    const unsupported = await post(
      healthy,
      servicePaths.outboundDirectDebit,
      JSON.stringify(debitBody()),
      'text/plain',
    );
    expect(unsupported.status).toBe(415);
    expect(unsupported.headers.get('content-type')).toBe('application/problem+json');
    expect(await unsupported.json()).toMatchObject({ type: '/problems/unsupported-media-type', status: 415 });

    const tooLarge = await post(
      healthy,
      servicePaths.outboundDirectDebit,
      ' '.repeat(maxRequestBodyBytes + 1),
    );
    expect(tooLarge.status).toBe(413);
    expect(await tooLarge.json()).toMatchObject({ type: '/problems/payload-too-large', status: 413 });

    const malformed = await post(healthy, servicePaths.outboundDirectDebit, '{"messageIdentifiers": {');
    expect(malformed.status).toBe(400);
    expect(malformed.headers.get('content-type')).toBe('application/problem+json');
    expect(await malformed.json()).toMatchObject({ type: '/problems/malformed-json', status: 400 });
  });

  test('a message that does not match its schema gets 422 with every bad member', async () => {
    const { creditor: _missing, ...debit } = debitBody();
    const invalid = {
      ...debit,
      transactionIdentifiers: { ...debit.transactionIdentifiers, uetr: 'not-a-uuid' },
      amounts: { bankSettlementAmount: { value: 10.001, currency: 'ZAR' } },
      unexpected: true,
    };
    const response = await postDebit(invalid as unknown as DirectDebit);
    expect(response.status).toBe(422);
    expect(response.headers.get('content-type')).toBe('application/problem+json');
    const body = (await response.json()) as { type: string; errors: { pointer: string; detail: string }[] };
    expect(body.type).toBe('/problems/validation-failed');
    const pointers = body.errors.map((error) => error.pointer);
    expect(pointers).toEqual(
      expect.arrayContaining([
        '/creditor',
        '/transactionIdentifiers/uetr',
        '/amounts/bankSettlementAmount/value',
        '/unexpected',
      ]),
    );
  });

  test('a debit from a bank that is not a participant gets 422 at instructingAgent', async () => {
    const response = await postDebit(debitBody({ instructingAgent: { memberId: '999999' } }));
    expect(response.status).toBe(422);
    expect(await response.json()).toMatchObject({
      errors: [
        { pointer: '/instructingAgent/memberId', detail: '999999 is not a participant of this engine' },
      ],
    });
  });
});

describe('POST inbound/direct-debit-response', () => {
  async function deliveredDebit(): Promise<DirectDebit> {
    const debit = canonicalAmounts(debitBody());
    const uetr = debit.transactionIdentifiers.uetr;
    const at = new Date();
    const path = [
      'DEBIT_RECEIVED',
      'DEBIT_ACCEPTED',
      'DEBIT_ACCEPTANCE_DELIVERY_PENDING',
      'DEBIT_ACCEPTANCE_DELIVERED',
      'DEBIT_QUEUED',
      'DEBIT_DELIVERY_PENDING',
      'DEBIT_DELIVERED',
    ];
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
                messageIdentification: debit.messageIdentifiers.messageIdentification,
                at,
                bodyJson: toJson('DirectDebit', debit),
              },
            }
          : {}),
      })),
    );
    return debit;
  }

  test('answers 202 once DEBIT_RESPONSE_ACCEPTED and the report are on their topics', async () => {
    const debit = await deliveredDebit();
    const uetr = debit.transactionIdentifiers.uetr;
    const report = reportBody(debit);
    const response = await postReport(report);
    expect(response.status).toBe(202);
    expect(await response.json()).toMatchObject({
      messageIdentification: report.messageIdentifiers.messageIdentification,
      uetr,
    });
    const record = await reports.waitFor((entry) => entry.key === uetr);
    expect(record.headers['rp-state']).toBe('DEBIT_RESPONSE_ACCEPTED');
    expect(record.value).toEqual(report);
    const change = await states.waitFor((entry) => entry.key === uetr);
    expect(change.value).toMatchObject({
      fromState: 'DEBIT_DELIVERED',
      toState: 'DEBIT_RESPONSE_ACCEPTED',
      eventType: 'DEBIT_RESPONSE_ACCEPTED',
      emittedBy: 'ingress',
      transaction: debit,
      statusReport: report,
    });
  });

  test('a report on a transaction the engine does not know gets 422 at the UETR', async () => {
    const response = await postReport(reportBody(debitBody()));
    expect(response.status).toBe(422);
    expect(await response.json()).toMatchObject({
      type: '/problems/validation-failed',
      errors: [{ pointer: '/transactionIdentifiers/uetr', detail: expect.stringContaining('does not name') }],
    });
  });

  test('a report from a bank that is not the actioning bank gets 422 at instructingAgent', async () => {
    const debit = await deliveredDebit();
    const response = await postReport(reportBody(debit, { instructingAgent: { memberId: '632005' } }));
    expect(response.status).toBe(422);
    expect(await response.json()).toMatchObject({
      errors: [
        { pointer: '/instructingAgent/memberId', detail: expect.stringContaining('not the actioning bank') },
      ],
    });
  });
});

describe('API documents', () => {
  test('serves the OpenAPI and AsyncAPI documents', async () => {
    const openapi = await fetch(`${healthy.server.url}/api/v1/openapi.json`);
    expect(openapi.status).toBe(200);
    const document = (await openapi.json()) as { openapi: string; paths: Record<string, unknown> };
    expect(document.openapi).toMatch(/^3\.1/);
    expect(Object.keys(document.paths)).toContain(servicePaths.outboundDirectDebit);
    const asyncapi = await fetch(`${healthy.server.url}/api/v1/asyncapi.json`);
    expect(((await asyncapi.json()) as { asyncapi: string }).asyncapi).toMatch(/^3\./);
  });
});

describe('broker unreachable', () => {
  test('answers 503 with Retry-After, and the resend is produced once the broker is back', async () => {
    const unreachable = await startIngress([`127.0.0.1:${await closedPort()}`], 1_500);
    try {
      const debit = debitBody();
      const response = await postDebit(debit, unreachable);
      expect(response.status).toBe(503);
      expect(response.headers.get('retry-after')).toBe('7');
      expect(response.headers.get('content-type')).toBe('application/problem+json');
      expect(await response.json()).toMatchObject({ type: '/problems/unavailable', status: 503 });

      // The bank resends to a healthy instance: the claim is there without its marker, so it is produced.
      const resend = await postDebit(debit);
      expect(resend.status).toBe(202);
      await received.waitFor((entry) => entry.key === debit.transactionIdentifiers.uetr);
    } finally {
      await stopIngress(unreachable);
    }
  });
});
