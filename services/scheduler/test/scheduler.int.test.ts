import {
  avroTypeOptions,
  type DeliveryOutcome,
  type DirectDebit,
  type ReconciliationItem,
  type TopicName,
  type TransactionStateChanged,
} from '@rp/contracts';
import { createAvroSerde, createKafka, type KafkaClient } from '@rp/kafka';
import {
  createPipelineProducer,
  createPlainCodecs,
  createStateEmitter,
  originHeader,
  type PipelineCodecs,
  type PipelineProducer,
  resolveTopicNames,
  schemeOrigin,
  type TopicNames,
  topicSpecs,
} from '@rp/pipeline';
import { createLogger, createMetrics, jwtOperatorAuthenticator, ManualClock } from '@rp/runtime';
import { connectStore, type Store } from '@rp/store';
import { infra, metricSample, uniqueName } from '@rp/testkit';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { MongoClient } from 'mongodb';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { schedulerMetrics } from '../src/metrics.ts';
import { PromptRelease } from '../src/prompt-release.ts';
import { createQueueingHandlers } from '../src/queueing.ts';
import {
  consumedTopics,
  createSchedulerService,
  producedTopics,
  type SchedulerService,
} from '../src/service.ts';
import type { WindowStatus } from '../src/window-state.ts';
import { defaultWindowSettings } from '../src/windows.ts';
import { debit, recordSnapshot, toActioningBank, uetrOf } from './fixtures.ts';
import { readTopic, type TopicReader } from './topic-reader.ts';

const logger = createLogger({
  service: 'scheduler-test',
  level: (process.env.TEST_LOG_LEVEL as 'warn' | undefined) ?? 'warn',
});
const allTopics: TopicName[] = [...consumedTopics, ...producedTopics];
const monday = '2026-11-23';
const tuesday = '2026-11-24';
const sast = (local: string) => new Date(`${local}+02:00`);

let names: TopicNames;
let codecs: Partial<PipelineCodecs>;
let kafka: KafkaClient;
let producer: PipelineProducer;
let input: PipelineProducer;
let store: Store;
let mongo: MongoClient;
let databaseName: string;
let service: SchedulerService;
let due: TopicReader<DirectDebit>;
let states: TopicReader<TransactionStateChanged>;
let items: TopicReader<ReconciliationItem>;
const clock = new ManualClock(sast(`${monday}T07:00:00`));

/** The dispatcher's record of the initiating bank's 202 to a status report. */
/** The initiating bank's 202 to the debit's status report, as the dispatcher records it. */
function acknowledgementOf(value: DirectDebit): DeliveryOutcome {
  return {
    uetr: uetrOf(value),
    messageIdentification: `RPV${uetrOf(value).replaceAll('-', '').toUpperCase()}`,
    targetBank: '250655',
    operation: 'outboundDirectDebitResponse',
    attempt: 1,
    attemptedAt: clock.now().toISOString(),
    httpStatus: 202,
    latencyMs: 12,
    result: 'ACKNOWLEDGED',
    final: true,
  };
}

function acknowledge(value: DirectDebit, state = 'DEBIT_ACCEPTANCE_DELIVERED'): Promise<void> {
  const outcome = acknowledgementOf(value);
  return input.send('rp.delivery.outcome.v1', [
    { key: outcome.uetr, value: outcome, headers: { 'rp-state': state } },
  ]);
}

