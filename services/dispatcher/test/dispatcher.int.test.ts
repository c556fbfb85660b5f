import { createHmac, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import {
  avroTypeOptions,
  type CreditTransfer,
  type DeliveryOutcome,
  type DirectDebit,
  type PaymentStatusReport,
  parseJsonExact,
  type TopicName,
  type TransactionStateChanged,
  validateCreditTransfer,
} from '@rp/contracts';
import { createAvroSerde, createKafka, type KafkaClient } from '@rp/kafka';
import {
  createPipelineProducer,
  createPlainCodecs,
  type Participants,
  type PipelineCodecs,
  type PipelineProducer,
  parseParticipants,
  resolveTopicNames,
  type TopicNames,
  topicSpecs,
} from '@rp/pipeline';
import { type Clock, createLogger, createMetrics, type Metrics } from '@rp/runtime';
import { defaultWindowSettings } from '@rp/scheduler/windows';
import { infra, uniqueName } from '@rp/testkit';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  consumedTopics,
  createDispatcherService,
  type DispatcherService,
  producedTopics,
} from '../src/service.ts';
import { parseSigningSecrets } from '../src/signing.ts';
import { startTestBanks, type TestBanks } from './bank.ts';
import { readTopic, type TopicReader } from './topic-reader.ts';

const logger = createLogger({
  service: 'dispatcher-test',
  level: (process.env.TEST_LOG_LEVEL as 'warn' | undefined) ?? 'warn',
});
const allTopics: TopicName[] = [...consumedTopics, ...producedTopics];
const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';

/** Real time shifted to a business day (Monday 2026-11-23, 09:00 SAST at the start): the windows follow it. */
const clock: Clock & { offsetMs: number } = {
  offsetMs: Date.parse('2026-11-23T09:00:00+02:00') - Date.now(),
  now() {
    return new Date(Date.now() + this.offsetMs);
  },
};

const example = JSON.parse(
  readFileSync(new URL('../../../avro/examples/DirectDebit.za-eft-on-us.json', import.meta.url), 'utf8'),
  (name, value) => (name === 'value' && typeof value === 'number' ? String(value) : value),
) as DirectDebit;

const creditExample = validateCreditTransfer(
  parseJsonExact(
    readFileSync(new URL('../../../avro/examples/CreditTransfer.json', import.meta.url), 'utf8'),
  ),
);

let names: TopicNames;
let codecs: Partial<PipelineCodecs>;
let kafka: KafkaClient;
let producer: PipelineProducer;
let input: PipelineProducer;
let banks: TestBanks;
let participants: Participants;
let metrics: Metrics;
let service: DispatcherService;
let states: TopicReader<TransactionStateChanged>;
let outcomes: TopicReader<DeliveryOutcome>;

function debitFor(actioningBank: string): DirectDebit {
  const value = structuredClone(example);
  const uetr = randomUUID();
  value.messageIdentifiers = {
    messageIdentification: `D${uetr.replaceAll('-', '').slice(0, 24)}`,
    creationDateTime: clock.now().toISOString(),
  };
  value.transactionIdentifiers = { ...value.transactionIdentifiers, uetr };
  value.debtorAgent = { ...value.debtorAgent, memberId: actioningBank };
  return value;
}

/** A validated credit transfer authorisation for the creditor's bank `creditorBank`. */
function creditFor(creditorBank: string): CreditTransfer {
  if (!creditExample.ok) throw new Error('the CreditTransfer example is not valid');
  const value = structuredClone(creditExample.value);
  const uetr = randomUUID();
  value.messageIdentifiers = {
    messageIdentification: `C${uetr.replaceAll('-', '').slice(0, 24)}`,
    creationDateTime: clock.now().toISOString(),
  };
  value.transactionIdentifiers = { ...value.transactionIdentifiers, uetr };
  value.creditorAgent = { ...value.creditorAgent, memberId: creditorBank };
  return value;
}

/** The engine's ACCP report on a debit, addressed to the initiating bank. */
async function reportFor(initiatingBank: string, createdAt = clock.now()): Promise<PaymentStatusReport> {
  const debit = debitFor(initiatingBank);
  const uetr = debit.transactionIdentifiers.uetr;
  return {
    messageIdentifiers: {
      messageIdentification: `RPV${uetr.replaceAll('-', '').toUpperCase()}`,
      creationDateTime: createdAt.toISOString(),
    },
    originalMessageIdentifiers: debit.messageIdentifiers,
    transactionIdentifiers: debit.transactionIdentifiers,
    instructedAgent: { memberId: initiatingBank },
    paymentScheme: { schema: 'ZA_EFT' },
    status: { status: 'ACCP' },
    schema: 'PaymentStatusReport',
  };
}

