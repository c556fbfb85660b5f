import { readFileSync } from 'node:fs';
import {
  bankPaths,
  type CreditTransfer,
  type DirectDebit,
  parseJsonExact,
  toJson,
  validateCreditTransfer,
  validateDirectDebit,
} from '@rp/contracts';
import type { ConsumedRecord, HandlerContext } from '@rp/kafka';
import { parseParticipants } from '@rp/pipeline';
import { AppError, createMetrics, type Metrics } from '@rp/runtime';
import { beforeEach, describe, expect, test } from 'vitest';
import { createDispatchHandlers, type DispatchHandlers } from './app.ts';
import type { DeliveryJob } from './delivery.ts';
import { dispatcherMetrics } from './metrics.ts';

function example(file: string): unknown {
  return parseJsonExact(readFileSync(new URL(`../../../avro/examples/${file}`, import.meta.url), 'utf8'));
}

function valid<T>(result: { ok: true; value: T } | { ok: false }): T {
  if (!result.ok) throw new Error('the example is not valid');
  return result.value;
}

const credit: CreditTransfer = valid(validateCreditTransfer(example('CreditTransfer.json')));
const debit: DirectDebit = valid(validateDirectDebit(example('DirectDebit.za-eft-on-us.json')));

const participants = parseParticipants(
  JSON.stringify(
    ['250655', '632005', '470010'].map((memberId) => ({
      memberId,
      name: `bank ${memberId}`,
      baseUrl: `https://bank-${memberId}.example/api`,
    })),
  ),
);

function recordOf<T>(topic: string, value: T, headers: Record<string, string> = {}): ConsumedRecord<T> {
  return {
    topic,
    partition: 0,
    offset: '42',
    key: 'uetr',
    value,
    headers,
    timestamp: '2026-11-23T08:00:00.000Z',
    attempt: 1,
  };
}

const context: HandlerContext = { signal: new AbortController().signal, heartbeat: async () => {} };

let jobs: DeliveryJob[];
let metrics: Metrics;
let handlers: DispatchHandlers;

async function counter(name: string, operation: string): Promise<number> {
  const metric = (await metrics.registry.getMetricsAsJSON()).find((entry) => entry.name === name);
  return Number(metric?.values.find((entry) => entry.labels.operation === operation)?.value ?? 0);
}

beforeEach(() => {
  jobs = [];
  metrics = createMetrics({ service: 'dispatcher-test', defaultMetrics: false });
  handlers = createDispatchHandlers({
    deliver: async (job) => {
      jobs.push(job);
    },
    participants,
    metrics: dispatcherMetrics(metrics),
  });
});

describe('credit transfer authorisations', () => {
  test("go to the creditor's bank, from the moment the validator accepted them", async () => {
    await handlers.creditTransfer(
      recordOf('rp.credittransfer.accepted.v1', credit, { 'rp-state': 'CREDIT_AUTH_ACCEPTED' }),
      context,
    );
    const [job, ...more] = jobs;
    expect(more).toHaveLength(0);
    expect(job).toMatchObject({
      operation: 'inboundCreditTransferAuthorization',
      uetr: credit.transactionIdentifiers.uetr,
      messageIdentification: credit.messageIdentifiers.messageIdentification,
      bank: { memberId: '250655', baseUrl: 'https://bank-250655.example/api' },
      path: bankPaths.inboundCreditTransferAuthorization,
      body: toJson('CreditTransfer', credit),
      fromState: 'CREDIT_AUTH_ACCEPTED',
      events: {
        pending: 'CREDIT_AUTH_DELIVERY_PENDING',
        delivered: 'CREDIT_AUTH_DELIVERED',
        failure: 'CREDIT_AUTH_DELIVERY_FAILURE',
      },
      messageType: 'CreditTransfer',
    });
    // The record's time, not the bank's creationDateTime (March 2025): a stale creation date does not
    // make the engine give up on a credit it has just accepted.
    expect(job?.origin.toISOString()).toBe('2026-11-23T08:00:00.000Z');
    expect(job?.statusReport).toBeUndefined();
    expect(job?.transaction).toBe(credit);
    expect(await counter('rp_dispatcher_records_received_total', 'inboundCreditTransferAuthorization')).toBe(
      1,
    );
  });

  test('without an rp-state header the credit is taken as accepted', async () => {
    await handlers.creditTransfer(recordOf('rp.credittransfer.accepted.v1', credit), context);
    expect(jobs[0]?.fromState).toBe('CREDIT_AUTH_ACCEPTED');
  });

  test.each([
    [
      'a bank that is not a participant',
      { memberId: '999999' },
      /creditor's bank 999999 is not a participant/,
    ],
    ['no member id', { bicfi: 'FIRNZAJJ' }, /creditor's bank \(none named\) is not a participant/],
  ])("a creditor's bank with %s: not retried, counted as a failed record", async (_, agent, message) => {
    const elsewhere = { ...credit, creditorAgent: agent };
    const handling = handlers.creditTransfer(recordOf('rp.credittransfer.accepted.v1', elsewhere), context);
    await expect(handling).rejects.toThrow(message);
    await handling.catch((error: unknown) => {
      expect(error).toBeInstanceOf(AppError);
      expect(error).toMatchObject({ code: 'CONFIG_INVALID', retriable: false });
    });
    expect(jobs).toHaveLength(0);
    expect(await counter('rp_dispatcher_failed_records_total', 'inboundCreditTransferAuthorization')).toBe(1);
  });
});

describe('due debits, beside the credits', () => {
  test('go to the actioning bank, from their release', async () => {
    await handlers.dueDebit(
      recordOf('rp.directdebit.due.v1', debit, { 'rp-released-at': '2026-11-23T06:30:00.000Z' }),
      context,
    );
    expect(jobs[0]).toMatchObject({
      operation: 'inboundDirectDebit',
      bank: { memberId: debit.debtorAgent.memberId },
      path: bankPaths.inboundDirectDebit,
      body: toJson('DirectDebit', debit),
      fromState: 'DEBIT_QUEUED',
      events: { pending: 'DEBIT_DELIVERY_PENDING' },
      messageType: 'DirectDebit',
    });
    expect(jobs[0]?.origin.toISOString()).toBe('2026-11-23T06:30:00.000Z');
  });
});