/** Retries an assertion on a condition the service reaches on its own (no signal to wait on) until it holds. */
async function eventually<T>(check: () => Promise<T>, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

/**
 * Operators' access tokens from a key pair made here, as an identity provider issues them; the
 * scheduler checks them against its public key. Calls go as `ops-alice`, who may act.
 */
const issuer = 'https://idp.test/oauth2';
const adminAudience = 'regulated-payments-admin';
const keys = await generateKeyPair('ES256');
const jwks = { keys: [{ ...(await exportJWK(keys.publicKey)), kid: 'k1', alg: 'ES256', use: 'sig' }] };
async function operatorToken(subject: string, scope: string): Promise<string> {
  const token = await new SignJWT({ scope })
    .setProtectedHeader({ alg: 'ES256', kid: 'k1', typ: 'at+jwt' })
    .setIssuer(issuer)
    .setSubject(subject)
    .setAudience(adminAudience)
    .setIssuedAt()
    .setExpirationTime('10m')
    .sign(keys.privateKey);
  return `Bearer ${token}`;
}
const alice = await operatorToken('ops-alice', 'operator.read operator.replay');

async function getJson<T>(path: string, init?: RequestInit): Promise<T> {
  const response = await service.app.request(path, {
    ...init,
    headers: { authorization: alice, ...(init?.headers as Record<string, string> | undefined) },
  });
  return (await response.json()) as T;
}

/** The scheduler's rp_scheduler_queue_depth gauge as its /metrics has it (undefined: no series yet). */
async function queueDepthGauge(): Promise<{ queued: number | undefined; awaiting: number | undefined }> {
  const text = await (await service.app.request('/metrics')).text();
  const stage = (name: string) => {
    const line = text
      .split('\n')
      .find(
        (candidate) =>
          candidate.startsWith('rp_scheduler_queue_depth{') && candidate.includes(`stage="${name}"`),
      );
    return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
  };
  return { queued: stage('queued'), awaiting: stage('awaiting-status-report') };
}

interface QueueView {
  depth: number;
  byWindow: Record<string, number>;
  awaitingStatusReport: number;
}

function accept(...debits: DirectDebit[]): Promise<void> {
  return input.send(
    'rp.directdebit.accepted.v1',
    debits.map((value) => ({ key: uetrOf(value), value, headers: { 'rp-state': 'DEBIT_ACCEPTED' } })),
  );
}

/** The validator's record of an inbound off-us debit from a clearing house: no status report goes back. */
function acceptFromScheme(value: DirectDebit): Promise<void> {
  return input.send('rp.directdebit.accepted.v1', [
    {
      key: uetrOf(value),
      value,
      headers: { 'rp-state': 'DEBIT_ACCEPTED', [originHeader]: schemeOrigin },
    },
  ]);
}

/** A metric of the scheduler without labels (0 before its first value). */
async function schedulerMetric(name: string, labels: Readonly<Record<string, string>> = {}): Promise<number> {
  return metricSample(await (await service.app.request('/metrics')).text(), name, labels) ?? 0;
}

/** Accepted records the scheduler handled and left alone for `reason` so far. */
async function ignoredAccepted(reason: string): Promise<number> {
  const text = await (await service.app.request('/metrics')).text();
  return metricSample(text, 'rp_scheduler_ignored_records_total', { topic: 'accepted', reason }) ?? 0;
}

/**
 * Debits released at once since the counts given, together with those that would have been but took the
 * queue's path because a record that made them ready may have been handled before: the consumer hands
 * a record on as such after a retry (the store or the broker did not answer in time) or a rebalance,
 * both of which a loaded machine can cause. Such a debit is still released within the window; the test
 * of the repeated path itself is in 'the accepted debits held in memory'.
 */
async function releasedAtOnceOrRepeated(atOnceBefore: number, repeatedBefore: number): Promise<number> {
  const atOnce = (await schedulerMetric('rp_scheduler_debits_released_at_once_total')) - atOnceBefore;
  const repeated = (await schedulerMetric('rp_scheduler_debits_queued_as_repeated_total')) - repeatedBefore;
  return atOnce + repeated;
}

function queuedChange(value: DirectDebit) {
  return states.waitFor(
    (record) => record.key === uetrOf(value) && record.value.eventType === 'DEBIT_QUEUED',
  );
}

/**
 * Every topic here has one partition: once a marker written after some point has been read, every record
 * the scheduler wrote to that topic before that point has been read too.
 */
async function barrier<T>(
  reader: TopicReader<T>,
  topic: 'rp.directdebit.due.v1' | 'rp.reconciliation.v1' | 'rp.transaction.state.v1',
  value: T,
) {
  const key = uniqueName('marker');
  await input.send(topic, [{ key, value: value as never }]);
  await reader.waitFor((record) => record.key === key);
  return reader.records.findIndex((record) => record.key === key);
}

/** A scheduler on this test's topics, store and clock, started. */
async function startService(): Promise<SchedulerService> {
  const started = createSchedulerService({
    kafka,
    names,
    codecs,
    producer,
    store,
    windows: { ...defaultWindowSettings, creditsFinalisedAt: '07:30' },
    logger,
    clock,
    options: {
      tickIntervalMs: 0,
      queueDepthIntervalMs: 200,
      releaseBatchSize: 2,
      retry: { delaysMs: [200], maxAttempts: 5 },
      operatorAuth: jwtOperatorAuthenticator({ jwks, issuer, audience: adminAudience }),
    },
  });
  await started.start();
  return started;
}

beforeAll(async () => {
  const endpoints = await infra();
  names = resolveTopicNames(uniqueName('scheduler'));
  kafka = createKafka({ brokers: endpoints.kafkaBrokers, clientId: uniqueName('scheduler-test') });
  await kafka.ensureTopics(
    topicSpecs(names, { partitions: 1 }).filter((spec) =>
      allTopics.some((topic) => names[topic] === spec.topic),
    ),
  );
  const serde = createAvroSerde({ registryUrl: endpoints.schemaRegistryUrl, avro: avroTypeOptions() });
  codecs = await createPlainCodecs(serde, names, allTopics);
  producer = createPipelineProducer(kafka, names, codecs);
  input = createPipelineProducer(kafka, names, codecs);
  databaseName = uniqueName('scheduler').replace(/-/g, '_');
  store = await connectStore({
    uri: endpoints.mongodbUri,
    database: databaseName,
    appName: 'scheduler-test',
  });
  await store.ensureIndexes();
  mongo = new MongoClient(endpoints.mongodbUri);
  await mongo.connect();
  service = await startService();
  due = await readTopic(kafka, names['rp.directdebit.due.v1'], codecs['rp.directdebit.due.v1']!);
  states = await readTopic(kafka, names['rp.transaction.state.v1'], codecs['rp.transaction.state.v1']!);
  items = await readTopic(kafka, names['rp.reconciliation.v1'], codecs['rp.reconciliation.v1']!);
});

afterAll(async () => {
  await service?.stop();
  await Promise.all([due?.stop(), states?.stop(), items?.stop()]);
  await producer?.disconnect();
  await input?.disconnect();
  await mongo?.db(databaseName).dropDatabase();
  await mongo?.close();
  await store?.close();
  await kafka?.close();
});

describe('the debit queue', () => {
  // Queue order: requested collection date, creditor agent, time queued, UETR.
  const aloe = debit({ creditorAgent: '632005', collectionDate: monday });
  const baobab1 = debit({ creditorAgent: '250655', collectionDate: monday });
  const capitec = debit({ creditorAgent: '470010', collectionDate: monday });
  const baobab2 = debit({ creditorAgent: '250655', collectionDate: monday });
  const early = debit({ creditorAgent: '632005', collectionDate: '2026-11-20' });
  const later = debit({ creditorAgent: '250655', collectionDate: tuesday });
  const reversed = debit({ creditorAgent: '250655', collectionDate: monday });
  const unacknowledged = debit({ creditorAgent: '250655', collectionDate: monday });
  // From a clearing house, accepted after aloe for the same creditor agent: it follows aloe.
  const offUs = debit({ creditorAgent: '632005', collectionDate: monday });
  const expectedOrder = [early, baobab1, baobab2, reversed, capitec, aloe, offUs].map(uetrOf);

  test('accepted debits wait for the acknowledgement of their ACCP report, then are queued', async () => {
    // One after another, each recorded before the clock moves on: the time queued decides between equals.
    for (const value of [aloe, baobab1, capitec, baobab2, early, later, unacknowledged]) {
      clock.advance(1_000);
      await accept(value);
      await eventually(async () =>
        expect((await store.debitQueue.entry(uetrOf(value)))?.acceptedAt).toBeDefined(),
      );
    }
    // The acknowledgement can come first: the debit is queued once it arrives.
    clock.advance(1_000);
    await acknowledge(reversed);
    await acknowledge(unacknowledged, 'DEBIT_REJECTION_DELIVERED');
    for (const value of [aloe, baobab1, capitec, baobab2, early, later]) await acknowledge(value);
    await accept(reversed);

    const changes = await Promise.all(
      [aloe, baobab1, capitec, baobab2, early, later, reversed].map(queuedChange),
    );
    for (const change of changes) {
      expect(change.value).toMatchObject({
        fromState: 'DEBIT_ACCEPTANCE_DELIVERED',
        toState: 'DEBIT_QUEUED',
        emittedBy: 'scheduler',
      });
    }
    expect(changes.find((change) => change.key === uetrOf(reversed))?.value.causedBy.messageType).toBe(
      'DirectDebit',
    );
    expect(changes.find((change) => change.key === uetrOf(aloe))?.value.causedBy.messageType).toBe(
      'DeliveryOutcome',
    );

    // The depth gauge follows the queue on the scheduler's own count, with no operator asking.
    await eventually(async () => expect(await queueDepthGauge()).toEqual({ queued: 7, awaiting: 1 }));

    // DEBIT_QUEUED is produced before the debit joins the queue.
    await eventually(async () => {
      const view = await getJson<QueueView>('/admin/queue');
      expect(view.byWindow).toEqual({ [monday]: 6, [tuesday]: 1 });
      // Only an acknowledgement of a rejection report came for it: it is still waiting.
      expect(view.awaitingStatusReport).toBe(1);
    });
    expect(states.records.some((record) => record.key === uetrOf(unacknowledged))).toBe(false);
  });

  test('an accepted debit from a clearing house is queued at once: no status report is acknowledged for it', async () => {
    clock.advance(1_000);
    await acceptFromScheme(offUs);
    const change = await queuedChange(offUs);
    expect(change.value).toMatchObject({
      fromState: 'DEBIT_ACCEPTED',
      toState: 'DEBIT_QUEUED',
      emittedBy: 'scheduler',
      causedBy: { messageType: 'DirectDebit' },
    });
    // DEBIT_QUEUED first, then the entry queued for its window.
    await eventually(async () =>
      expect((await store.debitQueue.entry(uetrOf(offUs)))?.status).toBe('queued'),
    );
    expect(await store.debitQueue.get(uetrOf(offUs))).toMatchObject({
      windowDate: monday,
      origin: 'inbound',
    });
    const view = await getJson<QueueView>('/admin/queue');
    expect(view.byWindow).toEqual({ [monday]: 7, [tuesday]: 1 });
    expect(view.awaitingStatusReport).toBe(1);

    // Delivered again: the tombstone keeps it from being queued twice.
    const ignoredBefore = await ignoredAccepted('queued');
    clock.advance(1_000);
    await acceptFromScheme(offUs);
    await eventually(async () => expect(await ignoredAccepted('queued')).toBe(ignoredBefore + 1));
    const marker = await barrier(states, 'rp.transaction.state.v1', change.value);
    expect(
      states.records
        .slice(0, marker)
        .filter((record) => record.key === uetrOf(offUs) && record.value.eventType === 'DEBIT_QUEUED'),
    ).toHaveLength(1);
    expect((await store.debitQueue.get(uetrOf(offUs)))?.enqueuedAt).toEqual(
      (await store.debitQueue.entry(uetrOf(offUs)))?.acceptedAt,
    );
  });

  test('nothing leaves before the debit window opens', async () => {
    clock.set(sast(`${monday}T07:59:59`));
    await service.tick();
    const status = await getJson<WindowStatus>('/admin/windows');
    expect(status.debitWindow.state).toBe('before-open');
    const marker = await barrier(due, 'rp.directdebit.due.v1', aloe);
    expect(marker).toBe(0);
  });

  test('when the window opens, the ready debits leave in the queue order', async () => {
    clock.set(sast(`${monday}T08:00:00`));
    await service.tick();
    const last = expectedOrder.at(-1);
    await due.waitFor((record) => record.key === last);
    const released = due.records.slice(1).map((record) => record.key);
    expect(released).toEqual(expectedOrder);
    for (const record of due.records.slice(1)) {
      expect(record.headers['rp-state']).toBe('DEBIT_QUEUED');
      expect(record.headers['rp-window-date']).toBe(monday);
      expect(record.value.messageIdentifiers).toEqual(
        [aloe, baobab1, capitec, baobab2, early, reversed, offUs].find(
          (value) => uetrOf(value) === record.key,
        )?.messageIdentifiers,
      );
    }
    expect(await store.debitQueue.depth(monday)).toBe(0);
    expect((await store.debitQueue.get(uetrOf(later)))?.windowDate).toBe(tuesday);
  });

  test('a debit that becomes ready while the window is open goes out promptly', async () => {
    clock.set(sast(`${monday}T10:00:00`));
    const prompt = debit({ creditorAgent: '250655', collectionDate: monday });
    const atOnceBefore = await schedulerMetric('rp_scheduler_debits_released_at_once_total');
    const repeatedBefore = await schedulerMetric('rp_scheduler_debits_queued_as_repeated_total');
    await accept(prompt);
    await acknowledge(prompt);
    const released = await due.waitFor((record) => record.key === uetrOf(prompt));
    expect(released.headers['rp-window-date']).toBe(monday);
    // The window open and its queue drained: the debit never joined the queue. Its tombstone, with both
    // halves of its intake, is written once its record went out.
    await eventually(async () =>
      expect(await store.debitQueue.entry(uetrOf(prompt))).toMatchObject({
        status: 'dispatched',
        statusReportId: acknowledgementOf(prompt).messageIdentification,
        acceptedAt: clock.now(),
        statusReportAcknowledgedAt: clock.now(),
      }),
    );
    // Counted just after the tombstone's write returns: read until the count has caught up with it.
    await eventually(async () =>
      expect(await releasedAtOnceOrRepeated(atOnceBefore, repeatedBefore)).toEqual(1),
    );
  });

  test('debits that become ready together while the window is open leave in one drain', async () => {
    const pair = [
      debit({ creditorAgent: '250655', collectionDate: monday }),
      debit({ creditorAgent: '632005', collectionDate: monday }),
    ];
    await accept(...pair);
    const releases = async () =>
      (await schedulerMetric('rp_scheduler_drain_duration_seconds_count', { kind: 'queue' })) +
      (await schedulerMetric('rp_scheduler_drain_duration_seconds_count', { kind: 'ready' }));
    const drainsBefore = await releases();
    const repeatedBefore = await schedulerMetric('rp_scheduler_debits_queued_as_repeated_total');
    // Both acknowledgements in one send: the debits become ready within the release delay of each other.
    await input.send(
      'rp.delivery.outcome.v1',
      pair.map((value) => {
        const outcome = acknowledgementOf(value);
        return { key: outcome.uetr, value: outcome, headers: { 'rp-state': 'DEBIT_ACCEPTANCE_DELIVERED' } };
      }),
    );
    for (const value of pair) await due.waitFor((record) => record.key === uetrOf(value));
    // The drain is counted once it has marked them dispatched, just after their records went out.
    const drains = await eventually(async () => {
      const count = (await releases()) - drainsBefore;
      expect(count).toBeGreaterThan(0);
      return count;
    });
    // A debit that took the queue's path (see `releasedAtOnceOrRepeated`) is drained on its own.
    const repeated = (await schedulerMetric('rp_scheduler_debits_queued_as_repeated_total')) - repeatedBefore;
    if (repeated === 0) expect(drains).toBe(1);
    else expect(drains).toBeLessThanOrEqual(2);
  });

  test('started again, the scheduler queues what becomes ready until it has seen the window open and drained its queue; then it releases at once', async () => {
    await service.stop();
    service = await startService();
    const queued = debit({ creditorAgent: '632005', collectionDate: monday });
    await accept(queued);
    await acknowledge(queued);
    await due.waitFor((record) => record.key === uetrOf(queued));
    // Counted once it is off the queue, just after its record went out.
    await eventually(async () => expect(await schedulerMetric('rp_scheduler_debits_released_total')).toBe(1));
    expect(await schedulerMetric('rp_scheduler_debits_released_at_once_total')).toBe(0);

    const next = debit({ creditorAgent: '250655', collectionDate: monday });
    await accept(next);
    await acknowledge(next);
    await due.waitFor((record) => record.key === uetrOf(next));
    await eventually(async () => expect(await releasedAtOnceOrRepeated(0, 0)).toBe(1));
    for (const value of [queued, next])
      await eventually(async () =>
        expect((await store.debitQueue.entry(uetrOf(value)))?.status).toBe('dispatched'),
      );
  });

  test('an operator closes the window: what becomes ready waits for the next business day', async () => {
    const closed = await getJson<WindowStatus>('/admin/windows/debit/close', { method: 'POST' });
    expect(closed.debitWindow).toMatchObject({ state: 'closed', override: 'closed' });
    const held = debit({ creditorAgent: '250655', collectionDate: monday });
    await accept(held);
    await acknowledge(held);
    await queuedChange(held);
    await eventually(async () =>
      expect((await store.debitQueue.get(uetrOf(held)))?.windowDate).toBe(tuesday),
    );
  });

  test("the operator's word outlives the scheduler: started again, it keeps the window closed", async () => {
    await service.stop();
    service = await startService();
    const status = await getJson<WindowStatus>('/admin/windows');
    expect(status.debitWindow).toMatchObject({ state: 'closed', override: 'closed' });
    // Kept under the operator the token names.
    expect(await store.windowOverrides.recent(5)).toEqual([
      { businessDate: monday, debit: 'closed', actor: 'ops-alice', at: clock.now() },
    ]);
  });

  test('a read-only operator reads the windows but may not open them: 403, and nothing is kept', async () => {
    const reader = await operatorToken('ops-bob', 'operator.read');
    const read = await service.app.request('/admin/windows', { headers: { authorization: reader } });
    expect(read.status).toBe(200);
    const refused = await service.app.request('/admin/windows/debit/open', {
      method: 'POST',
      headers: { authorization: reader },
    });
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { detail: string }).detail).toContain('operator.replay');
    const anonymous = await service.app.request('/admin/windows');
    expect(anonymous.status).toBe(401);
    expect(await store.windowOverrides.recent(5)).toEqual([
      { businessDate: monday, debit: 'closed', actor: 'ops-alice', at: clock.now() },
    ]);
    expect((await getJson<WindowStatus>('/admin/windows')).debitWindow).toMatchObject({ state: 'closed' });
  });
});

