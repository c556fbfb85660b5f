import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type Socket, connect as tcpConnect } from 'node:net';
import {
  avroTypeOptions,
  type CreditTransfer,
  type DirectDebit,
  maxRequestBodyBytes,
  type PaymentStatusReport,
  servicePaths,
  type TopicValue,
  toJson,
  transactionTransitions,
} from '@rp/contracts';
import { createAvroSerde, createKafka, type KafkaClient } from '@rp/kafka';
import {
  createPipelineProducer,
  createPlainCodecs,
  originHeader,
  type PipelineCodecs,
  type PipelineProducer,
  parseParticipants,
  resolveTopicNames,
  schemeOrigin,
  type TopicNames,
  topicSpecs,
} from '@rp/pipeline';
import { createLogger, createMetrics, type HttpServer, type Metrics, startHttpServer } from '@rp/runtime';
import { connectStore, type Store, StoreError, transactionKey } from '@rp/store';
import { infra, uniqueName } from '@rp/testkit';
import { type CryptoKey, exportJWK, generateKeyPair, type JSONWebKeySet, SignJWT } from 'jose';
import { MongoClient } from 'mongodb';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { idempotencyKey, payloadHash, producedMarkerKey, schemeIdempotencyKey } from '../src/idempotency.ts';
import { claimedNotRecordedMs } from '../src/reads.ts';
import { parseSchemeClients, tokenSha256 } from '../src/schemes.ts';
import {
  createIngressService,
  type IngressDeps,
  type IngressService,
  producedTopics,
} from '../src/service.ts';
import { canonicalAmounts, creditBody, debitBody, messageId, reportBody } from './fixtures.ts';
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
    { memberId: '198765', name: 'Nedbank', baseUrl: 'http://nedbank.test', debitLimits: { ZAR: '500000' } },
  ]),
);
// The clearing house's bearer token: random for each run; the ingress is configured with its digest only.
const schemeToken = randomBytes(32).toString('base64url');
const schemeId = 'clearing-house';
const schemes = parseSchemeClients(JSON.stringify([{ id: schemeId, tokenSha256: tokenSha256(schemeToken) }]));
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
let credits: TopicReader<'rp.credittransfer.received.v1'>;
let states: TopicReader<'rp.transaction.state.v1'>;