function sendReports(...reports: PaymentStatusReport[]): Promise<void> {
  return input.send(
    'rp.statusreport.outbound.v1',
    reports.map((value) => ({
      key: value.transactionIdentifiers.uetr,
      value,
      headers: { 'rp-state': 'DEBIT_ACCEPTED' },
    })),
  );
}

function sendDue(...debits: DirectDebit[]): Promise<void> {
  return input.send(
    'rp.directdebit.due.v1',
    debits.map((value) => ({
      key: value.transactionIdentifiers.uetr,
      value,
      headers: { 'rp-state': 'DEBIT_QUEUED', 'rp-released-at': clock.now().toISOString() },
    })),
  );
}

function sendCredits(...credits: CreditTransfer[]): Promise<void> {
  return input.send(
    'rp.credittransfer.accepted.v1',
    credits.map((value) => ({
      key: value.transactionIdentifiers.uetr,
      value,
      headers: { 'rp-state': 'CREDIT_AUTH_ACCEPTED' },
    })),
  );
}

const uetrOf = (value: { transactionIdentifiers: { uetr: string } }) => value.transactionIdentifiers.uetr;

function outcome(uetr: string, match: (value: DeliveryOutcome) => boolean = () => true) {
  return outcomes.waitFor((record) => record.key === uetr && match(record.value));
}

function stateChanges(uetr: string): TransactionStateChanged[] {
  return states.records.filter((record) => record.key === uetr).map((record) => record.value);
}

async function counter(name: string, labels: Record<string, string>): Promise<number> {
  const metric = (await metrics.registry.getMetricsAsJSON()).find((entry) => entry.name === name);
  const value = metric?.values.find((entry) =>
    Object.entries(labels).every(([label, expected]) => entry.labels[label] === expected),
  );
  return Number(value?.value ?? 0);
}

beforeAll(async () => {
  const endpoints = await infra();
  banks = await startTestBanks({
    ok: () => ({ status: 202 }),
    flaky: (call) => ({ status: call <= 2 ? 500 : 202 }),
    limited: (call) => (call === 1 ? { status: 429, headers: { 'retry-after': '2' } } : { status: 202 }),
    refusing: () => ({ status: 400 }),
    stuck: () => 'hang',
    fast: () => ({ status: 202 }),
    closing: () => ({ status: 503, headers: { 'retry-after': '15' } }),
    recovering: (call) => ({ status: call === 1 ? 503 : 202 }),
  });
  participants = parseParticipants(
    JSON.stringify(
      ['ok', 'flaky', 'limited', 'refusing', 'stuck', 'fast', 'closing', 'recovering'].map((bank) => ({
        memberId: bank,
        name: `${bank} bank (test)`,
        baseUrl: `${banks.url}/${bank}`,
      })),
    ),
  );
  names = resolveTopicNames(uniqueName('dispatcher'));
  kafka = createKafka({ brokers: endpoints.kafkaBrokers, clientId: uniqueName('dispatcher-test') });
  await kafka.ensureTopics(
    topicSpecs(names, { partitions: 1 }).filter((spec) =>
      allTopics.some((topic) => names[topic] === spec.topic),
    ),
  );
  const serde = createAvroSerde({ registryUrl: endpoints.schemaRegistryUrl, avro: avroTypeOptions() });
  codecs = await createPlainCodecs(serde, names, allTopics);
  producer = createPipelineProducer(kafka, names, codecs);
  input = createPipelineProducer(kafka, names, codecs);
  metrics = createMetrics({ service: 'dispatcher', defaultMetrics: false });
  service = createDispatcherService({
    kafka,
    names,
    codecs,
    producer,
    participants,
    windows: defaultWindowSettings,
    signingKeys: parseSigningSecrets(JSON.stringify({ ok: secret, recovering: secret })),
    logger,
    metrics,
    clock,
    options: {
      requestTimeoutMs: 1_500,
      bankCooldownMs: 2_000,
      backoffBaseMs: 200,
      backoffMaxMs: 1_000,
      retryTierDelaysMs: [100, 300],
      keyConcurrency: 16,
    },
  });
  await service.start();
  states = await readTopic(kafka, names['rp.transaction.state.v1'], codecs['rp.transaction.state.v1']!);
  outcomes = await readTopic(kafka, names['rp.delivery.outcome.v1'], codecs['rp.delivery.outcome.v1']!);
});