describe('the reconciliation window', () => {
  const at = sast(`${monday}T12:00:00`);
  const received = debit();
  const unacknowledged = debit();
  const negative = debit();
  const silent = debit();
  const delivered = debit();
  const completed = debit();
  const waiting = debit({ collectionDate: tuesday });
  const tooLate = debit();

  test('closing creates one item per unresolved transaction, with its section 7 row', async () => {
    await recordSnapshot(store, received, ['DEBIT_RECEIVED'], at);
    await recordSnapshot(
      store,
      unacknowledged,
      ['DEBIT_RECEIVED', 'DEBIT_ACCEPTED', 'DEBIT_ACCEPTANCE_DELIVERY_PENDING'],
      at,
    );
    const toActioning = toActioningBank;
    await recordSnapshot(store, negative, toActioning, at, [
      {
        memberId: '250655',
        endpoint: 'inbound/direct-debit',
        httpStatus: null,
        latencyMs: 5000,
        outcome: 'retryable',
      },
      {
        memberId: '250655',
        endpoint: 'inbound/direct-debit',
        httpStatus: 503,
        latencyMs: 20,
        outcome: 'retryable',
      },
    ]);
    await recordSnapshot(store, silent, toActioning, at, [
      {
        memberId: '250655',
        endpoint: 'inbound/direct-debit',
        httpStatus: null,
        latencyMs: 5000,
        outcome: 'retryable',
      },
    ]);
    await recordSnapshot(store, delivered, [...toActioning, 'DEBIT_DELIVERED'], at);
    await recordSnapshot(
      store,
      completed,
      [...toActioning, 'DEBIT_DELIVERED', 'DEBIT_RESPONSE_ACCEPTED', 'DEBIT_COMPLETED'],
      at,
    );
    await recordSnapshot(store, waiting, toActioning.slice(0, 5), at);
    await store.debitQueue.enqueue({
      uetr: uetrOf(waiting),
      windowDate: tuesday,
      requestedCollectionDate: tuesday,
      creditorAgentMemberId: '250655',
      origin: 'on-us',
      enqueuedAt: at,
      messageJson: '{}',
    });
    await recordSnapshot(store, tooLate, ['DEBIT_RECEIVED'], sast(`${monday}T18:00:01`));

    clock.set(sast(`${monday}T18:00:00`));
    await service.tick();
    const expected = new Map([
      [uetrOf(received), { row: 4, code: 'STATUS_REPORT_NOT_SENT', stateAtClose: 'DEBIT_RECEIVED' }],
      [
        uetrOf(unacknowledged),
        { row: 5, code: 'STATUS_REPORT_NOT_ACKNOWLEDGED', stateAtClose: 'DEBIT_ACCEPTANCE_DELIVERY_PENDING' },
      ],
      [
        uetrOf(negative),
        { row: 8, code: 'INBOUND_DEBIT_NEGATIVE_ACKNOWLEDGEMENT', stateAtClose: 'DEBIT_DELIVERY_PENDING' },
      ],
      [uetrOf(silent), { row: 7, code: 'INBOUND_DEBIT_NO_RESPONSE', stateAtClose: 'DEBIT_DELIVERY_PENDING' }],
      [uetrOf(delivered), { row: 9, code: 'INBOUND_STATUS_REPORT_MISSING', stateAtClose: 'DEBIT_DELIVERED' }],
    ]);
    for (const [uetr, fields] of expected) {
      const item = await items.waitFor((record) => record.key === uetr);
      expect(item.value).toMatchObject({
        ...fields,
        window: { businessDate: monday, closesAt: '2026-11-23T16:00:00.000Z' },
      });
      const change = await states.waitFor(
        (record) => record.key === uetr && record.value.eventType === 'RECONCILIATION_REQUIRED',
      );
      expect(change.value).toMatchObject({
        fromState: fields.stateAtClose,
        toState: 'RECONCILIATION_REQUIRED',
      });
    }
    const marker = await barrier(items, 'rp.reconciliation.v1', items.records[0]!.value);
    expect(
      items.records
        .slice(0, marker)
        .map((record) => record.key)
        .sort(),
    ).toEqual([...expected.keys()].sort());

    const page = await store.reconciliation.list({ windowId: monday, limit: 100 });
    expect(page.items.map((item) => [item.uetr, item.row]).sort()).toEqual(
      [...expected].map(([uetr, fields]) => [uetr, fields.row]).sort(),
    );
    expect((await getJson<WindowStatus>('/admin/windows')).reconciliationWindow.closed).toBe(true);
  });

  test('closing again raises nothing twice', async () => {
    const before = items.records.length;
    const summary = await service.closeReconciliationWindow(monday);
    expect(summary).toMatchObject({ windowId: monday, raised: 0, alreadyRaised: 5, waiting: 1 });
    const marker = await barrier(items, 'rp.reconciliation.v1', items.records[0]!.value);
    expect(marker).toBe(before);
    expect((await store.reconciliation.list({ windowId: monday, limit: 100 })).items).toHaveLength(5);
  });

  test('the daily report as JSON and CSV', async () => {
    const json = await getJson<{ windowId: string; open: number; items: unknown[] }>(
      `/admin/reconciliation?window=${monday}`,
    );
    expect(json).toMatchObject({ windowId: monday, open: 5 });
    expect(json.items).toHaveLength(5);
    const response = await service.app.request(`/admin/reconciliation/report.csv?window=${monday}`, {
      headers: { authorization: alice },
    });
    expect(response.headers.get('content-type')).toContain('text/csv');
    const lines = (await response.text()).trim().split('\r\n');
    expect(lines[0]).toBe('windowId,uetr,row,code,stateAtClose,status,createdAt,resolvedAt,resolution,text');
    expect(lines).toHaveLength(6);
    expect(lines.find((line) => line.includes(uetrOf(negative)))).toContain(
      ',8,INBOUND_DEBIT_NEGATIVE_ACKNOWLEDGEMENT,',
    );
    const invalid = await service.app.request('/admin/reconciliation?window=yesterday', {
      headers: { authorization: alice },
    });
    expect(invalid.status).toBe(422);
  });
});