async function startIngress(
  brokers: string[],
  deliveryTimeoutMs: number,
  limits: Pick<
    IngressDeps,
    | 'maxInFlight'
    | 'rateLimit'
    | 'bankAuth'
    | 'producedMarkers'
    | 'claimCacheSize'
    | 'idempotencyRetentionMs'
    | 'idempotencyPurgeIntervalMs'
  > &
    Partial<Pick<IngressDeps, 'store'>> = {},
): Promise<Running> {
  const kafka = createKafka({ brokers, clientId: uniqueName('ingress-test'), connectionTimeoutMs: 1_000 });
  const producer = createPipelineProducer(kafka, names, codecs, { deliveryTimeoutMs });
  const metrics = createMetrics({ service: 'ingress', defaultMetrics: false });
  const service = createIngressService({
    producer,
    participants,
    schemes,
    logger,
    metrics,
    retryAfterSeconds: 7,
    ...limits,
    store: limits.store ?? store,
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
  headers: Record<string, string> = {},
): Promise<Response> {
  return fetch(`${running.server.url}${path}`, {
    method: 'POST',
    body,
    headers: { ...headers, 'content-type': contentType },
  });
}

const postDebit = (debit: DirectDebit, running = healthy) =>
  post(running, servicePaths.outboundDirectDebit, JSON.stringify(debit));
const postReport = (report: PaymentStatusReport, running = healthy) =>
  post(running, servicePaths.inboundDirectDebitResponse, JSON.stringify(report));
/** A clearing house's credit: with the scheme's bearer token unless told otherwise. */
const postCredit = (credit: CreditTransfer, authorization: string | null = `Bearer ${schemeToken}`) =>
  post(
    healthy,
    servicePaths.inboundCreditTransferAuthorization,
    JSON.stringify(credit),
    'application/json',
    authorization === null ? {} : { authorization },
  );
/** A clearing house's inbound off-us debit: with the scheme's bearer token unless told otherwise. */
const postSchemeDebit = (debit: DirectDebit, authorization: string | null = `Bearer ${schemeToken}`) =>
  post(
    healthy,
    servicePaths.schemeInboundDirectDebit,
    JSON.stringify(debit),
    'application/json',
    authorization === null ? {} : { authorization },
  );
/**
 * An inbound off-us debit as a clearing house sends it: the creditor and the initiating bank are another
 * scheme's (470010, not a participant), the debtor's bank 250655 actions it.
 */
const offUsDebitBody = (): DirectDebit => {
  const debit = debitBody();
  const external = { memberId: '470010', name: 'Capitec Bank' };
  return { ...debit, creditorAgent: external, instructingAgent: { memberId: '470010' } };
};
const postCreditResponse = (report: PaymentStatusReport) =>
  post(healthy, servicePaths.inboundCreditTransferAuthorizationResponse, JSON.stringify(report));

type FlowTopic =
  | 'rp.directdebit.received.v1'
  | 'rp.credittransfer.received.v1'
  | 'rp.statusreport.received.v1';

/**
 * Produces a sentinel record (a copy of `message` under another message identification) with the
 * transaction's key on `topic` (the service's own producer, so the same partition) and waits until it is
 * read: any record the service produced for the key before it has been read by then.
 */
async function readPastKey<T extends FlowTopic>(
  reader: TopicReader<T>,
  topic: T,
  message: TopicValue<T>,
): Promise<void> {
  const sentinelId = messageId('S');
  const sentinel = canonicalAmounts({
    ...message,
    messageIdentifiers: { ...message.messageIdentifiers, messageIdentification: sentinelId },
  }) as TopicValue<T>;
  await healthy.producer.send(topic, [{ key: message.transactionIdentifiers.uetr, value: sentinel }]);
  await reader.waitFor((entry) => entry.value.messageIdentifiers.messageIdentification === sentinelId);
}

async function outcomes(running: Running): Promise<Record<string, number>> {
  const metric = await running.metrics.registry.getSingleMetric('rp_ingress_messages_total')?.get();
  return Object.fromEntries(
    (metric?.values ?? []).map((value) => [`${value.labels.operation}:${value.labels.outcome}`, value.value]),
  );
}

async function reportChecks(running: Running): Promise<Record<string, number>> {
  const metric = await running.metrics.registry.getSingleMetric('rp_ingress_report_checks_total')?.get();
  return Object.fromEntries((metric?.values ?? []).map((value) => [value.labels.check, value.value]));
}

async function markerMetric(running: Running, result: 'written' | 'failed'): Promise<number> {
  const metric = await running.metrics.registry.getSingleMetric('rp_ingress_produced_markers_total')?.get();
  return metric?.values.find((value) => value.labels.result === result)?.value ?? 0;
}

/** Waits until `running` has written `count` produced markers. */
async function markersWritten(running: Running, count: number): Promise<void> {
  while ((await markerMetric(running, 'written')) < count) {
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/**
 * The shared store, except that the first claim of `heldKey` waits until the test releases it (or fails
 * it as an unavailable server would): a request can be caught in the middle.
 */
function gatedClaim(heldKey: string) {
  let reached!: () => void;
  let open!: (ok: boolean) => void;
  const reachedGate = new Promise<void>((resolve) => {
    reached = resolve;
  });
  const opened = new Promise<boolean>((resolve) => {
    open = resolve;
  });
  let held = false;
  type Claim = Parameters<Store['idempotency']['claim']>[0];
  const hold = async (key: string) => {
    held = true;
    reached();
    if (!(await opened)) throw new StoreError('unavailable', `claim ${key}: server unavailable`);
  };
  const idempotency = {
    async claim(claim: Claim) {
      if (claim.key === heldKey && !held) await hold(claim.key);
      return store.idempotency.claim(claim);
    },
    async claimBoth(first: Claim, second: Claim) {
      if (second.key === heldKey && !held) {
        // The server takes the first claim of the command and is held (or fails) at the second.
        const firstOutcome = await store.idempotency.claim(first);
        if (firstOutcome.outcome !== 'new') return { first: firstOutcome };
        await hold(second.key);
        return { first: firstOutcome, second: await store.idempotency.claim(second) };
      }
      if (first.key === heldKey && !held) await hold(first.key);
      return store.idempotency.claimBoth(first, second);
    },
    get: (key: string) => store.idempotency.get(key),
    claimMany: (claims: Claim[]) => store.idempotency.claimMany(claims),
  } as unknown as Store['idempotency'];
  return {
    store: { ...store, idempotency } as Store,
    reached: reachedGate,
    release: () => open(true),
    fail: () => open(false),
  };
}

/** The records of `debit` read from its topic (the sentinels of readPastKey are other messages). */
function copiesOf(debit: DirectDebit) {
  const { messageIdentification } = debit.messageIdentifiers;
  return received.records.filter(
    (entry) =>
      entry.key === debit.transactionIdentifiers.uetr &&
      entry.value.messageIdentifiers.messageIdentification === messageIdentification,
  );
}

/** Waits until a resend of `operation` waits in `running` for its first attempt. */
async function resendWaiting(running: Running, operation: string): Promise<void> {
  for (;;) {
    const metric = await running.metrics.registry.getSingleMetric('rp_ingress_resends_waiting')?.get();
    if ((metric?.values.find((value) => value.labels.operation === operation)?.value ?? 0) > 0) return;
    await new Promise((resolve) => setImmediate(resolve));
  }
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
  credits = await readTopic(healthy.kafka, names, codecs, 'rp.credittransfer.received.v1');
  states = await readTopic(healthy.kafka, names, codecs, 'rp.transaction.state.v1');
});

afterAll(async () => {
  await Promise.all([received?.stop(), reports?.stop(), credits?.stop(), states?.stop()]);
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
    // A bank's own debit: its status report goes back to it, so no origin marks it.
    expect(record.headers[originHeader]).toBeUndefined();
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

    await readPastKey(received, 'rp.directdebit.received.v1', debit);
    const copies = received.records.filter(
      (entry) =>
        entry.key === uetr &&
        entry.value.messageIdentifiers.messageIdentification ===
          debit.messageIdentifiers.messageIdentification,
    );
    expect(copies).toHaveLength(1);
    // A message's first records: nothing for the validator or the tracker to look up first.
    expect(copies[0]?.headers['rp-resent']).toBeUndefined();
    const change = await states.waitFor((entry) => entry.key === uetr);
    expect(change.headers['rp-resent']).toBeUndefined();
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
    // Marked as produced again, the debit and its first state change: the validator and the tracker look
    // its transaction up before they take it as new.
    expect(record.headers['rp-resent']).toBe('true');
    const change = await states.waitFor((entry) => entry.key === uetr);
    expect(change.value.eventType).toBe('DEBIT_REQUEST_RECEIVED');
    expect(change.headers['rp-resent']).toBe('true');
    expect((await outcomes(healthy))['outboundDirectDebit:reproduced']).toBe(1);

    // Now marked as produced: a further resend is answered without producing.
    expect((await postDebit(debit)).status).toBe(202);
    expect((await outcomes(healthy))['outboundDirectDebit:reproduced']).toBe(1);
  });

  test('writes the produced markers behind, many in one command, and the ones waiting when it stops', async () => {
    // Markers wait a minute (longer than the test) unless ten are waiting: only a full batch and the stop
    // write them.
    const behind = await startIngress(endpoints.kafkaBrokers, 10_000, {
      producedMarkers: { delayMs: 60_000, batchSize: 10 },
    });
    const debits = Array.from({ length: 12 }, () => debitBody());
    const markerOf = (debit: DirectDebit) =>
      producedMarkerKey(idempotencyKey('250655', debit.messageIdentifiers.messageIdentification));
    try {
      for (const debit of debits) expect((await postDebit(debit, behind)).status).toBe(202);
      await markersWritten(behind, 10);
      const stored = await Promise.all(debits.map((debit) => store.idempotency.get(markerOf(debit))));
      expect(stored.map((marker) => marker !== null)).toEqual([...Array(10).fill(true), false, false]);
      // Not stored yet, known to this instance: a resend is answered without producing.
      const last = debits.at(-1) as DirectDebit;
      expect((await postDebit(last, behind)).status).toBe(202);
      expect(await outcomes(behind)).toMatchObject({
        'outboundDirectDebit:accepted': 12,
        'outboundDirectDebit:replayed': 1,
      });
    } finally {
      await stopIngress(behind);
    }
    expect(await markerMetric(behind, 'written')).toBe(12);
    expect(await store.idempotency.get(markerOf(debits.at(-1) as DirectDebit))).toMatchObject({
      uetr: (debits.at(-1) as DirectDebit).transactionIdentifiers.uetr,
    });
  });

  test("purges message claims and markers past their retention; a debit sent again after that is known by its UETR's key", async () => {
    const purging = await startIngress(endpoints.kafkaBrokers, 10_000, {
      idempotencyRetentionMs: 300,
      idempotencyPurgeIntervalMs: 100,
      producedMarkers: { delayMs: 10 },
    });
    const debit = debitBody();
    const uetr = debit.transactionIdentifiers.uetr;
    const claimKey = idempotencyKey('250655', debit.messageIdentifiers.messageIdentification);
    try {
      const first = await postDebit(debit, purging);
      expect(first.status).toBe(202);
      const acknowledgement = await first.json();
      await markersWritten(purging, 1);
      // Polled: the purge's own rounds are the signal.
      while (
        (await store.idempotency.get(claimKey)) !== null ||
        (await store.idempotency.get(producedMarkerKey(claimKey))) !== null
      ) {
        await new Promise((resolve) => setImmediate(resolve));
      }
      const purged = (
        await purging.metrics.registry.getSingleMetric('rp_ingress_idempotency_keys_purged_total')?.get()
      )?.values[0]?.value;
      expect(purged).toBeGreaterThanOrEqual(2);
      expect(await store.idempotency.get(transactionKey(uetr))).toMatchObject({ uetr });

      // The same debit again: answered as the first time, and produced again marked as a resend.
      const again = await postDebit(debit, purging);
      expect(again.status).toBe(202);
      expect(await again.json()).toEqual(acknowledgement);
      const resent = await received.waitFor(
        (entry) => entry.key === uetr && entry.headers['rp-resent'] === 'true',
      );
      expect(resent.value).toEqual(canonicalAmounts(debit));
      expect(await outcomes(purging)).toMatchObject({
        'outboundDirectDebit:accepted': 1,
        'outboundDirectDebit:reproduced': 1,
      });
      // Another debit naming the same UETR is still refused.
      const other = debitBody({ transactionIdentifiers: debit.transactionIdentifiers });
      expect((await postDebit(other, purging)).status).toBe(409);
    } finally {
      await stopIngress(purging);
    }
  });

  test('a resend that arrives while the first attempt is in progress waits for it: one copy produced, the same 202', async () => {
    const debit = debitBody();
    // The first attempt is held at its claim of the UETR until the resend has arrived.
    const gate = gatedClaim(transactionKey(debit.transactionIdentifiers.uetr));
    const gated = await startIngress(endpoints.kafkaBrokers, 10_000, { store: gate.store });
    try {
      const first = postDebit(debit, gated);
      await gate.reached;
      const resend = postDebit(debit, gated);
      await resendWaiting(gated, 'outboundDirectDebit');
      gate.release();
      const [firstAnswer, resendAnswer] = await Promise.all([first, resend]);
      expect(firstAnswer.status).toBe(202);
      expect(resendAnswer.status).toBe(202);
      expect(await resendAnswer.json()).toEqual(await firstAnswer.json());
      expect(await outcomes(gated)).toMatchObject({
        'outboundDirectDebit:accepted': 1,
        'outboundDirectDebit:joined': 1,
      });
      await readPastKey(received, 'rp.directdebit.received.v1', debit);
      expect(copiesOf(debit)).toHaveLength(1);
    } finally {
      await stopIngress(gated);
    }
  });

  test('a resend waiting on a first attempt that fails goes the whole way itself', async () => {
    const debit = debitBody();
    const uetr = debit.transactionIdentifiers.uetr;
    // The first attempt is held at its claim of the UETR, then fails there as if the server were down.
    const gate = gatedClaim(transactionKey(uetr));
    const gated = await startIngress(endpoints.kafkaBrokers, 10_000, { store: gate.store });
    try {
      const first = postDebit(debit, gated);
      await gate.reached;
      const resend = postDebit(debit, gated);
      await resendWaiting(gated, 'outboundDirectDebit');
      gate.fail();
      const [firstAnswer, resendAnswer] = await Promise.all([first, resend]);
      expect(firstAnswer.status).toBe(503);
      expect(resendAnswer.status).toBe(202);
      expect(await outcomes(gated)).toMatchObject({
        'outboundDirectDebit:unavailable': 1,
        'outboundDirectDebit:reproduced': 1,
      });
      await readPastKey(received, 'rp.directdebit.received.v1', debit);
      expect(copiesOf(debit)).toHaveLength(1);
    } finally {
      await stopIngress(gated);
    }
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
    await readPastKey(received, 'rp.directdebit.received.v1', first);
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

/** The event type the transition table gives a change, as the tracker records it. */
function eventTypeOf(from: string | null, to: string): string {
  const transition = transactionTransitions.find(
    (candidate) => candidate.from === from && candidate.to === to,
  );
  if (transition === undefined) throw new Error(`no transition from ${from} to ${to}`);
  return transition.eventType;
}

/**
 * Writes the transaction's snapshot as the tracker would after the states of `path`: the first change
 * records the message the transaction started with.
 */
async function seedSnapshot(
  transaction: DirectDebit | CreditTransfer,
  path: readonly string[],
): Promise<void> {
  const uetr = transaction.transactionIdentifiers.uetr;
  const at = new Date();
  const bodyJson =
    transaction.schema === 'CreditTransfer'
      ? toJson('CreditTransfer', transaction)
      : toJson('DirectDebit', transaction);
  await store.transactions.applyChanges(
    path.map((to, index) => ({
      uetr,
      eventId: `${uetr}:${index + 1}`,
      seq: index + 1,
      from: index === 0 ? null : (path[index - 1] as string),
      to,
      eventType: eventTypeOf(index === 0 ? null : (path[index - 1] as string), to),
      at,
      service: 'test',
      ...(index === 0
        ? {
            message: {
              kind: transaction.schema,
              messageIdentification: transaction.messageIdentifiers.messageIdentification,
              at,
              bodyJson,
            },
          }
        : {}),
    })),
  );
}

async function deliveredDebit(debit = canonicalAmounts(debitBody())): Promise<DirectDebit> {
  await seedSnapshot(debit, [
    'DEBIT_RECEIVED',
    'DEBIT_ACCEPTED',
    'DEBIT_ACCEPTANCE_DELIVERY_PENDING',
    'DEBIT_ACCEPTANCE_DELIVERED',
    'DEBIT_QUEUED',
    'DEBIT_DELIVERY_PENDING',
    'DEBIT_DELIVERED',
  ]);
  return debit;
}

/** A credit the engine delivered to the creditor's bank (250655), or is delivering when `pending`. */
async function deliveredCredit(pending = false): Promise<CreditTransfer> {
  const credit = canonicalAmounts(creditBody());
  await seedSnapshot(credit, [
    'CREDIT_AUTH_RECEIVED',
    'CREDIT_AUTH_ACCEPTED',
    'CREDIT_AUTH_DELIVERY_PENDING',
    ...(pending ? [] : ['CREDIT_AUTH_DELIVERED']),
  ]);
  return credit;
}

describe('POST inbound/direct-debit-response', () => {
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
      uetr,
      fromState: 'DEBIT_DELIVERED',
      toState: 'DEBIT_RESPONSE_ACCEPTED',
      eventType: 'DEBIT_RESPONSE_ACCEPTED',
      emittedBy: 'ingress',
      statusReport: report,
    });
    // The report does not carry the debit, and neither does its change: the tracker fills it in.
    expect(change.value.transaction ?? undefined).toBeUndefined();
  });

  test("a report on a debit this engine took is admitted against the UETR's claim, before any snapshot", async () => {
    const sent = debitBody();
    const uetr = sent.transactionIdentifiers.uetr;
    expect((await postDebit(sent)).status).toBe(202);
    // No tracker runs here: the debit has no snapshot. The instance that took it remembers its claim;
    // another, remembering none, reads it.
    expect(await store.transactions.get(uetr)).toBeNull();
    const forgetful = await startIngress(endpoints.kafkaBrokers, 10_000, { claimCacheSize: 0 });
    try {
      const wrongBank = reportBody(sent, { instructingAgent: { memberId: '632005' } });
      for (const running of [healthy, forgetful]) {
        const refused = await postReport(wrongBank, running);
        expect(refused.status).toBe(422);
        expect(await refused.json()).toMatchObject({
          errors: [
            {
              pointer: '/instructingAgent/memberId',
              detail: expect.stringContaining('not the actioning bank'),
            },
          ],
        });
      }
      // Not a credit: a credit's report naming the debit's UETR is refused at the UETR.
      const asCredit = await postCreditResponse(reportBody(sent));
      expect(asCredit.status).toBe(422);
      expect(await asCredit.json()).toMatchObject({
        errors: [
          {
            pointer: '/transactionIdentifiers/uetr',
            detail: expect.stringContaining('does not name a credit transfer authorisation'),
          },
        ],
      });
      const report = reportBody(sent);
      expect((await postReport(report, forgetful)).status).toBe(202);
      const change = await states.waitFor(
        (entry) => entry.key === uetr && entry.value.eventType === 'DEBIT_RESPONSE_ACCEPTED',
      );
      expect(change.value).toMatchObject({ fromState: 'DEBIT_DELIVERED', statusReport: report });
      expect((await reports.waitFor((entry) => entry.key === uetr)).value).toEqual(report);
      // The one that remembers no claim read it for both of its reports, and never the snapshot.
      expect(await reportChecks(forgetful)).toEqual({ claim: 2 });
      expect((await reportChecks(healthy)).remembered).toBeGreaterThanOrEqual(1);
    } finally {
      await stopIngress(forgetful);
    }
  });

  test('a report on a transaction the engine does not know gets 422 at the UETR', async () => {
    const response = await postReport(reportBody(debitBody()));
    expect(response.status).toBe(422);
    expect(await response.json()).toMatchObject({
      type: '/problems/validation-failed',
      errors: [{ pointer: '/transactionIdentifiers/uetr', detail: expect.stringContaining('does not name') }],
    });
  });

  test("a report on a UETR claimed without its transaction's record (an older claim) and with no snapshot yet gets 503 with Retry-After 1, and 202 once the snapshot is written", async () => {
    const debit = canonicalAmounts(debitBody());
    const uetr = debit.transactionIdentifiers.uetr;
    await store.idempotency.claim({
      key: transactionKey(uetr),
      payloadHash: payloadHash(debit),
      uetr,
      receivedAt: new Date(),
    });
    const report = reportBody(debit);
    const early = await postReport(report);
    expect(early.status).toBe(503);
    expect(early.headers.get('retry-after')).toBe('1');
    expect(await early.json()).toMatchObject({ detail: expect.stringContaining('not recorded yet') });
    expect((await reportChecks(healthy)).early).toBeGreaterThanOrEqual(1);
    await deliveredDebit(debit);
    expect((await postReport(report)).status).toBe(202);
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

describe('POST inbound/credit-transfer-authorization (payment schemes)', () => {
  test('answers 202 once CREDIT_AUTH_RECEIVED and the credit are on their topics', async () => {
    const credit = creditBody();
    const uetr = credit.transactionIdentifiers.uetr;
    const { messageIdentification } = credit.messageIdentifiers;
    const response = await postCredit(credit);
    expect(response.status).toBe(202);
    expect(await response.json()).toEqual({
      messageIdentification,
      uetr,
      receivedAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
    });

    const record = await credits.waitFor((entry) => entry.key === uetr);
    expect(record.headers['rp-state']).toBe('CREDIT_AUTH_RECEIVED');
    expect(record.value).toEqual(canonicalAmounts(credit));
    // Beyond what a binary float holds: carried exactly.
    expect(record.value.amounts.bankSettlementAmount.value).toBe('1234567890123.45');
    const change = await states.waitFor((entry) => entry.key === uetr);
    expect(change.value).toMatchObject({
      uetr,
      toState: 'CREDIT_AUTH_RECEIVED',
      eventType: 'CREDIT_AUTH_RECEIVED',
      emittedBy: 'ingress',
      causedBy: { messageType: 'CreditTransfer', messageIdentification },
      transaction: canonicalAmounts(credit),
    });
    expect(change.value.fromState).toBeUndefined();
    expect(Date.parse(change.timestamp)).toBeLessThanOrEqual(Date.parse(record.timestamp));

    // Claimed under the scheme's own key, apart from any bank's.
    expect(await store.idempotency.get(schemeIdempotencyKey(schemeId, messageIdentification))).not.toBeNull();
    expect(await store.idempotency.get(idempotencyKey('632005', messageIdentification))).toBeNull();
    expect((await outcomes(healthy))['inboundCreditTransferAuthorization:accepted']).toBeGreaterThanOrEqual(
      1,
    );
  });

  test('without the scheme token, or with another token, 401 with WWW-Authenticate, before the body is read', async () => {
    const credit = creditBody();
    const { messageIdentification } = credit.messageIdentifiers;
    const refusedBefore = (await outcomes(healthy))['inboundCreditTransferAuthorization:unauthorized'] ?? 0;
    const attempts: { authorization: string | null; challenge: string }[] = [
      { authorization: null, challenge: 'Bearer' },
      {
        authorization: `Bearer ${randomBytes(32).toString('base64url')}`,
        challenge: 'Bearer error="invalid_token"',
      },
      // The digest the ingress is configured with is not the token.
      { authorization: `Bearer ${tokenSha256(schemeToken)}`, challenge: 'Bearer error="invalid_token"' },
      {
        authorization: `Basic ${Buffer.from(`${schemeId}:${schemeToken}`).toString('base64')}`,
        challenge: 'Bearer',
      },
    ];
    for (const { authorization, challenge } of attempts) {
      const response = await postCredit(credit, authorization);
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toBe(challenge);
      expect(response.headers.get('content-type')).toBe('application/problem+json');
      expect(await response.json()).toMatchObject({
        type: '/problems/unauthorized',
        status: 401,
        instance: servicePaths.inboundCreditTransferAuthorization,
      });
    }
    // Not even a malformed body is looked at without credentials.
    const malformed = await post(
      healthy,
      servicePaths.inboundCreditTransferAuthorization,
      '{"messageIdentifiers": {',
    );
    expect(malformed.status).toBe(401);
    expect((await outcomes(healthy))['inboundCreditTransferAuthorization:unauthorized']).toBe(
      refusedBefore + attempts.length + 1,
    );
    expect(await store.idempotency.get(schemeIdempotencyKey(schemeId, messageIdentification))).toBeNull();

    // The same credit with the token is then a first receipt.
    expect((await postCredit(credit)).status).toBe(202);
  });

  test("a bank's request to the scheme route is refused: banks have no scheme credentials", async () => {
    // A credit as a participating bank would send it, naming itself as the instructing agent.
    const credit = creditBody({ instructingAgent: { memberId: '632005' } });
    expect(participants.has('632005')).toBe(true);
    const response = await postCredit(credit, null);
    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({ type: '/problems/unauthorized' });
    expect(
      await store.idempotency.get(idempotencyKey('632005', credit.messageIdentifiers.messageIdentification)),
    ).toBeNull();
  });

  test('a credit for a bank that is not a participant gets 422 at creditorAgent, and leaves no claim', async () => {
    const credit = creditBody();
    const response = await postCredit({
      ...credit,
      creditorAgent: { ...credit.creditorAgent, memberId: '999999' },
    });
    expect(response.status).toBe(422);
    expect(response.headers.get('content-type')).toBe('application/problem+json');
    expect(await response.json()).toMatchObject({
      type: '/problems/validation-failed',
      errors: [{ pointer: '/creditorAgent/memberId', detail: '999999 is not a participant of this engine' }],
    });
    const { memberId: _none, ...anonymous } = credit.creditorAgent;
    const unnamed = await postCredit({ ...credit, creditorAgent: anonymous });
    expect(unnamed.status).toBe(422);
    expect(await unnamed.json()).toMatchObject({ errors: [{ pointer: '/creditorAgent/memberId' }] });
    expect(
      await store.idempotency.get(
        schemeIdempotencyKey(schemeId, credit.messageIdentifiers.messageIdentification),
      ),
    ).toBeNull();
  });

  test('a resend gets the same 202 and is produced once; another body or a used UETR is a 409', async () => {
    const credit = creditBody();
    const uetr = credit.transactionIdentifiers.uetr;
    const { messageIdentification } = credit.messageIdentifiers;
    const first = await postCredit(credit);
    expect(first.status).toBe(202);
    const resend = await postCredit(credit);
    expect(resend.status).toBe(202);
    expect(await resend.json()).toEqual(await first.json());

    await readPastKey(credits, 'rp.credittransfer.received.v1', canonicalAmounts(credit));
    const copies = credits.records.filter(
      (entry) =>
        entry.key === uetr && entry.value.messageIdentifiers.messageIdentification === messageIdentification,
    );
    expect(copies).toHaveLength(1);
    const changes = states.records.filter(
      (entry) => entry.key === uetr && entry.value.eventType === 'CREDIT_AUTH_RECEIVED',
    );
    expect(changes).toHaveLength(1);
    expect((await outcomes(healthy))['inboundCreditTransferAuthorization:replayed']).toBeGreaterThanOrEqual(
      1,
    );

    const altered = await postCredit({
      ...credit,
      amounts: { bankSettlementAmount: { value: 1234567890123.46 as unknown as string, currency: 'ZAR' } },
    });
    expect(altered.status).toBe(409);
    expect(await altered.json()).toMatchObject({
      type: '/problems/duplicate-message',
      detail: expect.stringContaining(`scheme ${schemeId}`),
    });

    const sameUetr = await postCredit(creditBody({ transactionIdentifiers: credit.transactionIdentifiers }));
    expect(sameUetr.status).toBe(409);
    expect(await sameUetr.json()).toMatchObject({
      type: '/problems/duplicate-transaction',
      errors: [{ pointer: '/transactionIdentifiers/uetr' }],
    });
  });
});

describe('POST inbound/direct-debit (payment schemes)', () => {
  test('answers 202 once DEBIT_REQUEST_RECEIVED and the debit, marked as from a scheme, are on their topics', async () => {
    const debit = offUsDebitBody();
    expect(participants.has('470010')).toBe(false);
    const uetr = debit.transactionIdentifiers.uetr;
    const { messageIdentification } = debit.messageIdentifiers;
    const response = await postSchemeDebit(debit);
    expect(response.status).toBe(202);
    expect(await response.json()).toEqual({
      messageIdentification,
      uetr,
      receivedAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
    });

    const record = await received.waitFor((entry) => entry.key === uetr);
    expect(record.headers['rp-state']).toBe('DEBIT_RECEIVED');
    expect(record.headers[originHeader]).toBe(schemeOrigin);
    expect(record.value).toEqual(canonicalAmounts(debit));
    const change = await states.waitFor((entry) => entry.key === uetr);
    expect(change.value).toMatchObject({
      uetr,
      toState: 'DEBIT_RECEIVED',
      eventType: 'DEBIT_REQUEST_RECEIVED',
      emittedBy: 'ingress',
      causedBy: { messageType: 'DirectDebit', messageIdentification },
      transaction: canonicalAmounts(debit),
    });
    expect(change.value.fromState).toBeUndefined();
    expect(Date.parse(change.timestamp)).toBeLessThanOrEqual(Date.parse(record.timestamp));

    // Claimed under the scheme's own key, apart from any bank's.
    expect(await store.idempotency.get(schemeIdempotencyKey(schemeId, messageIdentification))).not.toBeNull();
    expect(await store.idempotency.get(idempotencyKey('470010', messageIdentification))).toBeNull();
    expect((await outcomes(healthy))['inboundDirectDebitFromScheme:accepted']).toBeGreaterThanOrEqual(1);
  });

  test('without the scheme token, or with a bank-style request, 401 before the body is read, and no claim', async () => {
    const debit = offUsDebitBody();
    const { messageIdentification } = debit.messageIdentifiers;
    const refusedBefore = (await outcomes(healthy))['inboundDirectDebitFromScheme:unauthorized'] ?? 0;
    const missing = await postSchemeDebit(debit, null);
    expect(missing.status).toBe(401);
    expect(missing.headers.get('www-authenticate')).toBe('Bearer');
    expect(missing.headers.get('content-type')).toBe('application/problem+json');
    expect(await missing.json()).toMatchObject({
      type: '/problems/unauthorized',
      status: 401,
      instance: servicePaths.schemeInboundDirectDebit,
    });
    const wrong = await postSchemeDebit(debit, `Bearer ${randomBytes(32).toString('base64url')}`);
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
    const malformed = await post(healthy, servicePaths.schemeInboundDirectDebit, '{"messageIdentifiers": {');
    expect(malformed.status).toBe(401);
    expect((await outcomes(healthy))['inboundDirectDebitFromScheme:unauthorized']).toBe(refusedBefore + 3);
    expect(await store.idempotency.get(schemeIdempotencyKey(schemeId, messageIdentification))).toBeNull();

    // The same debit with the token is then a first receipt.
    expect((await postSchemeDebit(debit)).status).toBe(202);
  });

  test('a debit on a bank that is not a participant gets 422 at debtorAgent, and leaves no claim', async () => {
    const debit = offUsDebitBody();
    const { messageIdentification } = debit.messageIdentifiers;
    const response = await postSchemeDebit({
      ...debit,
      debtorAgent: { ...debit.debtorAgent, memberId: '999999' },
    });
    expect(response.status).toBe(422);
    expect(response.headers.get('content-type')).toBe('application/problem+json');
    expect(await response.json()).toMatchObject({
      type: '/problems/validation-failed',
      errors: [{ pointer: '/debtorAgent/memberId', detail: '999999 is not a participant of this engine' }],
    });
    const { memberId: _none, ...anonymous } = debit.debtorAgent;
    const unnamed = await postSchemeDebit({ ...debit, debtorAgent: anonymous });
    expect(unnamed.status).toBe(422);
    expect(await unnamed.json()).toMatchObject({ errors: [{ pointer: '/debtorAgent/memberId' }] });
    expect(await store.idempotency.get(schemeIdempotencyKey(schemeId, messageIdentification))).toBeNull();
    expect(await store.idempotency.get(transactionKey(debit.transactionIdentifiers.uetr))).toBeNull();
  });

  test('a resend gets the same 202 and is produced once; a used UETR is a 409', async () => {
    const debit = offUsDebitBody();
    const uetr = debit.transactionIdentifiers.uetr;
    const { messageIdentification } = debit.messageIdentifiers;
    const first = await postSchemeDebit(debit);
    expect(first.status).toBe(202);
    const resend = await postSchemeDebit(debit);
    expect(resend.status).toBe(202);
    expect(await resend.json()).toEqual(await first.json());

    await readPastKey(received, 'rp.directdebit.received.v1', canonicalAmounts(debit));
    const copies = received.records.filter(
      (entry) =>
        entry.key === uetr && entry.value.messageIdentifiers.messageIdentification === messageIdentification,
    );
    expect(copies).toHaveLength(1);
    const changes = states.records.filter(
      (entry) => entry.key === uetr && entry.value.eventType === 'DEBIT_REQUEST_RECEIVED',
    );
    expect(changes).toHaveLength(1);
    expect((await outcomes(healthy))['inboundDirectDebitFromScheme:replayed']).toBeGreaterThanOrEqual(1);

    // The UETR is the transaction's whichever route started it: a bank's debit naming it is refused too.
    const sameUetr = await postDebit(debitBody({ transactionIdentifiers: debit.transactionIdentifiers }));
    expect(sameUetr.status).toBe(409);
    expect(await sameUetr.json()).toMatchObject({
      type: '/problems/duplicate-transaction',
      errors: [{ pointer: '/transactionIdentifiers/uetr' }],
    });
  });
});

describe('POST inbound/credit-transfer-authorization-response', () => {
  test('answers 202 once CREDIT_AUTH_RESPONSE_ACCEPTED is on the state topic, and forwards nothing', async () => {
    const credit = await deliveredCredit();
    const uetr = credit.transactionIdentifiers.uetr;
    const report = reportBody(credit);
    const response = await postCreditResponse(report);
    expect(response.status).toBe(202);
    expect(await response.json()).toMatchObject({
      messageIdentification: report.messageIdentifiers.messageIdentification,
      uetr,
    });
    const change = await states.waitFor((entry) => entry.key === uetr);
    expect(change.value).toMatchObject({
      fromState: 'CREDIT_AUTH_DELIVERED',
      toState: 'CREDIT_AUTH_RESPONSE_ACCEPTED',
      eventType: 'CREDIT_AUTH_RESPONSE_ACCEPTED',
      emittedBy: 'ingress',
      causedBy: {
        messageType: 'PaymentStatusReport',
        messageIdentification: report.messageIdentifiers.messageIdentification,
      },
      statusReport: report,
    });
    expect(change.value.transaction ?? undefined).toBeUndefined();
    expect(
      (await outcomes(healthy))['inboundCreditTransferAuthorizationResponse:accepted'],
    ).toBeGreaterThanOrEqual(1);
    // Final: the report is not forwarded as a debit's report is.
    await readPastKey(reports, 'rp.statusreport.received.v1', report);
    expect(
      reports.records.filter(
        (entry) =>
          entry.key === uetr &&
          entry.value.messageIdentifiers.messageIdentification ===
            report.messageIdentifiers.messageIdentification,
      ),
    ).toEqual([]);
  });

  test("a report that overtakes the record of the bank's 202 follows CREDIT_AUTH_DELIVERY_PENDING", async () => {
    const credit = await deliveredCredit(true);
    const uetr = credit.transactionIdentifiers.uetr;
    expect((await postCreditResponse(reportBody(credit))).status).toBe(202);
    const change = await states.waitFor((entry) => entry.key === uetr);
    expect(change.value).toMatchObject({
      fromState: 'CREDIT_AUTH_DELIVERY_PENDING',
      toState: 'CREDIT_AUTH_RESPONSE_ACCEPTED',
    });
  });

  test("a response on a credit this engine took is admitted against the UETR's claim, before any snapshot", async () => {
    const sent = creditBody();
    const uetr = sent.transactionIdentifiers.uetr;
    expect((await postCredit(sent)).status).toBe(202);
    expect(await store.transactions.get(uetr)).toBeNull();
    const stranger = await postCreditResponse(reportBody(sent, { instructingAgent: { memberId: '632005' } }));
    expect(stranger.status).toBe(422);
    // Not a debit: a debit's report naming the credit's UETR is refused at the UETR.
    const crossed = await postReport(reportBody(sent));
    expect(crossed.status).toBe(422);
    expect(await crossed.json()).toMatchObject({
      errors: [
        {
          pointer: '/transactionIdentifiers/uetr',
          detail: expect.stringContaining('does not name a direct debit'),
        },
      ],
    });
    const report = reportBody(sent);
    expect((await postCreditResponse(report)).status).toBe(202);
    const change = await states.waitFor(
      (entry) => entry.key === uetr && entry.value.eventType === 'CREDIT_AUTH_RESPONSE_ACCEPTED',
    );
    expect(change.value).toMatchObject({ fromState: 'CREDIT_AUTH_DELIVERED', statusReport: report });
  });

  test("a response on a direct debit's UETR gets 422 at the UETR, and a debit's report on a credit's too", async () => {
    const debit = await deliveredDebit();
    const response = await postCreditResponse(reportBody(debit));
    expect(response.status).toBe(422);
    expect(await response.json()).toMatchObject({
      type: '/problems/validation-failed',
      errors: [
        {
          pointer: '/transactionIdentifiers/uetr',
          detail: expect.stringContaining('does not name a credit transfer authorisation'),
        },
      ],
    });

    const credit = await deliveredCredit();
    const crossed = await postReport(reportBody(credit));
    expect(crossed.status).toBe(422);
    expect(await crossed.json()).toMatchObject({
      errors: [
        {
          pointer: '/transactionIdentifiers/uetr',
          detail: expect.stringContaining('does not name a direct debit'),
        },
      ],
    });
  });

  test("a response from a bank that is not the creditor's bank gets 422 at instructingAgent", async () => {
    const credit = await deliveredCredit();
    const response = await postCreditResponse(
      reportBody(credit, { instructingAgent: { memberId: '632005' } }),
    );
    expect(response.status).toBe(422);
    expect(await response.json()).toMatchObject({
      errors: [
        { pointer: '/instructingAgent/memberId', detail: expect.stringContaining("not the creditor's bank") },
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
    const paths = document.paths as Record<
      string,
      { post: { operationId: string; security?: unknown; responses: Record<string, unknown> } }
    >;
    for (const path of [
      servicePaths.inboundCreditTransferAuthorization,
      servicePaths.schemeInboundDirectDebit,
    ]) {
      expect(paths[path]?.post.responses).toHaveProperty('401');
      expect(paths[path]?.post.security).toEqual([{ schemeBearerToken: [] }]);
    }
    expect(paths[servicePaths.schemeInboundDirectDebit]?.post.operationId).toBe(
      'inboundDirectDebitFromScheme',
    );
    const asyncapi = await fetch(`${healthy.server.url}/api/v1/asyncapi.json`);
    expect(((await asyncapi.json()) as { asyncapi: string }).asyncapi).toMatch(/^3\./);
  });

  test('a message route answers another method 405 with Allow: POST, as problem+json', async () => {
    for (const path of Object.values(servicePaths)) {
      for (const method of ['GET', 'PUT', 'DELETE', 'PATCH']) {
        const response = await fetch(`${healthy.server.url}${path}`, { method });
        expect(response.status, `${method} ${path}`).toBe(405);
        expect(response.headers.get('allow')).toBe('POST');
        expect(response.headers.get('content-type')).toBe('application/problem+json');
        expect(((await response.json()) as { type: string }).type).toBe('/problems/method-not-allowed');
      }
    }
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

describe('limits', () => {
  test('a bank over its rate gets 429 with Retry-After; nothing of that message is recorded', async () => {
    const limited = await startIngress(endpoints.kafkaBrokers, 5_000, {
      rateLimit: { perSecond: 0.5, burst: 2 },
    });
    try {
      const debits = [debitBody(), debitBody(), debitBody()];
      const answers = [];
      for (const debit of debits) answers.push(await postDebit(debit, limited));
      expect(answers.map((response) => response.status)).toEqual([202, 202, 429]);
      const refused = answers[2] as Response;
      expect(refused.headers.get('retry-after')).toBe('2');
      expect(refused.headers.get('content-type')).toBe('application/problem+json');
      expect(await refused.json()).toMatchObject({ type: '/problems/rate-limited', status: 429 });
      const third = debits[2] as DirectDebit;
      const memberId = third.instructingAgent?.memberId as string;
      expect(
        await store.idempotency.get(idempotencyKey(memberId, third.messageIdentifiers.messageIdentification)),
      ).toBeNull();
      expect(await store.idempotency.get(transactionKey(third.transactionIdentifiers.uetr))).toBeNull();
      expect((await outcomes(limited))['outboundDirectDebit:rate_limited']).toBe(1);
      // The same message once the bank has waited (here: to an instance with room) is taken.
      expect((await postDebit(third)).status).toBe(202);
    } finally {
      await stopIngress(limited);
    }
  });

  test('over its capacity the ingress answers 503 with Retry-After, never a 202 it has not made durable', async () => {
    const full = await startIngress(endpoints.kafkaBrokers, 5_000, { maxInFlight: 0 });
    try {
      const debit = debitBody();
      const response = await postDebit(debit, full);
      expect(response.status).toBe(503);
      expect(response.headers.get('retry-after')).toBe('7');
      expect(await response.json()).toMatchObject({ type: '/problems/unavailable', status: 503 });
      expect(await store.idempotency.get(transactionKey(debit.transactionIdentifiers.uetr))).toBeNull();
      expect((await outcomes(full))['outboundDirectDebit:overloaded']).toBe(1);
    } finally {
      await stopIngress(full);
    }
  });
});

/**
 * A bank identity provider for the tests: its key set (kid idp-1), and access tokens it signs (or, with
 * `key`, a stranger signs) for a client, as the ingress's bank authentication expects them.
 */
async function testIdentityProvider() {
  const issuer = 'https://idp.test/oauth2';
  const audience = 'regulated-payments';
  const pair = await generateKeyPair('ES256');
  const strangerKey = (await generateKeyPair('ES256')).privateKey;
  const jwks: JSONWebKeySet = {
    keys: [{ ...(await exportJWK(pair.publicKey)), kid: 'idp-1', alg: 'ES256' }],
  };
  /** `Bearer <token>` for the client. */
  async function bearer(
    clientId: string,
    options: { audience?: string; expiresIn?: number; key?: CryptoKey; issuer?: string } = {},
  ): Promise<string> {
    const now = Math.floor(Date.now() / 1000);
    const token = await new SignJWT({ client_id: clientId })
      .setProtectedHeader({ alg: 'ES256', kid: 'idp-1', typ: 'at+jwt' })
      .setIssuer(options.issuer ?? issuer)
      .setSubject(clientId)
      .setAudience(options.audience ?? audience)
      .setIssuedAt(now - 600)
      .setExpirationTime(now + (options.expiresIn ?? 300))
      .sign(options.key ?? pair.privateKey);
    return `Bearer ${token}`;
  }
  return { bankAuth: { jwks, issuer, audience }, strangerKey, bearer };
}

describe('bank authentication (OAuth2 access tokens)', () => {
  let secured: Running;
  let idp: Awaited<ReturnType<typeof testIdentityProvider>>;

  beforeAll(async () => {
    idp = await testIdentityProvider();
    secured = await startIngress(endpoints.kafkaBrokers, 5_000, { bankAuth: idp.bankAuth });
  });
  afterAll(async () => {
    await stopIngress(secured);
  });

  const send = async (debit: DirectDebit, authorization?: string) =>
    post(
      secured,
      servicePaths.outboundDirectDebit,
      JSON.stringify(debit),
      'application/json',
      authorization === undefined ? {} : { authorization },
    );

  test("a bank's own debit with its token is accepted", async () => {
    const debit = debitBody();
    expect((await send(debit, await idp.bearer('250655'))).status).toBe(202);
    await received.waitFor((entry) => entry.key === debit.transactionIdentifiers.uetr);
  });

  test.each([
    ['no token', async () => undefined, 'Bearer'],
    ['another authentication scheme', async () => 'Basic MjUwNjU1OnNlY3JldA==', 'Bearer'],
    [
      'a token for another audience',
      async () => idp.bearer('250655', { audience: 'another-api' }),
      'invalid_token',
    ],
    ['an expired token', async () => idp.bearer('250655', { expiresIn: -120 }), 'invalid_token'],
    [
      'a token signed by an unknown key',
      async () => idp.bearer('250655', { key: idp.strangerKey }),
      'invalid_token',
    ],
    [
      'a token of another issuer',
      async () => idp.bearer('250655', { issuer: 'https://evil.test' }),
      'invalid_token',
    ],
    ['not a JWT at all', async () => 'Bearer not-a-jwt', 'invalid_token'],
  ])('%s: 401 with WWW-Authenticate, nothing recorded', async (_case, authorization, challenge) => {
    const debit = debitBody();
    const response = await send(debit, await authorization());
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toContain(challenge);
    expect(response.headers.get('content-type')).toBe('application/problem+json');
    expect(await response.json()).toMatchObject({ type: '/problems/unauthorized', status: 401 });
    expect(await store.idempotency.get(transactionKey(debit.transactionIdentifiers.uetr))).toBeNull();
  });

  test('bank A sending as bank B: 403, nothing recorded', async () => {
    const asOther = debitBody({ instructingAgent: { memberId: '632005' } });
    const response = await send(asOther, await idp.bearer('250655'));
    expect(response.status).toBe(403);
    const problem = (await response.json()) as { type: string; detail: string };
    expect(problem.type).toBe('/problems/forbidden');
    expect(problem.detail).toMatch(/250655.*632005/);
    expect(await store.idempotency.get(transactionKey(asOther.transactionIdentifiers.uetr))).toBeNull();
  });

  test('a valid token of a client that is no participant: 403', async () => {
    const response = await send(debitBody(), await idp.bearer('999999'));
    expect(response.status).toBe(403);
    expect(await response.json()).toMatchObject({ type: '/problems/forbidden' });
  });

  test("bank B answering bank A's debit with B's token is refused", async () => {
    const debit = debitBody();
    const report = reportBody(debit, { instructingAgent: { memberId: '632005' } });
    const response = await post(
      secured,
      servicePaths.inboundDirectDebitResponse,
      JSON.stringify(report),
      'application/json',
      { authorization: await idp.bearer('632005') },
    );
    expect(response.status).toBe(422);
    expect(((await response.json()) as { errors: { pointer: string }[] }).errors[0]?.pointer).toBe(
      '/transactionIdentifiers/uetr',
    );
  });
});

/**
 * A TCP proxy to MongoDB that a test can cut: a store connected through it loses the server (connections
 * broken, new ones refused) while every other client keeps it.
 */
async function mongoProxy(uri: string): Promise<{ uri: string; cut(): Promise<void> }> {
  const target = new URL(uri);
  if (target.protocol !== 'mongodb:' || target.host.includes(',')) {
    throw new Error('cutting the store off needs a single-host mongodb:// URI');
  }
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = tcpConnect(Number(target.port || '27017'), target.hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => {
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  const proxied = new URL(uri);
  proxied.hostname = '127.0.0.1';
  proxied.port = String(address.port);
  proxied.searchParams.set('directConnection', 'true');
  return {
    uri: proxied.toString(),
    async cut() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      await closed;
    },
  };
}

describe('GET transactions/{uetr} (a bank reads a transaction it is party to)', () => {
  let reader: Running;
  let idp: Awaited<ReturnType<typeof testIdentityProvider>>;

  beforeAll(async () => {
    idp = await testIdentityProvider();
    reader = await startIngress(endpoints.kafkaBrokers, 5_000, { bankAuth: idp.bankAuth });
  });
  afterAll(async () => {
    await stopIngress(reader);
  });

  const read = (uetr: string, authorization?: string, running = reader, method = 'GET') =>
    fetch(`${running.server.url}/api/v1/transactions/${uetr}`, {
      method,
      headers: authorization === undefined ? {} : { authorization },
    });

  /**
   * A debit of 250655's customer (the creditor's bank, which sends it) on an account at 632005 (the
   * actioning bank), accepted and queued, with an amount a binary float cannot carry digit for digit in
   * every form; 198765 is a participant with no part in it.
   */
  async function queuedDebit(): Promise<DirectDebit> {
    const amount = { value: '1234567890123.45', currency: 'ZAR' };
    const debit = canonicalAmounts(
      debitBody({
        debtorAgent: { memberId: '632005', name: 'ABSA' },
        instructedAgent: { memberId: '632005' },
      }),
    );
    debit.amounts = { bankSettlementAmount: amount, instructedAmount: amount };
    await seedSnapshot(debit, [
      'DEBIT_RECEIVED',
      'DEBIT_ACCEPTED',
      'DEBIT_ACCEPTANCE_DELIVERY_PENDING',
      'DEBIT_ACCEPTANCE_DELIVERED',
      'DEBIT_QUEUED',
    ]);
    return debit;
  }

  test('the initiating and the actioning bank each read it: state, history in order, the exact amount', async () => {
    const debit = await queuedDebit();
    const uetr = debit.transactionIdentifiers.uetr;
    for (const bank of ['250655', '632005']) {
      const response = await read(uetr, await idp.bearer(bank));
      expect(response.status, bank).toBe(200);
      expect(response.headers.get('content-type')).toBe('application/json');
      expect(response.headers.get('cache-control')).toBe('no-store');
      const text = await response.text();
      // Exact: the amount is written with its digits, never through a binary float.
      expect(text).toContain('"amount":{"value":1234567890123.45,"currency":"ZAR"}');
      const status = JSON.parse(text) as { history: { seq: number; at: string }[]; [name: string]: unknown };
      expect(status).toMatchObject({
        uetr,
        transactionType: 'DIRECT_DEBIT',
        state: 'DEBIT_QUEUED',
        final: false,
        endToEndIdentification: debit.transactionIdentifiers.endToEndIdentification,
        instructingAgentMemberId: '250655',
        instructedAgentMemberId: '632005',
        debtorAgentMemberId: '632005',
        creditorAgentMemberId: '250655',
      });
      expect(status.history.map(({ seq, at: _at, ...step }) => ({ seq, ...step }))).toEqual([
        { seq: 1, state: 'DEBIT_RECEIVED', eventType: 'DEBIT_REQUEST_RECEIVED' },
        { seq: 2, state: 'DEBIT_ACCEPTED', eventType: 'DEBIT_REQUEST_ACCEPTED' },
        { seq: 3, state: 'DEBIT_ACCEPTANCE_DELIVERY_PENDING', eventType: 'DEBIT_STATUS_DELIVERY_PENDING' },
        { seq: 4, state: 'DEBIT_ACCEPTANCE_DELIVERED', eventType: 'DEBIT_STATUS_DELIVERED' },
        { seq: 5, state: 'DEBIT_QUEUED', eventType: 'DEBIT_QUEUED' },
      ]);
      // The public shape only: no message bodies (the other party's customers), no delivery internals.
      expect(Object.keys(status).sort()).toEqual(
        [
          'amount',
          'createdAt',
          'creditorAgentMemberId',
          'debtorAgentMemberId',
          'endToEndIdentification',
          'final',
          'history',
          'instructedAgentMemberId',
          'instructingAgentMemberId',
          'state',
          'transactionType',
          'updatedAt',
          'uetr',
        ].sort(),
      );
      expect(text).not.toContain(debit.debtorAccount.identification?.value as string);
    }
  });

  test("the creditor's bank reads a credit transfer it is to receive", async () => {
    const credit = await deliveredCredit();
    const response = await read(credit.transactionIdentifiers.uetr, await idp.bearer('250655'));
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({
      transactionType: 'CREDIT_TRANSFER',
      state: 'CREDIT_AUTH_DELIVERED',
      final: false,
      creditorAgentMemberId: '250655',
      amount: { value: 1234567890123.45, currency: 'ZAR' },
    });
  });

  test('a bank that is no party gets 404 with the body of a UETR that does not exist', async () => {
    const debit = await queuedDebit();
    const uetr = debit.transactionIdentifiers.uetr;
    const unknown = randomUUID();
    const authorization = await idp.bearer('198765');
    const [theirs, none] = await Promise.all([read(uetr, authorization), read(unknown, authorization)]);
    expect([theirs.status, none.status]).toEqual([404, 404]);
    for (const response of [theirs, none]) {
      expect(response.headers.get('content-type')).toBe('application/problem+json');
    }
    const [theirsText, noneText] = await Promise.all([theirs.text(), none.text()]);
    // The same answer but for the UETR the bank asked about.
    expect(theirsText.replaceAll(uetr, '{uetr}')).toBe(noneText.replaceAll(unknown, '{uetr}'));
    expect(JSON.parse(noneText)).toMatchObject({ type: '/problems/not-found', status: 404 });
    expect([...theirs.headers.keys()].sort()).toEqual([...none.headers.keys()].sort());
  });

  /** The reads of `running` by outcome. */
  async function readOutcomes(running: Running): Promise<Record<string, number>> {
    const metric = await running.metrics.registry
      .getSingleMetric('rp_ingress_transaction_reads_total')
      ?.get();
    return Object.fromEntries((metric?.values ?? []).map((value) => [value.labels.outcome, value.value]));
  }

  test('a debit read straight after its 202: its first state from the instance that took it, 503 with Retry-After: 1 from another, 404 to a bank that is no party', async () => {
    const debit = debitBody({
      debtorAgent: { memberId: '632005', name: 'ABSA' },
      instructedAgent: { memberId: '632005' },
    });
    const uetr = debit.transactionIdentifiers.uetr;
    const before = await readOutcomes(reader);
    const sent = await post(
      reader,
      servicePaths.outboundDirectDebit,
      JSON.stringify(debit),
      'application/json',
      {
        authorization: await idp.bearer('250655'),
      },
    );
    expect(sent.status).toBe(202);
    // No tracker runs here, so there is no snapshot: every answer below is the ingress's own.
    expect(await store.transactions.get(uetr)).toBeNull();
    const change = await states.waitFor((entry) => entry.key === uetr);

    for (const bank of ['250655', '632005']) {
      const response = await read(uetr, await idp.bearer(bank));
      expect(response.status, bank).toBe(200);
      expect(response.headers.get('cache-control')).toBe('no-store');
      expect(await response.json()).toEqual({
        uetr,
        transactionType: 'DIRECT_DEBIT',
        state: 'DEBIT_RECEIVED',
        final: false,
        endToEndIdentification: debit.transactionIdentifiers.endToEndIdentification,
        instructingAgentMemberId: '250655',
        instructedAgentMemberId: '632005',
        debtorAgentMemberId: '632005',
        creditorAgentMemberId: '250655',
        amount: { value: Number(debit.amounts.bankSettlementAmount.value), currency: 'ZAR' },
        // The first state change's own instant, as the snapshot will record it.
        createdAt: change.value.occurredAt,
        updatedAt: change.value.occurredAt,
        history: [
          {
            seq: 1,
            state: 'DEBIT_RECEIVED',
            eventType: 'DEBIT_REQUEST_RECEIVED',
            at: change.value.occurredAt,
          },
        ],
      });
    }
    const stranger = await idp.bearer('198765');
    const unknown = randomUUID();
    const [theirs, none] = await Promise.all([read(uetr, stranger), read(unknown, stranger)]);
    expect([theirs.status, none.status]).toEqual([404, 404]);
    expect((await theirs.text()).replaceAll(uetr, '{uetr}')).toBe(
      (await none.text()).replaceAll(unknown, '{uetr}'),
    );
    const after = await readOutcomes(reader);
    expect([after.accepted, after.not_party]).toEqual([
      (before.accepted ?? 0) + 2,
      (before.not_party ?? 0) + 1,
    ]);

    // Another instance did not take it: the UETR's claim says it was acknowledged a moment ago.
    const other = await startIngress(endpoints.kafkaBrokers, 5_000, { bankAuth: idp.bankAuth });
    try {
      const early = await read(uetr, await idp.bearer('632005'), other);
      expect(early.status).toBe(503);
      expect(early.headers.get('retry-after')).toBe('1');
      expect(early.headers.get('content-type')).toBe('application/problem+json');
      const problem = (await early.json()) as { type: string; detail: string };
      expect(problem.type).toBe('/problems/unavailable');
      expect(problem.detail).toContain('acknowledged moments ago');
      expect((await read(uetr, stranger, other)).status).toBe(404);
      expect(await readOutcomes(other)).toMatchObject({ not_yet: 1, not_party: 1 });
    } finally {
      await stopIngress(other);
    }
  });

  test('a UETR claimed more than a minute ago without a snapshot reads as one that does not exist', async () => {
    const claimed = async (ageMs: number) => {
      const uetr = randomUUID();
      await store.idempotency.claim({
        key: transactionKey(uetr),
        payloadHash: 'never produced',
        uetr,
        receivedAt: new Date(Date.now() - ageMs),
        transaction: { kind: 'DirectDebit', debtorAgentMemberId: '632005', creditorAgentMemberId: '250655' },
      });
      return uetr;
    };
    const authorization = await idp.bearer('250655');
    const [old, recent] = await Promise.all([claimed(claimedNotRecordedMs + 1_000), claimed(1_000)]);
    expect((await read(old, authorization)).status).toBe(404);
    expect((await read(recent, authorization)).status).toBe(503);
  });

  test.each([
    ['no token', async () => undefined, 'Bearer'],
    ['an expired token', async () => idp.bearer('250655', { expiresIn: -120 }), 'invalid_token'],
    [
      'a token for another audience',
      async () => idp.bearer('250655', { audience: 'another-api' }),
      'invalid_token',
    ],
    [
      'a token signed by an unknown key',
      async () => idp.bearer('250655', { key: idp.strangerKey }),
      'invalid_token',
    ],
  ])(
    '%s: 401 with WWW-Authenticate, and nothing of the transaction',
    async (_case, authorization, challenge) => {
      const debit = await queuedDebit();
      const response = await read(debit.transactionIdentifiers.uetr, await authorization());
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toMatch(/^Bearer/);
      expect(response.headers.get('www-authenticate')).toContain(challenge);
      expect(response.headers.get('content-type')).toBe('application/problem+json');
      expect(await response.json()).toMatchObject({ type: '/problems/unauthorized', status: 401 });
    },
  );

  test('a valid token of a client that is no participant: 403', async () => {
    const debit = await queuedDebit();
    const response = await read(debit.transactionIdentifiers.uetr, await idp.bearer('999999'));
    expect(response.status).toBe(403);
    expect(response.headers.get('content-type')).toBe('application/problem+json');
    expect(await response.json()).toMatchObject({ type: '/problems/forbidden', status: 403 });
  });

  test.each([
    'not-a-uuid',
    '2f6c1e0a8b4d4c7e9a1f3d5b7c9e1a24',
    '2f6c1e0a-8b4d-4c7e-9a1f-3d5b7c9e1a2',
    // Not ASCII: the problem's instance stays a URI reference (percent-encoded as it was sent).
    'Z%F4%8A%93%8E%F1%8E%80%B8',
  ])('a UETR that is not a UUID (%s): 422 naming /uetr', async (uetr) => {
    const response = await read(uetr, await idp.bearer('250655'));
    expect(response.status).toBe(422);
    expect(response.headers.get('content-type')).toBe('application/problem+json');
    const problem = (await response.json()) as { instance: string };
    expect(problem).toMatchObject({
      type: '/problems/validation-failed',
      status: 422,
      errors: [{ pointer: '/uetr', detail: 'must be a UUID' }],
    });
    expect(problem.instance).toBe(`/api/v1/transactions/${uetr}`);
  });

  test('without bank authentication nothing says which bank reads: 403 for every read', async () => {
    const debit = await queuedDebit();
    // `healthy` names banks by their messages (BANK_AUTH=message): it must not serve a read to anyone.
    for (const authorization of [undefined, await idp.bearer('250655')]) {
      const response = await read(debit.transactionIdentifiers.uetr, authorization, healthy);
      expect(response.status).toBe(403);
      expect(response.headers.get('content-type')).toBe('application/problem+json');
      const problem = (await response.json()) as { type: string; detail: string };
      expect(problem.type).toBe('/problems/forbidden');
      expect(problem.detail).toMatch(/needs bank authentication/);
    }
  });

  test('another method on the route: 405 with Allow: GET, as problem+json', async () => {
    const authorization = await idp.bearer('250655');
    for (const method of ['POST', 'PUT', 'DELETE', 'PATCH']) {
      const response = await read(randomUUID(), authorization, reader, method);
      expect(response.status, method).toBe(405);
      expect(response.headers.get('allow')).toBe('GET');
      expect(response.headers.get('content-type')).toBe('application/problem+json');
      expect(((await response.json()) as { type: string }).type).toBe('/problems/method-not-allowed');
    }
  });

  test('a bank over its rate of reads gets 429 with Retry-After; its messages keep their own rate', async () => {
    const limited = await startIngress(endpoints.kafkaBrokers, 5_000, {
      bankAuth: idp.bankAuth,
      rateLimit: { perSecond: 0.01, burst: 2 },
    });
    try {
      const authorization = await idp.bearer('250655');
      const statuses = [];
      for (let index = 0; index < 3; index += 1) {
        const response = await read(randomUUID(), authorization, limited);
        statuses.push(response.status);
        if (index < 2) await response.arrayBuffer();
        else {
          expect(Number(response.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
          expect(response.headers.get('content-type')).toBe('application/problem+json');
          expect(await response.json()).toMatchObject({ type: '/problems/rate-limited', status: 429 });
        }
      }
      expect(statuses).toEqual([404, 404, 429]);
      // Another bank reads on.
      expect((await read(randomUUID(), await idp.bearer('632005'), limited)).status).toBe(404);
      // The same bank's payments are not held back by its reads.
      const debit = debitBody();
      const sent = await post(
        limited,
        servicePaths.outboundDirectDebit,
        JSON.stringify(debit),
        'application/json',
        {
          authorization,
        },
      );
      expect(sent.status).toBe(202);
      const metric = await limited.metrics.registry
        .getSingleMetric('rp_ingress_transaction_reads_total')
        ?.get();
      const reads = Object.fromEntries(
        (metric?.values ?? []).map((value) => [value.labels.outcome, value.value]),
      );
      expect(reads).toMatchObject({ not_found: 3, rate_limited: 1 });
    } finally {
      await stopIngress(limited);
    }
  });

  test('the store unavailable: 503 with Retry-After', async () => {
    const debit = await queuedDebit();
    const proxy = await mongoProxy(endpoints.mongodbUri);
    const cutOff = await connectStore({
      uri: proxy.uri,
      database: databaseName,
      appName: 'ingress-test-cut-off',
      serverSelectionTimeoutMs: 1_000,
    });
    const isolated = await startIngress(endpoints.kafkaBrokers, 5_000, {
      bankAuth: idp.bankAuth,
      store: cutOff,
    });
    try {
      const authorization = await idp.bearer('250655');
      // Through the proxy first, so the answer below is the cut's and not a misconfiguration's.
      expect((await read(debit.transactionIdentifiers.uetr, authorization, isolated)).status).toBe(200);
      await proxy.cut();
      const response = await read(debit.transactionIdentifiers.uetr, authorization, isolated);
      expect(response.status).toBe(503);
      expect(response.headers.get('retry-after')).toBe('7');
      expect(response.headers.get('content-type')).toBe('application/problem+json');
      expect(await response.json()).toMatchObject({ type: '/problems/unavailable', status: 503 });
    } finally {
      await stopIngress(isolated);
      await cutOff.close().catch(() => undefined);
    }
  });
});