afterAll(async () => {
  await banks?.close();
  await service?.stop();
  await Promise.all([states?.stop(), outcomes?.stop()]);
  await producer?.disconnect();
  await input?.disconnect();
  await kafka?.close();
});

describe('status reports to the initiating bank', () => {
  test('202 at once: one signed call, PENDING then DELIVERED, one final outcome', async () => {
    const report = await reportFor('ok');
    const uetr = uetrOf(report);
    const id = report.messageIdentifiers.messageIdentification;
    await sendReports(report);
    const acknowledged = await outcome(uetr);
    expect(acknowledged.value).toMatchObject({
      messageIdentification: id,
      targetBank: 'ok',
      operation: 'outboundDirectDebitResponse',
      attempt: 1,
      httpStatus: 202,
      result: 'ACKNOWLEDGED',
      final: true,
    });
    expect(acknowledged.value.latencyMs).toBeGreaterThanOrEqual(0);
    expect(acknowledged.headers['rp-state']).toBe('DEBIT_ACCEPTANCE_DELIVERED');

    const [call, ...more] = banks.callsOf('ok', id);
    expect(more).toHaveLength(0);
    expect(call?.path).toBe('/outbound/direct-debit-response');
    expect(call?.headers['content-type']).toBe('application/json');
    expect(JSON.parse(call?.body ?? '{}').messageIdentifiers.messageIdentification).toBe(id);
    const timestamp = call?.headers['webhook-timestamp'] ?? '';
    expect(Number(timestamp)).toBeCloseTo(Date.now() / 1000, -2);
    const expected = createHmac('sha256', Buffer.from(secret.slice('whsec_'.length), 'base64'))
      .update(`${id}.${timestamp}.${call?.body}`)
      .digest('base64');
    expect(call?.headers['webhook-signature']).toBe(`v1,${expected}`);
    expect(call?.headers.traceparent).toMatch(new RegExp(`^00-${uetr.replaceAll('-', '')}-[0-9a-f]{16}-01$`));

    const delivered = await states.waitFor(
      (record) => record.key === uetr && record.value.eventType === 'DEBIT_STATUS_DELIVERED',
    );
    expect(stateChanges(uetr).map((change) => [change.eventType, change.fromState, change.toState])).toEqual([
      ['DEBIT_STATUS_DELIVERY_PENDING', 'DEBIT_ACCEPTED', 'DEBIT_ACCEPTANCE_DELIVERY_PENDING'],
      ['DEBIT_STATUS_DELIVERED', 'DEBIT_ACCEPTANCE_DELIVERY_PENDING', 'DEBIT_ACCEPTANCE_DELIVERED'],
    ]);
    expect(delivered.value.statusReport?.messageIdentifiers.messageIdentification).toBe(id);
    // The report does not carry the debit, and the dispatcher does not read it: the tracker fills it in.
    expect(delivered.value.transaction).toBeUndefined();
  });

  test('500 twice then 202: three calls with the same id and body, an outcome for each', async () => {
    const report = await reportFor('flaky');
    const uetr = uetrOf(report);
    const id = report.messageIdentifiers.messageIdentification;
    await sendReports(report);
    await outcome(uetr, (value) => value.result === 'ACKNOWLEDGED');
    const calls = banks.callsOf('flaky', id);
    expect(calls).toHaveLength(3);
    expect(new Set(calls.map((call) => call.body)).size).toBe(1);
    expect(calls.map((call) => call.headers['webhook-id'])).toEqual([id, id, id]);
    expect(calls.every((call) => call.headers['webhook-signature'] === undefined)).toBe(true);
    const attempts = outcomes.records.filter((record) => record.key === uetr).map((record) => record.value);
    expect(attempts.map((value) => [value.attempt, value.httpStatus, value.result, value.final])).toEqual([
      [1, 500, 'RETRYABLE_FAILURE', false],
      [2, 500, 'RETRYABLE_FAILURE', false],
      [3, 202, 'ACKNOWLEDGED', true],
    ]);
    for (const failed of attempts.slice(0, 2)) {
      expect(Date.parse(failed.nextAttemptAt ?? '')).toBeGreaterThanOrEqual(Date.parse(failed.attemptedAt));
    }
    await states.waitFor(
      (record) => record.key === uetr && record.value.eventType === 'DEBIT_STATUS_DELIVERED',
    );
    expect(stateChanges(uetr).map((change) => change.eventType)).toEqual([
      'DEBIT_STATUS_DELIVERY_PENDING',
      'DEBIT_STATUS_DELIVERED',
    ]);
  });

  test('429 with Retry-After: the next call waits at least that long', async () => {
    const report = await reportFor('limited');
    const uetr = uetrOf(report);
    await sendReports(report);
    await outcome(uetr, (value) => value.result === 'ACKNOWLEDGED');
    const [first, second] = banks.callsOf('limited', report.messageIdentifiers.messageIdentification);
    expect((second?.at ?? 0) - (first?.at ?? 0)).toBeGreaterThanOrEqual(2_000);
    const limited = outcomes.records.find((record) => record.key === uetr)?.value;
    expect(limited).toMatchObject({ attempt: 1, httpStatus: 429, result: 'RETRYABLE_FAILURE', final: false });
    expect(
      Date.parse(limited?.nextAttemptAt ?? '') - Date.parse(limited?.attemptedAt ?? ''),
    ).toBeGreaterThanOrEqual(2_000);
  });

  test('400: a final failure after one call', async () => {
    const report = await reportFor('refusing');
    const uetr = uetrOf(report);
    await sendReports(report);
    const refused = await outcome(uetr);
    expect(refused.value).toMatchObject({
      attempt: 1,
      httpStatus: 400,
      result: 'FINAL_FAILURE',
      final: true,
    });
    expect(refused.headers['rp-state']).toBe('DEBIT_STATUS_DELIVERY_FAILED');
    const failure = await states.waitFor(
      (record) => record.key === uetr && record.value.eventType === 'DEBIT_STATUS_DELIVERY_FAILURE',
    );
    expect(failure.value).toMatchObject({
      fromState: 'DEBIT_ACCEPTANCE_DELIVERY_PENDING',
      toState: 'DEBIT_STATUS_DELIVERY_FAILED',
    });
    // A later report to the same bank is delivered after it: the refused one was not tried again.
    const later = await reportFor('refusing');
    await sendReports(later);
    await outcome(uetrOf(later));
    expect(banks.callsOf('refusing', report.messageIdentifiers.messageIdentification)).toHaveLength(1);
  });
});

