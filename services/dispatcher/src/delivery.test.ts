import { readFileSync } from 'node:fs';
import {
  type CreditTransfer,
  type DeliveryOutcome,
  parseJsonExact,
  type TransactionStateChanged,
  validateCreditTransfer,
} from '@rp/contracts';
import type { ConsumedRecord, HandlerContext } from '@rp/kafka';
import { createStateEmitter, type PipelineProducer, parseParticipants } from '@rp/pipeline';
import { type Clock, createLogger, createMetrics } from '@rp/runtime';
import { defaultWindowSettings, WindowCalendar } from '@rp/scheduler/windows';
import { beforeEach, describe, expect, test } from 'vitest';
import { createDispatchHandlers, type DispatchHandlers } from './app.ts';
import type { BankClient, CallResult } from './bank-client.ts';
import { BankGates } from './bank-gate.ts';
import { createDeliverer, DeliveryDeferred } from './delivery.ts';
import { dispatcherMetrics } from './metrics.ts';
import { RetrySchedule } from './schedule.ts';

const parsed = validateCreditTransfer(
  parseJsonExact(
    readFileSync(new URL('../../../avro/examples/CreditTransfer.json', import.meta.url), 'utf8'),
  ),
);
if (!parsed.ok) throw new Error('the CreditTransfer example is not valid');
const credit: CreditTransfer = parsed.value;
const uetr = credit.transactionIdentifiers.uetr;
const id = credit.messageIdentifiers.messageIdentification;

/** Monday 2026-11-23, 10:00 SAST: the reconciliation window closes at 18:00. */
const acceptedAt = new Date('2026-11-23T10:00:00+02:00');

interface Sent {
  topic: string;
  key: string;
  value: unknown;
  headers?: Readonly<Record<string, string>>;
}

interface Call {
  url: string;
  headers: Record<string, string>;
  body: string;
}

let sent: Sent[];
let calls: Call[];
let answers: CallResult[];
let clock: Clock & { at: Date };
let handlers: DispatchHandlers;

const context: HandlerContext = { signal: new AbortController().signal, heartbeat: async () => {} };

function record(attempt: number, timestamp = acceptedAt): ConsumedRecord<CreditTransfer> {
  return {
    topic: 'rp.credittransfer.accepted.v1',
    partition: 3,
    offset: '17',
    key: uetr,
    value: credit,
    headers: { 'rp-state': 'CREDIT_AUTH_ACCEPTED' },
    timestamp: timestamp.toISOString(),
    attempt,
  };
}

const states = () =>
  sent
    .filter((entry) => entry.topic === 'rp.transaction.state.v1')
    .map((entry) => entry.value as TransactionStateChanged);
const outcomes = () =>
  sent
    .filter((entry) => entry.topic === 'rp.delivery.outcome.v1')
    .map((entry) => ({ value: entry.value as DeliveryOutcome, headers: entry.headers }));

beforeEach(() => {
  sent = [];
  calls = [];
  answers = [];
  clock = {
    at: acceptedAt,
    now() {
      return this.at;
    },
    // A demo's clock: ten times faster than real time.
    realMs: (ms) => ms / 10,
  };
  const producer: PipelineProducer = {
    async send(topic, records) {
      for (const entry of records) sent.push({ topic, ...entry });
    },
    flush: async () => {},
    disconnect: async () => {},
  };
  const client: BankClient = {
    async post(url, headers, body) {
      calls.push({ url, headers, body });
      return (
        answers.shift() ?? { error: { code: 'ECONNREFUSED', message: 'no answer scripted' }, latencyMs: 1 }
      );
    },
    close: async () => {},
  };
  const metrics = dispatcherMetrics(createMetrics({ service: 'dispatcher-test', defaultMetrics: false }));
  const deliver = createDeliverer({
    client,
    gates: new BankGates({ concurrency: 1, maxWaitMs: 100, cooldownMs: 1_000 }),
    schedule: new RetrySchedule(100),
    emitter: createStateEmitter({ service: 'dispatcher', producer, now: () => clock.now() }),
    producer,
    calendar: new WindowCalendar(defaultWindowSettings),
    clock,
    backoff: { baseMs: 1_000, maxMs: 1_000 },
    maxRetryAfterMs: 60_000,
    signingKeys: new Map(),
    metrics,
    logger: createLogger({ service: 'dispatcher-test', level: 'error' }),
    userAgent: 'rp-dispatcher/test',
    random: () => 0.5,
  });
  handlers = createDispatchHandlers({
    deliver,
    participants: parseParticipants(
      JSON.stringify([{ memberId: '250655', name: 'FNB (test)', baseUrl: 'https://fnb.example/rp' }]),
    ),
    metrics,
  });
});