describe('the accepted debits held in memory', () => {
  const later = '2026-12-15';
  let offset = 0;

  const registry = createMetrics({ service: 'scheduler-test', defaultMetrics: false });

  function handlers(
    prompt?: Parameters<typeof createQueueingHandlers>[0]['prompt'],
    debitQueue: Parameters<typeof createQueueingHandlers>[0]['debitQueue'] = store.debitQueue,
    holding: Pick<Parameters<typeof createQueueingHandlers>[0], 'holdMs' | 'maxPending' | 'monotonicMs'> = {},
  ) {
    return createQueueingHandlers({
      ...holding,
      debitQueue,
      emitter: createStateEmitter({ service: 'scheduler', producer, now: () => clock.now() }),
      windows: service.windows,
      clock,
      logger,
      metrics: schedulerMetrics(registry),
      onQueued: () => undefined,
      ...(prompt === undefined ? {} : { prompt }),
    });
  }

  async function heldGauge(): Promise<number | undefined> {
    const line = (await registry.render()).body
      .split('\n')
      .find(
        (candidate) =>
          candidate.startsWith('rp_scheduler_queue_depth{') && candidate.includes('held-in-memory'),
      );
    return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
  }

  /** The accepted handler's waits for room so far: how many, and their seconds. */
  async function roomWaits(): Promise<{ count: number; seconds: number }> {
    const lines = (await registry.render()).body.split('\n');
    const value = (name: string) => {
      const line = lines.find((candidate) => candidate.startsWith(`${name}{`));
      return line === undefined ? Number.NaN : Number(line.slice(line.lastIndexOf(' ') + 1));
    };
    return {
      count: value('rp_scheduler_accepted_room_wait_seconds_count'),
      seconds: value('rp_scheduler_accepted_room_wait_seconds_sum'),
    };
  }

  function consumed<T>(topic: string, key: string, value: T, headers: Record<string, string>) {
    offset += 1;
    return {
      topic,
      partition: 0,
      offset: String(offset),
      key,
      value,
      headers,
      timestamp: clock.now().toISOString(),
      attempt: 1,
    };
  }

  /** A release that takes every debit of the later window at once, and the UETRs it was handed. */
  function releasingAtOnce() {
    const submitted: string[] = [];
    const prompt = {
      accepts: (windowDate: string) => windowDate === later,
      submit: async (ready: { item: { uetr: string } }) => {
        submitted.push(ready.item.uetr);
        return true;
      },
      queueing: () => undefined,
    };
    return { submitted, prompt };
  }

  const acceptedRecord = (value: DirectDebit) =>
    consumed(names['rp.directdebit.accepted.v1'], uetrOf(value), value, { 'rp-state': 'DEBIT_ACCEPTED' });

  const acknowledgementRecord = (value: DirectDebit) =>
    consumed(names['rp.delivery.outcome.v1'], uetrOf(value), acknowledgementOf(value), {
      'rp-state': 'DEBIT_ACCEPTANCE_DELIVERED',
    });

  test('an acknowledgement that finds its debit in memory queues it in one write, halves and all', async () => {
    const queueing = handlers();
    const value = debit({ creditorAgent: '250655', collectionDate: later });
    await queueing.accepted(acceptedRecord(value));
    expect(queueing.pending).toBe(1);
    expect(await store.debitQueue.entry(uetrOf(value))).toBeNull();

    await queueing.outcome(acknowledgementRecord(value));
    expect(queueing.pending).toBe(0);
    expect(await store.debitQueue.entry(uetrOf(value))).toMatchObject({
      status: 'queued',
      windowDate: later,
      statusReportId: acknowledgementOf(value).messageIdentification,
    });
    const queued = await store.debitQueue.get(uetrOf(value));
    expect(queued?.enqueuedAt).toEqual((await store.debitQueue.entry(uetrOf(value)))?.acceptedAt);
    expect((await queuedChange(value)).value).toMatchObject({
      fromState: 'DEBIT_ACCEPTANCE_DELIVERED',
      causedBy: { messageType: 'DeliveryOutcome' },
    });
    // Flushed after the join: nothing of it is written again.
    await queueing.flush();
    expect((await store.debitQueue.entry(uetrOf(value)))?.status).toBe('queued');
  });

  test('an accepted record whose acknowledgement went by first completes the pair in MongoDB at once, not held for the flush', async () => {
    const queueing = handlers();
    const value = debit({ collectionDate: later });
    await queueing.outcome(acknowledgementRecord(value));
    expect(await store.debitQueue.entry(uetrOf(value))).toMatchObject({ status: 'awaiting' });

    await queueing.accepted(acceptedRecord(value));
    expect(queueing.pending).toBe(0);
    expect(await store.debitQueue.entry(uetrOf(value))).toMatchObject({
      status: 'queued',
      windowDate: later,
      statusReportId: acknowledgementOf(value).messageIdentification,
    });
    expect((await queuedChange(value)).value.causedBy.messageType).toBe('DirectDebit');
  });

  test('an accepted record that arrives while its acknowledgement is written is written with it, not held for the flush', async () => {
    const queueing = handlers();
    const value = debit({ collectionDate: later });
    // The acknowledgement misses the accepted half in memory and writes its own; the accepted record
    // comes while that write is under way and waits in memory until the acknowledgement sees it there.
    await Promise.all([
      queueing.outcome(acknowledgementRecord(value)),
      queueing.accepted(acceptedRecord(value)),
    ]);
    expect(queueing.pending).toBe(0);
    expect(await store.debitQueue.entry(uetrOf(value))).toMatchObject({
      status: 'queued',
      windowDate: later,
    });
  });

  test('records handled again after a crash find their debit queued: it keeps its place and is not counted again', async () => {
    const queuedCount = async () =>
      metricSample((await registry.render()).body, 'rp_scheduler_debits_queued_total') ?? 0;
    const value = debit({ collectionDate: later });
    const before = await queuedCount();
    const first = handlers();
    await first.accepted(acceptedRecord(value));
    await first.outcome(acknowledgementRecord(value));
    const queued = await store.debitQueue.get(uetrOf(value));
    expect(queued?.windowDate).toBe(later);
    expect((await queuedCount()) - before).toBe(1);

    // The instance stopped before its offsets were committed: the next one reads both records again.
    const next = handlers();
    await next.accepted(acceptedRecord(value));
    expect(next.pending).toBe(1);
    await next.outcome(acknowledgementRecord(value));
    expect(next.pending).toBe(0);
    expect(await store.debitQueue.get(uetrOf(value))).toEqual(queued);
    expect((await queuedCount()) - before).toBe(1);
  });

  test('what waits is written as the accepted half before the offsets are committed; a withdrawn debit is dropped', async () => {
    const queueing = handlers();
    const [waiting, withdrawn] = [debit({ collectionDate: later }), debit({ collectionDate: later })];
    await queueing.accepted(acceptedRecord(waiting));
    await queueing.accepted(acceptedRecord(withdrawn));
    expect(await heldGauge()).toBe(2);
    queueing.forget([uetrOf(withdrawn)]);
    await queueing.flush();
    expect(queueing.pending).toBe(0);
    expect(await heldGauge()).toBe(0);
    expect(await store.debitQueue.entry(uetrOf(waiting))).toMatchObject({ status: 'awaiting' });
    expect(await store.debitQueue.entry(uetrOf(withdrawn))).toBeNull();

    // Its acknowledgement, later, completes the written half as before.
    await queueing.outcome(acknowledgementRecord(waiting));
    expect(await store.debitQueue.entry(uetrOf(waiting))).toMatchObject({
      status: 'queued',
      windowDate: later,
    });
    expect((await queuedChange(waiting)).value.causedBy.messageType).toBe('DeliveryOutcome');
  });

  test("a commit writes the halves held for the hold and leaves the younger ones, whose oldest record the accepted consumer's commit stops at", async () => {
    let now = 0;
    const queueing = handlers(undefined, store.debitQueue, { holdMs: 3_000, monotonicMs: () => now });
    const [older, younger, youngest] = [
      debit({ collectionDate: later }),
      debit({ collectionDate: later }),
      debit({ collectionDate: later }),
    ];
    const olderRecord = acceptedRecord(older);
    await queueing.accepted(olderRecord);
    now = 2_000;
    const youngerRecord = acceptedRecord(younger);
    await queueing.accepted(youngerRecord);
    await queueing.accepted(acceptedRecord(youngest));
    const { topic, partition } = olderRecord;
    expect(queueing.heldFrom(topic, partition)).toBe(BigInt(olderRecord.offset));
    expect(queueing.heldFrom(topic, partition + 1)).toBeUndefined();

    now = 3_500;
    await queueing.flush({ all: false });
    expect(await store.debitQueue.entry(uetrOf(older))).toMatchObject({ status: 'awaiting' });
    expect(await store.debitQueue.entry(uetrOf(younger))).toBeNull();
    expect(queueing.pending).toBe(2);
    expect(queueing.heldFrom(topic, partition)).toBe(BigInt(youngerRecord.offset));

    // The younger one's acknowledgement meets it in memory: one write, nothing of the half before it.
    await queueing.outcome(acknowledgementRecord(younger));
    expect(await store.debitQueue.entry(uetrOf(younger))).toMatchObject({ status: 'queued' });
    // A stop writes everything.
    await queueing.flush();
    expect(await store.debitQueue.entry(uetrOf(youngest))).toMatchObject({ status: 'awaiting' });
    expect(queueing.pending).toBe(0);
    expect(queueing.heldFrom(topic, partition)).toBeUndefined();
  });

  test("a record read from a retry tier is written at once, not held: its offset is not its partition's to hold back", async () => {
    const queueing = handlers();
    const value = debit({ collectionDate: later });
    await queueing.accepted({ ...acceptedRecord(value), fromRetryTier: true });
    expect(queueing.pending).toBe(0);
    expect(await store.debitQueue.entry(uetrOf(value))).toMatchObject({ status: 'awaiting' });
  });

  test('past the most it holds, the accepted handler waits for room: an acknowledgement makes it, else the oldest are written when held for the hold', async () => {
    const queueing = handlers(undefined, store.debitQueue, { holdMs: 600_000, maxPending: 2 });
    const waitsBefore = await roomWaits();
    const [first, second, third] = [
      debit({ collectionDate: later }),
      debit({ collectionDate: later }),
      debit({ collectionDate: later }),
    ];
    await queueing.accepted(acceptedRecord(first));
    await queueing.accepted(acceptedRecord(second));
    // Two halves held, within the limit: no wait.
    expect((await roomWaits()).count).toBe(waitsBefore.count);
    let roomMade = false;
    const waiting = queueing.accepted(acceptedRecord(third)).then(() => {
      roomMade = true;
    });
    // A read of the store goes by; the handler is still waiting, and nothing was written.
    expect(await store.debitQueue.entry(uetrOf(first))).toBeNull();
    expect(roomMade).toBe(false);
    expect(queueing.pending).toBe(3);

    await queueing.outcome(acknowledgementRecord(first));
    await waiting;
    expect((await roomWaits()).count).toBe(waitsBefore.count + 1);
    expect(await store.debitQueue.entry(uetrOf(first))).toMatchObject({ status: 'queued' });
    for (const value of [second, third]) expect(await store.debitQueue.entry(uetrOf(value))).toBeNull();

    // No acknowledgement comes: the halves held for the hold are written, making room.
    let now = 0;
    const aging = handlers(undefined, store.debitQueue, {
      holdMs: 200,
      maxPending: 1,
      monotonicMs: () => now,
    });
    const [unanswered, next] = [debit({ collectionDate: later }), debit({ collectionDate: later })];
    await aging.accepted(acceptedRecord(unanswered));
    const agingBefore = await roomWaits();
    now = 150;
    const aged = aging.accepted(acceptedRecord(next));
    expect(await store.debitQueue.entry(uetrOf(unanswered))).toBeNull();
    now = 250;
    await aged;
    // The wait, by the handlers' own clock: from 150, when the second half came, to 250.
    const agingAfter = await roomWaits();
    expect(agingAfter.count).toBe(agingBefore.count + 1);
    expect(agingAfter.seconds - agingBefore.seconds).toBeCloseTo(0.1, 6);
    expect(aging.pending).toBe(1);
    expect(await store.debitQueue.entry(uetrOf(unanswered))).toMatchObject({ status: 'awaiting' });
    expect(await store.debitQueue.entry(uetrOf(next))).toBeNull();
    await aging.flush();
  });

  test('what waits is written in bulks; each debit is made ready once, its acknowledgement in before, during or after its bulk', async () => {
    const { submitted, prompt } = releasingAtOnce();
    const values = Array.from({ length: 60 }, () => debit({ collectionDate: later }));
    // Acknowledged in MongoDB by an earlier instance: the last of each bulk of 25 (the insert refuses it, and
    // it is written on its own, completing its pair).
    const earlier = new Set([values[24], values[49]].map((value) => uetrOf(value as DirectDebit)));
    const bulks: number[] = [];
    const during: Promise<void>[] = [];
    // The real store, its bulk writes watched: the acknowledgements of the first bulk's debits come while
    // it is being written.
    const watched = {
      recordAccepted: store.debitQueue.recordAccepted.bind(store.debitQueue),
      recordAcknowledged: store.debitQueue.recordAcknowledged.bind(store.debitQueue),
      enqueue: store.debitQueue.enqueue.bind(store.debitQueue),
      recordAcceptedHalves: (halves: Parameters<Store['debitQueue']['recordAcceptedHalves']>[0]) => {
        bulks.push(halves.length);
        const write = store.debitQueue.recordAcceptedHalves(halves);
        if (bulks.length === 1) {
          for (const { uetr } of halves) {
            const value = values.find((candidate) => uetrOf(candidate) === uetr) as DirectDebit;
            if (!earlier.has(uetr)) during.push(queueing.outcome(acknowledgementRecord(value)));
          }
        }
        return write;
      },
    };
    const queueing = handlers(prompt, watched);
    for (const value of values) await queueing.accepted(acceptedRecord(value));
    for (const uetr of earlier) await store.debitQueue.recordAcknowledged(uetr, `RPV-${uetr}`, clock.now());

    await queueing.flush();
    await Promise.all(during);
    // The rest of the acknowledgements, after the flush.
    const first = new Set(values.slice(0, 25).map(uetrOf));
    for (const value of values) {
      if (!first.has(uetrOf(value)) && !earlier.has(uetrOf(value))) {
        await queueing.outcome(acknowledgementRecord(value));
      }
    }
    await queueing.flushReleases();

    expect(bulks).toEqual([25, 25, 10]);
    expect(queueing.pending).toBe(0);
    expect([...submitted].sort()).toEqual(values.map(uetrOf).sort());
  });

  test('a half whose acknowledgement is being written as its bulk starts is written alone, and its debit made ready once', async () => {
    const { submitted, prompt } = releasingAtOnce();
    const values = Array.from({ length: 10 }, () => debit({ collectionDate: later }));
    const [crossing] = values as [DirectDebit];
    const bulks: number[] = [];
    let flushed: Promise<void> | undefined;
    // The real store, watched: the accepted record of `crossing` comes, and the flush starts, while its
    // acknowledgement is being written.
    const watched = {
      recordAccepted: store.debitQueue.recordAccepted.bind(store.debitQueue),
      enqueue: store.debitQueue.enqueue.bind(store.debitQueue),
      recordAcceptedHalves: (halves: Parameters<Store['debitQueue']['recordAcceptedHalves']>[0]) => {
        bulks.push(halves.length);
        return store.debitQueue.recordAcceptedHalves(halves);
      },
      recordAcknowledged: async (...args: Parameters<Store['debitQueue']['recordAcknowledged']>) => {
        const write = store.debitQueue.recordAcknowledged(...args);
        await queueing.accepted(acceptedRecord(crossing));
        flushed = queueing.flush();
        return write;
      },
    };
    const queueing = handlers(prompt, watched);
    for (const value of values.slice(1)) await queueing.accepted(acceptedRecord(value));
    await queueing.outcome(acknowledgementRecord(crossing));
    await flushed;
    await queueing.flushReleases();

    expect([...bulks].sort((a, b) => a - b)).toEqual([1, 9]);
    expect(submitted).toEqual([uetrOf(crossing)]);
    expect(queueing.pending).toBe(0);
    for (const value of values.slice(1)) {
      expect(await store.debitQueue.entry(uetrOf(value))).toMatchObject({ status: 'awaiting' });
    }
  });

  test('a debit made ready in an open window from a record that may have been handled before is queued, not released at once, and counted', async () => {
    // A release that would take every debit of the window at once: only the first sight of records may use it.
    const submitted: string[] = [];
    const queueing = handlers({
      accepts: (windowDate) => windowDate === later,
      submit: async (ready) => {
        submitted.push(ready.item.uetr);
        return true;
      },
      queueing: () => undefined,
    });
    const repeatedCount = async () =>
      metricSample((await registry.render()).body, 'rp_scheduler_debits_queued_as_repeated_total') ?? 0;
    const before = await repeatedCount();

    const [first, again] = [debit({ collectionDate: later }), debit({ collectionDate: later })];
    for (const value of [first, again]) await queueing.accepted(acceptedRecord(value));
    await queueing.outcome(acknowledgementRecord(first));
    // The acknowledgement of `again` is a retry: the group may have handled it, and released the debit.
    await queueing.outcome({ ...acknowledgementRecord(again), attempt: 2 });
    await queueing.flush();

    expect(submitted).toEqual([uetrOf(first)]);
    // Handed to the release, which writes its tombstone: the handlers wrote nothing of it.
    expect(await store.debitQueue.entry(uetrOf(first))).toBeNull();
    expect(await store.debitQueue.entry(uetrOf(again))).toMatchObject({
      status: 'queued',
      windowDate: later,
    });
    expect((await repeatedCount()) - before).toBe(1);
  });
});