describe('inbound debits to the actioning bank', () => {
  test('a bank that never answers does not hold up the deliveries to another bank', async () => {
    const stuck = [debitFor('stuck'), debitFor('stuck'), debitFor('stuck')];
    const fast = [debitFor('fast'), debitFor('fast'), debitFor('fast')];
    await sendDue(stuck[0]!, fast[0]!, stuck[1]!, fast[1]!, stuck[2]!, fast[2]!);
    const acknowledged = await Promise.all(fast.map((value) => outcome(uetrOf(value))));
    for (const record of acknowledged) {
      expect(record.value).toMatchObject({ operation: 'inboundDirectDebit', result: 'ACKNOWLEDGED' });
      expect(record.headers['rp-state']).toBe('DEBIT_DELIVERED');
    }
    // Delivered while the stuck bank's calls were still open: nothing has come back from it.
    expect(banks.callsOf('stuck').length).toBeGreaterThan(0);
    expect(outcomes.records.some((record) => stuck.some((value) => uetrOf(value) === record.key))).toBe(
      false,
    );
    expect(banks.callsOf('fast')[0]?.path).toBe('/inbound/direct-debit');

    const timedOut = await outcome(uetrOf(stuck[0]!));
    expect(timedOut.value).toMatchObject({
      targetBank: 'stuck',
      result: 'RETRYABLE_FAILURE',
      final: false,
      error: { code: 'TIMEOUT' },
    });
    expect(timedOut.value.httpStatus).toBeUndefined();
    expect(timedOut.headers['rp-state']).toBe('DEBIT_DELIVERY_PENDING');

    // The stuck bank is now left alone for a while (its messages wait on the retry tiers): more
    // debits to the other bank keep flowing.
    const more = [debitFor('fast'), debitFor('fast')];
    await sendDue(...more);
    for (const value of more) await outcome(uetrOf(value), (record) => record.result === 'ACKNOWLEDGED');
    for (const value of stuck) {
      expect(stateChanges(uetrOf(value)).map((change) => change.eventType)).not.toContain('DEBIT_DELIVERED');
    }
    expect(stateChanges(uetrOf(stuck[0]!))[0]).toMatchObject({
      eventType: 'DEBIT_DELIVERY_PENDING',
      fromState: 'DEBIT_QUEUED',
      toState: 'DEBIT_DELIVERY_PENDING',
    });
    for (const value of [...fast, ...more]) {
      const delivered = await states.waitFor(
        (record) => record.key === uetrOf(value) && record.value.eventType === 'DEBIT_DELIVERED',
      );
      expect(delivered.value.toState).toBe('DEBIT_DELIVERED');
    }
  });
});