describe("delivering a credit transfer authorisation to the creditor's bank", () => {
  test('503, then 422: PENDING once, then FAILURE carrying the credit; an outcome per attempt', async () => {
    answers.push({ status: 503, latencyMs: 5 }, { status: 422, latencyMs: 7 });
    await expect(handlers.creditTransfer(record(1), context)).rejects.toBeInstanceOf(DeliveryDeferred);
    // Handed back before its backoff is over: no call, and a hint of the rest of it in real time.
    await expect(handlers.creditTransfer(record(2), context)).rejects.toMatchObject({
      reason: 'not-yet-due',
      retryInMs: 50,
    });
    expect(calls).toHaveLength(1);
    clock.at = new Date(acceptedAt.getTime() + 500);
    await handlers.creditTransfer(record(3), context);

    expect(calls.map((call) => call.url)).toEqual([
      'https://fnb.example/rp/inbound/credit-transfer-authorization',
      'https://fnb.example/rp/inbound/credit-transfer-authorization',
    ]);
    expect(calls.map((call) => call.headers['webhook-id'])).toEqual([id, id]);
    expect(calls[1]?.body).toBe(calls[0]?.body);

    expect(states().map((change) => [change.eventType, change.fromState, change.toState])).toEqual([
      ['CREDIT_AUTH_DELIVERY_PENDING', 'CREDIT_AUTH_ACCEPTED', 'CREDIT_AUTH_DELIVERY_PENDING'],
      ['CREDIT_AUTH_DELIVERY_FAILURE', 'CREDIT_AUTH_DELIVERY_PENDING', 'CREDIT_AUTH_DELIVERY_FAILED'],
    ]);
    expect(states()[0]?.causedBy).toEqual({
      messageType: 'CreditTransfer',
      messageIdentification: id,
      topic: 'rp.credittransfer.accepted.v1',
      partition: 3,
      offset: '17',
    });
    for (const change of states()) {
      expect(change.transaction).toBe(credit);
      expect(change.statusReport).toBeUndefined();
    }

    expect(
      outcomes().map(({ value, headers }) => [
        value.operation,
        value.attempt,
        value.httpStatus,
        value.result,
        value.final,
        headers,
      ]),
    ).toEqual([
      [
        'inboundCreditTransferAuthorization',
        1,
        503,
        'RETRYABLE_FAILURE',
        false,
        { 'rp-state': 'CREDIT_AUTH_DELIVERY_PENDING' },
      ],
      [
        'inboundCreditTransferAuthorization',
        2,
        422,
        'FINAL_FAILURE',
        true,
        { 'rp-state': 'CREDIT_AUTH_DELIVERY_FAILED' },
      ],
    ]);
    expect(outcomes()[0]?.value.nextAttemptAt).toBe(new Date(acceptedAt.getTime() + 500).toISOString());
  });

  test('a credit accepted in a reconciliation window that has closed is not tried', async () => {
    // Accepted on Friday; it is Monday now.
    await handlers.creditTransfer(record(1, new Date('2026-11-20T10:00:00+02:00')), context);
    expect(calls).toHaveLength(0);
    expect(sent).toHaveLength(0);
  });

  test('a credit accepted after the close is tried until the next business day closes', async () => {
    // Accepted on Friday evening; Monday's window is the one that covers it.
    answers.push({ status: 202, latencyMs: 3 });
    await handlers.creditTransfer(record(1, new Date('2026-11-20T19:00:00+02:00')), context);
    expect(calls).toHaveLength(1);
    expect(states().map((change) => change.toState)).toEqual([
      'CREDIT_AUTH_DELIVERY_PENDING',
      'CREDIT_AUTH_DELIVERED',
    ]);
  });
});
