import { randomUUID } from 'node:crypto';
import { reconCommand } from '@rp/cli/commands';
import { completedDebitJourney, type PaymentStatusReport, toJson } from '@rp/contracts';
import { baobab, defaultBank, sampleOnUsDebit } from '@rp/launcher';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  bodyOf,
  type EndToEnd,
  mongoTarget,
  type ReconciliationEntry,
  root,
  type Snapshot,
  startEndToEnd,
  TcpProxy,
  waitUntil,
} from './pipeline.ts';

/**
 * Spec section 7, row by row, on the whole pipeline (seven processes, the real Kafka, registry and
 * MongoDB). The bank simulator plays the bank (Baobab, 250655) on both sides of each on-us debit; its
 * faults target one transaction (UETR), so a test never disturbs another.
 */
const bank = baobab.memberId;
let e2e: EndToEnd;
beforeAll(async () => {
  e2e = await startEndToEnd();
});
afterEach(async () => {
  await e2e?.bank.clearFaults();
});
afterAll(async () => {
  await e2e?.stop();
});

const inboundEndpoint = 'inbound/direct-debit';
const outboundEndpoint = 'outbound/direct-debit-response';

/**
 * Closes today's reconciliation window and answers the items of these transactions. The close also
 * ends today's debit window for good, and the scheduler keeps the close in the store: it is taken back
 * (`forgetReconciliationClose`) and the debit window opened again, so that later tests have one.
 */
async function reconcile(uetrs: readonly string[]): Promise<Map<string, ReconciliationEntry>> {
  await e2e.closeReconciliationWindow();
  const items = await e2e.reconciliationItems();
  await e2e.forgetReconciliationClose();
  await e2e.openDebitWindow();
  return new Map(items.filter((item) => uetrs.includes(item.uetr)).map((item) => [item.uetr, item]));
}

const attemptsTo = (snapshot: Snapshot, endpoint: string) =>
  snapshot.deliveryAttempts.filter((attempt) => attempt.endpoint === endpoint);

async function sendAccepted(uetr = randomUUID()) {
  const sent = await e2e.sendDebit({ uetr });
  expect(sent.response.status).toBe(202);
  return sent;
}

/** The transaction went the whole successful path once: every state once, in order, one of each message. */
async function expectProcessedOnce(uetr: string) {
  await e2e.waitForEvent(uetr, 'DEBIT_COMPLETED');
  expect(await e2e.eventTypes(uetr)).toEqual([...completedDebitJourney]);
  const reports = await e2e.bank.messages('outboundDirectDebitResponse', uetr);
  expect(reports.map((report) => report.duplicates)).toEqual([0]);
  const debits = await e2e.bank.messages('inboundDirectDebit', uetr);
  expect(debits.map((debit) => debit.duplicates)).toEqual([0]);
  const snapshot = await e2e.transaction(uetr);
  expect(snapshot?.history.map((entry) => entry.eventType)).toEqual([...completedDebitJourney]);
}