describe('the reconciliation window ends the retries', () => {
  test('a message of a closed window is not tried again', async () => {
    const old = await reportFor('ok', new Date(Date.parse('2026-11-20T10:00:00+02:00')));
    const before = await counter('rp_dispatcher_expired_total', { operation: 'outboundDirectDebitResponse' });
    await sendReports(old);
    // One partition: once a later report is delivered, the old one has been handled.
    const later = await reportFor('ok');
    await sendReports(later);
    await outcome(uetrOf(later));
    expect(await counter('rp_dispatcher_expired_total', { operation: 'outboundDirectDebitResponse' })).toBe(
      before + 1,
    );
    expect(banks.callsOf('ok', old.messageIdentifiers.messageIdentification)).toHaveLength(0);
    expect(outcomes.records.some((record) => record.key === uetrOf(old))).toBe(false);
  });

  test('a retry that would fall after the close makes the last outcome final', async () => {
    // Ten seconds before Monday's reconciliation close; the bank asks to come back in fifteen.
    clock.offsetMs = Date.parse('2026-11-23T17:59:50+02:00') - Date.now();
    const report = await reportFor('closing', new Date(Date.parse('2026-11-23T10:00:00+02:00')));
    await sendReports(report);
    const last = await outcome(uetrOf(report));
    expect(last.value).toMatchObject({
      attempt: 1,
      httpStatus: 503,
      result: 'RETRYABLE_FAILURE',
      final: true,
    });
    expect(last.value.nextAttemptAt).toBeUndefined();
    const after = await reportFor('ok');
    await sendReports(after);
    await outcome(uetrOf(after));
    expect(banks.callsOf('closing')).toHaveLength(1);
  });
});