describe('the prompt release', () => {
  test("a batch's records are produced while the batch before writes its tombstones, each batch's records before its own", async () => {
    const events: string[] = [];
    const { promise: secondProduced, resolve: produced } = Promise.withResolvers<void>();
    let sends = 0;
    // The real producer and store, watched: the first batch's tombstones wait until the second batch's
    // records are out, which a release that does one batch after the other never gets to.
    const watchedProducer: PipelineProducer = {
      send: async (topic, records) => {
        sends += 1;
        const send = sends;
        events.push(`produce ${send}`);
        await producer.send(topic, records);
        if (send === 2) produced();
      },
      flush: () => producer.flush(),
      disconnect: async () => undefined,
    };
    let writes = 0;
    const watchedQueue: Pick<typeof store.debitQueue, 'recordReleased'> = {
      recordReleased: async (debits, at) => {
        writes += 1;
        const write = writes;
        events.push(`write ${write}`);
        if (write === 1) await secondProduced;
        await store.debitQueue.recordReleased(debits, at);
        events.push(`written ${write}`);
      },
    };
    const now = sast(`${monday}T10:00:00`);
    const release = new PromptRelease({
      debitQueue: watchedQueue,
      producer: watchedProducer,
      // The window of the debits open, whatever the tests before did to Monday's.
      windows: { isDebitWindowOpen: async (date) => date === monday },
      clock: new ManualClock(now),
      metrics: schedulerMetrics(createMetrics({ service: 'scheduler-test', defaultMetrics: false })),
      requestRelease: () => undefined,
      batchSize: 2,
    });
    release.opened(monday);
    const values = Array.from({ length: 5 }, () => debit({ collectionDate: monday }));
    const outcomes = values.map((value) =>
      release.submit({
        item: {
          uetr: uetrOf(value),
          windowDate: monday,
          requestedCollectionDate: monday,
          creditorAgentMemberId: '250655',
          origin: 'on-us',
          enqueuedAt: now,
          messageJson: JSON.stringify(value),
        },
        debit: value,
        intake: { acceptedAt: now },
        unwritten: true,
      }),
    );
    const timedOut = new Promise<never>((_, reject) => {
      setTimeout(() => reject(new Error(`the release did not end: ${events.join(', ')}`)), 20_000).unref();
    });
    expect(await Promise.race([release.release(), timedOut])).toBe(5);
    expect(await Promise.all(outcomes)).toEqual([true, true, true, true, true]);
    // The second batch went out while the first's tombstones were being written.
    expect(events.indexOf('produce 2')).toBeLessThan(events.indexOf('written 1'));
    for (const batch of [1, 2, 3]) {
      expect(events.indexOf(`produce ${batch}`)).toBeLessThan(events.indexOf(`write ${batch}`));
    }
    expect(events.indexOf('produce 3')).toBeGreaterThan(events.indexOf('written 1'));
    for (const value of values) {
      expect(await store.debitQueue.entry(uetrOf(value))).toMatchObject({ status: 'dispatched' });
    }
  });
});