describe('spec section 7: errors, row by row', () => {
  it('row 1: no HTTP response from the service to an outbound DirectDebit: the bank resends the same message elsewhere, processed once', async () => {
    await e2e.openDebitWindow();
    // A second ingress the bank can reach, frozen (SIGSTOP): it accepts the connection and never answers.
    const frozen = await e2e.pipeline.startInstance('ingress', { name: 'ingress-frozen' });
    try {
      const sample = sampleOnUsDebit(root);
      frozen.signal('SIGSTOP');
      const first = await fetch(`${frozen.url}/api/v1/outbound/direct-debit`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          authorization: await e2e.pipeline.bankAuthorization(defaultBank.memberId),
        },
        body: sample.body,
        signal: AbortSignal.timeout(1_500),
      }).then(
        (response) => response.status,
        () => 'no response' as const,
      );
      expect(first).toBe('no response');

      // The bank retries with the same messageIdentification and body, at an ingress that answers.
      const written = { result: 'written' };
      const markersBefore = await e2e.metric('ingress', 'rp_ingress_produced_markers_total', written);
      const retry = await e2e.post('outbound/direct-debit', sample.body);
      expect(retry.status).toBe(202);
      expect(await retry.json()).toMatchObject({ uetr: sample.uetr });
      // That ingress writes its "produced" marker behind the 202 (its writes go in order, so the next
      // one written holds it); the frozen one must find it.
      await waitUntil(
        async () =>
          (await e2e.metric('ingress', 'rp_ingress_produced_markers_total', written)) > markersBefore
            ? true
            : undefined,
        'the produced marker written',
      );

      // The frozen ingress goes on and finds the first attempt in its socket: it answers it from the
      // idempotency record (to nobody) and produces nothing.
      frozen.signal('SIGCONT');
      const outcome = { operation: 'outboundDirectDebit' };
      await waitUntil(
        async () =>
          (await e2e.metric(frozen.url, 'rp_ingress_messages_total', outcome)) >= 1 ? true : undefined,
        'the resumed ingress to handle the first attempt',
        30_000,
      );
      expect(
        await e2e.metric(frozen.url, 'rp_ingress_messages_total', { ...outcome, outcome: 'replayed' }),
      ).toBe(1);
      await expectProcessedOnce(sample.uetr);
    } finally {
      await frozen.stop();
    }
  });

  it('row 2: negative acknowledgement from the service (503, Retry-After, never 202): the resend is processed once', async () => {
    await e2e.openDebitWindow();
    // A second ingress whose MongoDB connection runs through a proxy the test cuts: it cannot make the
    // message durable, so it must refuse it with 503 and Retry-After.
    const mongo = mongoTarget(e2e.endpoints.mongodbUri);
    const proxy = new TcpProxy(mongo);
    await proxy.start();
    const cutOff = await e2e.pipeline.startInstance('ingress', {
      name: 'ingress-without-mongodb',
      env: { MONGODB_URI: mongo.via(proxy.port), RETRY_AFTER: '3s' },
    });
    try {
      await proxy.cut();
      const sample = sampleOnUsDebit(root);
      for (let attempt = 1; attempt <= 2; attempt += 1) {
        const refused = await fetch(`${cutOff.url}/api/v1/outbound/direct-debit`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            authorization: await e2e.pipeline.bankAuthorization(defaultBank.memberId),
          },
          body: sample.body,
          signal: AbortSignal.timeout(60_000),
        });
        expect(refused.status).toBe(503);
        expect(refused.headers.get('retry-after')).toBe('3');
        expect(refused.headers.get('content-type')).toMatch(/^application\/problem\+json/);
        expect(await refused.json()).toMatchObject({ type: '/problems/unavailable', status: 503 });
      }
      // Nothing was accepted, so nothing happened: no transaction, no posting to the bank.
      expect(await e2e.transaction(sample.uetr)).toBeNull();
      expect(await e2e.bank.postings(sample.uetr)).toEqual([]);

      // The bank resends the same message to the ingress that works.
      const retry = await e2e.post('outbound/direct-debit', sample.body);
      expect(retry.status).toBe(202);
      await expectProcessedOnce(sample.uetr);
    } finally {
      await cutOff.stop();
      await proxy.stop();
    }
  });

  it('row 3: transient 5xx, 408 and 429 from a bank are retried until 202; a final 4xx is not, and becomes a reconciliation item', async () => {
    await e2e.openDebitWindow();
    const transient = randomUUID();
    const reportRefused = randomUUID();
    const debitRefused = randomUUID();
    // The newest matching rule decides: the report meets 503 then 429 (Retry-After 1 s), the debit 408
    // then 500, then the bank answers 202.
    await e2e.bank.setFault({
      uetr: transient,
      route: 'outbound',
      mode: 'error',
      status: 429,
      retryAfterSeconds: 1,
      count: 1,
    });
    await e2e.bank.setFault({ uetr: transient, route: 'outbound', mode: 'error', status: 503, count: 1 });
    await e2e.bank.setFault({ uetr: transient, route: 'inbound', mode: 'error', status: 500, count: 1 });
    await e2e.bank.setFault({ uetr: transient, route: 'inbound', mode: 'error', status: 408, count: 1 });
    await e2e.bank.setFault({ uetr: reportRefused, route: 'outbound', mode: 'error', status: 400 });
    await e2e.bank.setFault({ uetr: debitRefused, route: 'inbound', mode: 'error', status: 422 });
    for (const uetr of [transient, reportRefused, debitRefused]) await sendAccepted(uetr);

    await expectProcessedOnce(transient);
    const answers = async (uetr: string, route: 'outbound' | 'inbound') =>
      (await e2e.bank.requests({ uetr, route })).map((request) => request.answer);
    expect(await answers(transient, 'outbound')).toEqual([503, 429, 202]);
    expect(await answers(transient, 'inbound')).toEqual([408, 500, 202]);
    const reportIds = new Set(
      (await e2e.bank.requests({ uetr: transient, route: 'outbound' })).map((r) => r.messageIdentification),
    );
    expect(reportIds.size).toBe(1);

    await e2e.waitForEvent(reportRefused, 'DEBIT_STATUS_DELIVERY_FAILURE');
    await e2e.waitForEvent(debitRefused, 'DEBIT_DELIVERY_FAILURE');
    expect((await e2e.transaction(reportRefused))?.state).toBe('DEBIT_STATUS_DELIVERY_FAILED');
    expect((await e2e.transaction(debitRefused))?.state).toBe('DEBIT_DELIVERY_FAILED');

    const items = await reconcile([transient, reportRefused, debitRefused]);
    expect(items.get(reportRefused)).toMatchObject({
      row: 3,
      code: 'UNRECOVERABLE_ERROR',
      stateAtClose: 'DEBIT_STATUS_DELIVERY_FAILED',
    });
    expect(items.get(debitRefused)).toMatchObject({
      row: 3,
      code: 'UNRECOVERABLE_ERROR',
      stateAtClose: 'DEBIT_DELIVERY_FAILED',
    });
    expect(items.has(transient)).toBe(false);
    await e2e.waitForEvent(reportRefused, 'RECONCILIATION_REQUIRED');
    await e2e.waitForEvent(debitRefused, 'RECONCILIATION_REQUIRED');
    // A final answer is final: each refused message was sent once, and the refused report's debit was
    // never sent to the actioning bank.
    expect(await answers(reportRefused, 'outbound')).toEqual([400]);
    expect(await answers(reportRefused, 'inbound')).toEqual([]);
    expect(await answers(debitRefused, 'inbound')).toEqual([422]);
  });

  it('row 4: no status report from the service before the reconciliation window closes: a reconciliation item', async () => {
    await e2e.openDebitWindow();
    await e2e.pipeline.kill('validator', 'SIGTERM');
    let uetr = '';
    try {
      uetr = (await sendAccepted()).uetr;
      await e2e.waitForTransaction(uetr, (found) => found.state === 'DEBIT_RECEIVED', 'recorded as received');
      const items = await reconcile([uetr]);
      expect(items.get(uetr)).toMatchObject({
        row: 4,
        code: 'STATUS_REPORT_NOT_SENT',
        stateAtClose: 'DEBIT_RECEIVED',
      });
      expect(String(items.get(uetr)?.text)).toMatch(/PaymentStatusReport/);
      // The operator's report says the same.
      const out: string[] = [];
      // As a read-only operator, the token in RP_ADMIN_TOKEN.
      const reader = (await e2e.pipeline.operatorAuthorization('operator.read')).replace(/^Bearer /, '');
      const io = {
        out: (line: string) => out.push(line),
        err: (line: string) => out.push(line),
        env: { RP_ADMIN_TOKEN: reader },
      };
      expect(await reconCommand(['--url', e2e.pipeline.url('scheduler')], io)).toBe(0);
      expect(out[0]).toMatch(/^reconciliation of window \d{4}-\d{2}-\d{2}: \d+ items?, \d+ open$/);
      expect(out.find((line) => line.includes(uetr))).toMatch(
        / 4 {2}open +DEBIT_RECEIVED +STATUS_REPORT_NOT_SENT$/,
      );
      await e2e.waitForEvent(uetr, 'RECONCILIATION_REQUIRED');
    } finally {
      await e2e.pipeline.start('validator');
    }
    // Back, the validator reads the debit and leaves it alone: the transaction was reconciled.
    await waitUntil(
      async () =>
        (await e2e.metric('validator', 'rp_validator_debits_skipped_total', { reason: 'past-validation' })) >=
        1
          ? true
          : undefined,
      'the validator to skip the reconciled debit',
    );
    expect(await e2e.bank.requests({ uetr, route: 'outbound' })).toEqual([]);
    expect((await e2e.transaction(uetr))?.state).toBe('RECONCILIATION_REQUIRED');
  });

  it('row 5: the initiating bank never answers the status report before the window closes: a reconciliation item', async () => {
    await e2e.openDebitWindow();
    const uetr = randomUUID();
    await e2e.bank.setFault({ memberId: bank, uetr, route: 'outbound', mode: 'no-response' });
    await sendAccepted(uetr);
    // The dispatcher gave up on an attempt (no answer within its timeout) and keeps the report for later.
    const snapshot = await e2e.waitForTransaction(
      uetr,
      (found) => attemptsTo(found, outboundEndpoint).some((attempt) => attempt.httpStatus === null),
      'an unanswered attempt to deliver the status report',
    );
    expect(snapshot.state).toBe('DEBIT_ACCEPTANCE_DELIVERY_PENDING');
    const requests = await e2e.bank.requests({ uetr, route: 'outbound' });
    expect(requests.length).toBeGreaterThanOrEqual(1);
    expect(requests.every((request) => request.answer === 'no-response')).toBe(true);
    expect(await e2e.bank.messages('inboundDirectDebit', uetr)).toEqual([]);

    const items = await reconcile([uetr]);
    expect(items.get(uetr)).toMatchObject({
      row: 5,
      code: 'STATUS_REPORT_NOT_ACKNOWLEDGED',
      stateAtClose: 'DEBIT_ACCEPTANCE_DELIVERY_PENDING',
    });
    await e2e.waitForEvent(uetr, 'RECONCILIATION_REQUIRED');
    // Its debit never joined the queue, and never will.
    expect(await e2e.bank.messages('inboundDirectDebit', uetr)).toEqual([]);
  });

  it('row 6: a CDV failure is answered RJCT with ISO reason codes and readable text; the corrected debit is accepted', async () => {
    await e2e.openDebitWindow();
    // Both accounts fail the check digit (one digit off valid ones).
    const goodDebtor = baobab.savingsAccount();
    const goodCreditor = baobab.currentAccount();
    const broken = (account: string) => `${account.slice(0, -1)}${(Number(account.slice(-1)) + 1) % 10}`;
    const rejected = await e2e.sendDebit({
      debtorAccount: broken(goodDebtor),
      creditorAccount: broken(goodCreditor),
    });
    expect(rejected.response.status).toBe(202);
    await e2e.waitForEvent(rejected.uetr, 'DEBIT_STATUS_DELIVERED');
    const [report] = await e2e.bank.messages('outboundDirectDebitResponse', rejected.uetr);
    const status = bodyOf<PaymentStatusReport>(report).status;
    expect(status.status).toBe('RJCT');
    const reasons = new Map(
      (status.reasonInfo ?? []).map((reason) => [reason.reason?.code, reason.additionalInfo ?? []]),
    );
    expect([...reasons.keys()].sort()).toEqual(['AC01', 'AC03']);
    for (const lines of reasons.values()) {
      expect(lines.length).toBeGreaterThan(0);
      for (const line of lines) {
        expect(line).toMatch(/[a-z]{3,} [a-z]{3,}/i); // words, not a code
        expect(line.length).toBeLessThanOrEqual(105);
        expect(line).not.toContain(broken(goodDebtor));
        expect(line).not.toContain(broken(goodCreditor));
      }
    }
    expect(await e2e.eventTypes(rejected.uetr)).toEqual([
      'DEBIT_REQUEST_RECEIVED',
      'DEBIT_REQUEST_REJECTED',
      'DEBIT_STATUS_DELIVERY_PENDING',
      'DEBIT_STATUS_DELIVERED',
    ]);
    expect((await e2e.transaction(rejected.uetr))?.state).toBe('DEBIT_REJECTION_DELIVERED');

    // A correction that keeps the rejected debit's UETR is refused at once (409 at the UETR), never
    // acknowledged and then left unprocessed: the UETR names the rejected transaction.
    const sameUetr = await e2e.sendDebit({
      uetr: rejected.uetr,
      messageIdentification: `${rejected.messageIdentification.slice(0, 30)}C1`,
      debtorAccount: goodDebtor,
      creditorAccount: goodCreditor,
    });
    expect(sameUetr.response.status).toBe(409);
    expect(await sameUetr.response.json()).toMatchObject({
      type: '/problems/duplicate-transaction',
      errors: [{ pointer: '/transactionIdentifiers/uetr' }],
    });

    // The bank corrects the accounts and sends the debit again as a new message (new messageIdentification,
    // new UETR): accepted and carried through.
    const corrected = await e2e.sendDebit({ debtorAccount: goodDebtor, creditorAccount: goodCreditor });
    expect(corrected.response.status).toBe(202);
    expect(corrected.messageIdentification).not.toBe(rejected.messageIdentification);
    await expectProcessedOnce(corrected.uetr);
    const [accepted] = await e2e.bank.messages('outboundDirectDebitResponse', corrected.uetr);
    expect(bodyOf<PaymentStatusReport>(accepted).status.status).toBe('ACCP');
    // The rejected debit never reached the actioning bank.
    expect(await e2e.bank.messages('inboundDirectDebit', rejected.uetr)).toEqual([]);
  });

  it('row 7: the actioning bank never answers the inbound debit before the window closes: a reconciliation item', async () => {
    await e2e.openDebitWindow();
    const uetr = randomUUID();
    await e2e.bank.setFault({ memberId: bank, uetr, route: 'inbound', mode: 'no-response' });
    await sendAccepted(uetr);
    const snapshot = await e2e.waitForTransaction(
      uetr,
      (found) => attemptsTo(found, inboundEndpoint).some((attempt) => attempt.httpStatus === null),
      'an unanswered attempt to deliver the inbound debit',
    );
    expect(snapshot.state).toBe('DEBIT_DELIVERY_PENDING');
    expect(attemptsTo(snapshot, inboundEndpoint).every((attempt) => attempt.httpStatus === null)).toBe(true);
    const requests = await e2e.bank.requests({ uetr, route: 'inbound' });
    expect(requests.map((request) => request.answer)).toContain('no-response');

    const items = await reconcile([uetr]);
    expect(items.get(uetr)).toMatchObject({
      row: 7,
      code: 'INBOUND_DEBIT_NO_RESPONSE',
      stateAtClose: 'DEBIT_DELIVERY_PENDING',
    });
    await e2e.waitForEvent(uetr, 'RECONCILIATION_REQUIRED');
  });

  it('row 8: negative acknowledgements from the actioning bank: resent until it answers 202, else a reconciliation item', async () => {
    await e2e.openDebitWindow();
    const recovers = randomUUID();
    const neverAcknowledges = randomUUID();
    await e2e.bank.setFault({ uetr: recovers, route: 'inbound', mode: 'error', status: 503, count: 3 });
    await e2e.bank.setFault({ uetr: neverAcknowledges, route: 'inbound', mode: 'error', status: 503 });
    const sent = await sendAccepted(recovers);
    await sendAccepted(neverAcknowledges);

    // Store and forward: the same debit, the same messageIdentification, until the bank's 202.
    await expectProcessedOnce(recovers);
    const attempts = await e2e.bank.requests({ uetr: recovers, route: 'inbound' });
    expect(attempts.map((attempt) => attempt.answer)).toEqual([503, 503, 503, 202]);
    for (const attempt of attempts) {
      expect(attempt.messageIdentification).toBe(sent.messageIdentification);
      expect(attempt.webhookId).toBe(sent.messageIdentification);
    }

    // A bank that only ever answers 503 keeps being sent the debit until the window closes.
    const snapshot = await e2e.waitForTransaction(
      neverAcknowledges,
      (found) =>
        attemptsTo(found, inboundEndpoint).filter((attempt) => attempt.httpStatus === 503).length >= 2,
      'two refused attempts to deliver the inbound debit',
    );
    expect(snapshot.state).toBe('DEBIT_DELIVERY_PENDING');
    const items = await reconcile([recovers, neverAcknowledges]);
    expect(items.get(neverAcknowledges)).toMatchObject({
      row: 8,
      code: 'INBOUND_DEBIT_NEGATIVE_ACKNOWLEDGEMENT',
      stateAtClose: 'DEBIT_DELIVERY_PENDING',
    });
    expect(items.has(recovers)).toBe(false);
    await e2e.waitForEvent(neverAcknowledges, 'RECONCILIATION_REQUIRED');
    expect(await e2e.bank.messages('inboundDirectDebit', neverAcknowledges)).toEqual([]);
  });

  it('row 9: the actioning bank never sends its status report before the window closes: a reconciliation item', async () => {
    await e2e.openDebitWindow();
    const uetr = randomUUID();
    await e2e.bank.setFault({ memberId: bank, uetr, route: 'inbound', mode: 'no-report' });
    await sendAccepted(uetr);
    await e2e.waitForEvent(uetr, 'DEBIT_DELIVERED');
    expect(await e2e.bank.messages('inboundDirectDebit', uetr)).toHaveLength(1);
    expect(await e2e.bank.requests({ uetr, route: 'inbound' })).toMatchObject([
      { answer: 202, fault: 'no-report' },
    ]);
    expect(await e2e.bank.messages('inboundDirectDebitResponse', uetr)).toEqual([]);

    const items = await reconcile([uetr]);
    expect(items.get(uetr)).toMatchObject({
      row: 9,
      code: 'INBOUND_STATUS_REPORT_MISSING',
      stateAtClose: 'DEBIT_DELIVERED',
    });
    await e2e.waitForEvent(uetr, 'RECONCILIATION_REQUIRED');
    expect(await e2e.eventTypes(uetr)).not.toContain('DEBIT_COMPLETED');
  });

  it("row 10: no HTTP response to the actioning bank's status report: the bank resends it, processed once", async () => {
    await e2e.openDebitWindow();
    const uetr = randomUUID();
    const operation = { operation: 'inboundDirectDebitResponse' };
    await sendAccepted(uetr);
    // The service's ingress is gone right after accepting the debit: the actioning bank's report gets no
    // HTTP response (connection refused) and the bank resends it with backoff.
    await e2e.pipeline.kill('ingress');
    try {
      await waitUntil(async () => {
        const [report] = await e2e.bank.messages('inboundDirectDebitResponse', uetr);
        return report?.delivery && report.delivery.attempts >= 2 ? report : undefined;
      }, 'the bank to resend its unanswered report');
    } finally {
      await e2e.pipeline.start('ingress');
    }
    await e2e.waitForEvent(uetr, 'DEBIT_COMPLETED');
    // The bank's client may take the 202 in after the completion's posting reached the bank: it is the
    // bank's own record of its delivery that is waited for, until it is no longer pending.
    const report = await waitUntil(async () => {
      const [found] = await e2e.bank.messages('inboundDirectDebitResponse', uetr);
      return found?.delivery && found.delivery.state !== 'pending' ? found : undefined;
    }, "the bank's report delivered or given up");
    expect(report.delivery).toMatchObject({ state: 'done', lastStatus: 202 });
    expect(report.delivery?.attempts).toBeGreaterThanOrEqual(2);

    // The bank did not see our 202 (lost on the way) and sends the same report once more: 202 again,
    // answered from the idempotency record, nothing produced.
    const replayedBefore = await e2e.metric('ingress', 'rp_ingress_messages_total', {
      ...operation,
      outcome: 'replayed',
    });
    const acceptedBefore = await e2e.metric('ingress', 'rp_ingress_messages_total', {
      ...operation,
      outcome: 'accepted',
    });
    // The same bytes the bank sent (amounts as exact decimals).
    const body = toJson('PaymentStatusReport', bodyOf<PaymentStatusReport>(report));
    const again = await e2e.post('inbound/direct-debit-response', body);
    expect(again.status, await again.clone().text()).toBe(202);
    expect(await again.json()).toMatchObject({
      uetr,
      messageIdentification: report?.messageIdentification,
    });
    expect(
      await e2e.metric('ingress', 'rp_ingress_messages_total', { ...operation, outcome: 'replayed' }),
    ).toBe(replayedBefore + 1);
    expect(
      await e2e.metric('ingress', 'rp_ingress_messages_total', { ...operation, outcome: 'accepted' }),
    ).toBe(acceptedBefore);
    await expectProcessedOnce(uetr);
    const snapshot = await e2e.transaction(uetr);
    expect(snapshot?.messages.filter((message) => message.kind === 'PaymentStatusReport')).toHaveLength(2);
  });
});