describe("credit transfer authorisations to the creditor's bank", () => {
  let offsetMs: number;
  beforeAll(() => {
    // A credit's retries run until the reconciliation window of the moment the validator accepted it,
    // which is the record's time: real time. The engine's clock follows real time here, as in production.
    offsetMs = clock.offsetMs;
    clock.offsetMs = 0;
  });
  afterAll(() => {
    clock.offsetMs = offsetMs;
  });

  test('503 then 202: PENDING then DELIVERED, two signed calls with the same id and body', async () => {
    const credit = creditFor('recovering');
    const uetr = uetrOf(credit);
    const id = credit.messageIdentifiers.messageIdentification;
    const labels = { operation: 'inboundCreditTransferAuthorization', bank: 'recovering' };
    await sendCredits(credit);
    const acknowledged = await outcome(uetr, (value) => value.result === 'ACKNOWLEDGED');
    expect(acknowledged.headers['rp-state']).toBe('CREDIT_AUTH_DELIVERED');

    const attempts = outcomes.records.filter((record) => record.key === uetr);
    expect(
      attempts.map(({ value, headers }) => [
        value.operation,
        value.targetBank,
        value.messageIdentification,
        value.attempt,
        value.httpStatus,
        value.result,
        value.final,
        headers['rp-state'],
      ]),
    ).toEqual([
      [
        'inboundCreditTransferAuthorization',
        'recovering',
        id,
        1,
        503,
        'RETRYABLE_FAILURE',
        false,
        'CREDIT_AUTH_DELIVERY_PENDING',
      ],
      [
        'inboundCreditTransferAuthorization',
        'recovering',
        id,
        2,
        202,
        'ACKNOWLEDGED',
        true,
        'CREDIT_AUTH_DELIVERED',
      ],
    ]);
    const retried = attempts[0]?.value;
    expect(Date.parse(retried?.nextAttemptAt ?? '')).toBeGreaterThanOrEqual(
      Date.parse(retried?.attemptedAt ?? ''),
    );

    const calls = banks.callsOf('recovering', id);
    expect(calls).toHaveLength(2);
    expect(calls.map((call) => call.path)).toEqual([
      '/inbound/credit-transfer-authorization',
      '/inbound/credit-transfer-authorization',
    ]);
    expect(calls.map((call) => call.headers['webhook-id'])).toEqual([id, id]);
    expect(calls[1]?.body).toBe(calls[0]?.body);
    const sent = JSON.parse(calls[0]?.body ?? '{}');
    expect(sent).toMatchObject({
      schema: 'CreditTransfer',
      transactionIdentifiers: { uetr },
      creditorAgent: { memberId: 'recovering' },
    });
    // Amounts as JSON numbers, as the bank's API shows them.
    expect(calls[0]?.body).toContain(`"bankSettlementAmount":{"value":1234567890123.45,"currency":"ZAR"}`);
    for (const call of calls) {
      const timestamp = call.headers['webhook-timestamp'] ?? '';
      const expected = createHmac('sha256', Buffer.from(secret.slice('whsec_'.length), 'base64'))
        .update(`${id}.${timestamp}.${call.body}`)
        .digest('base64');
      expect(call.headers['webhook-signature']).toBe(`v1,${expected}`);
      expect(call.headers.traceparent).toMatch(
        new RegExp(`^00-${uetr.replaceAll('-', '')}-[0-9a-f]{16}-01$`),
      );
    }

    const delivered = await states.waitFor(
      (record) => record.key === uetr && record.value.eventType === 'CREDIT_AUTH_DELIVERED',
    );
    expect(stateChanges(uetr).map((change) => [change.eventType, change.fromState, change.toState])).toEqual([
      ['CREDIT_AUTH_DELIVERY_PENDING', 'CREDIT_AUTH_ACCEPTED', 'CREDIT_AUTH_DELIVERY_PENDING'],
      ['CREDIT_AUTH_DELIVERED', 'CREDIT_AUTH_DELIVERY_PENDING', 'CREDIT_AUTH_DELIVERED'],
    ]);
    expect(stateChanges(uetr)[0]?.causedBy).toMatchObject({
      messageType: 'CreditTransfer',
      messageIdentification: id,
      topic: names['rp.credittransfer.accepted.v1'],
    });
    expect(delivered.value.emittedBy).toBe('dispatcher');
    expect(delivered.value.transaction).toMatchObject({
      schema: 'CreditTransfer',
      transactionIdentifiers: { uetr },
    });
    expect(delivered.value.statusReport).toBeUndefined();

    expect(await counter('rp_dispatcher_attempts_total', { ...labels, result: 'RETRYABLE_FAILURE' })).toBe(1);
    expect(await counter('rp_dispatcher_attempts_total', { ...labels, result: 'ACKNOWLEDGED' })).toBe(1);
  });

  test('a final 4xx: CREDIT_AUTH_DELIVERY_FAILURE after one call', async () => {
    const credit = creditFor('refusing');
    const uetr = uetrOf(credit);
    const id = credit.messageIdentifiers.messageIdentification;
    await sendCredits(credit);
    const refused = await outcome(uetr);
    expect(refused.value).toMatchObject({
      operation: 'inboundCreditTransferAuthorization',
      targetBank: 'refusing',
      attempt: 1,
      httpStatus: 400,
      result: 'FINAL_FAILURE',
      final: true,
    });
    expect(refused.headers['rp-state']).toBe('CREDIT_AUTH_DELIVERY_FAILED');
    await states.waitFor(
      (record) => record.key === uetr && record.value.eventType === 'CREDIT_AUTH_DELIVERY_FAILURE',
    );
    expect(stateChanges(uetr).map((change) => [change.eventType, change.fromState, change.toState])).toEqual([
      ['CREDIT_AUTH_DELIVERY_PENDING', 'CREDIT_AUTH_ACCEPTED', 'CREDIT_AUTH_DELIVERY_PENDING'],
      ['CREDIT_AUTH_DELIVERY_FAILURE', 'CREDIT_AUTH_DELIVERY_PENDING', 'CREDIT_AUTH_DELIVERY_FAILED'],
    ]);
    // A later credit to the same bank is answered after it: the refused one was not tried again.
    const later = creditFor('refusing');
    await sendCredits(later);
    await outcome(uetrOf(later));
    expect(banks.callsOf('refusing', id)).toHaveLength(1);
    expect(banks.callsOf('refusing', id)[0]?.path).toBe('/inbound/credit-transfer-authorization');
  });
});
