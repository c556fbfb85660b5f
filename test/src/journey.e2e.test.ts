import { randomUUID } from 'node:crypto';
import { type CommandIo, deadLettersCommand, type SendSummary, sendCommand } from '@rp/cli/commands';
import { completedDebitJourney, type DirectDebit, type PaymentStatusReport } from '@rp/contracts';
import { johannesburgDate, sampleOnUsDebit } from '@rp/launcher';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { bodyOf, type EndToEnd, root, type Snapshot, startEndToEnd, waitUntil } from './pipeline.ts';

const bank = '250655';
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

const outcomes = ['accepted', 'replayed', 'reproduced', 'joined', 'conflict', 'malformed'] as const;
/** The ingress's count of outboundDirectDebit requests by how they ended. */
const ingressOutcomes = async (): Promise<Record<(typeof outcomes)[number], number>> => {
  const counts = await Promise.all(
    outcomes.map((outcome) =>
      e2e.metric('ingress', 'rp_ingress_messages_total', { operation: 'outboundDirectDebit', outcome }),
    ),
  );
  return Object.fromEntries(outcomes.map((outcome, index) => [outcome, counts[index] ?? 0])) as Record<
    (typeof outcomes)[number],
    number
  >;
};

describe('the on-us direct debit exchange, end to end (spec section 4)', () => {
  // First in the file: step 6 needs the debit window still closed.
  it('takes a debit through the ten steps of the successful path, each one observed', async () => {
    const uetr = randomUUID();
    const today = johannesburgDate();
    const queueBefore = await e2e.queue();
    // Steps 4-5 meet two refusals by the initiating bank before its 202.
    await e2e.bank.setFault({
      memberId: bank,
      route: 'outbound',
      uetr,
      mode: 'error',
      status: 503,
      count: 2,
    });

    // Steps 1-2: the initiating bank sends outboundDirectDebit; the service answers 202.
    const sent = await e2e.sendDebit({ uetr });
    expect(sent.response.status).toBe(202);
    expect(await sent.response.json()).toMatchObject({
      messageIdentification: sent.messageIdentification,
      uetr,
    });

    // Steps 3-5: validated (CDV), then the PaymentStatusReport ACCP is sent until the bank answers 202,
    // the same message every time.
    await e2e.waitForEvent(uetr, 'DEBIT_STATUS_DELIVERED');
    const reports = await e2e.bank.messages('outboundDirectDebitResponse', uetr);
    expect(reports).toHaveLength(1);
    const report = bodyOf<PaymentStatusReport>(reports[0]);
    expect(report.status.status).toBe('ACCP');
    expect(report.originalMessageIdentifiers.messageIdentification).toBe(sent.messageIdentification);
    const reportId = report.messageIdentifiers.messageIdentification;
    const reportAttempts = await e2e.bank.requests({ route: 'outbound', uetr });
    expect(reportAttempts.map((attempt) => attempt.answer)).toEqual([503, 503, 202]);
    for (const attempt of reportAttempts) {
      expect(attempt.messageIdentification).toBe(reportId);
      expect(attempt.webhookId).toBe(reportId);
      expect(attempt.memberId).toBe(bank);
    }

    // Step 6: held in the debit queue while the debit window is closed.
    await e2e.waitForEvent(uetr, 'DEBIT_QUEUED');
    const queued = await e2e.queue();
    expect(queued.depth).toBe(queueBefore.depth + 1);
    expect(queued.byWindow[today]).toBe((queueBefore.byWindow[today] ?? 0) + 1);
    expect((await e2e.transaction(uetr))?.state).toBe('DEBIT_QUEUED');
    expect(await e2e.bank.messages('inboundDirectDebit', uetr)).toEqual([]);
    expect(await e2e.bank.requests({ route: 'inbound', uetr })).toEqual([]);

    // Steps 7-8: the window opens; the inboundDirectDebit reaches the actioning bank, which answers 202.
    await e2e.openDebitWindow();
    await e2e.waitForEvent(uetr, 'DEBIT_DELIVERED');
    const inbound = await e2e.bank.messages('inboundDirectDebit', uetr);
    expect(inbound).toHaveLength(1);
    expect(inbound[0]).toMatchObject({ memberId: bank, duplicates: 0 });
    const delivered = bodyOf<DirectDebit>(inbound[0]);
    const original = JSON.parse(sent.body) as DirectDebit;
    expect(delivered.messageIdentifiers.messageIdentification).toBe(sent.messageIdentification);
    expect(delivered.debtorAccount.identification?.value).toBe(original.debtorAccount.identification?.value);
    // Amounts are exact decimals; the simulator reads them as decimal strings.
    expect(String(delivered.amounts.bankSettlementAmount.value)).toBe(
      String(original.amounts.bankSettlementAmount.value),
    );
    expect(delivered.amounts.bankSettlementAmount.currency).toBe(
      original.amounts.bankSettlementAmount.currency,
    );
    expect((await e2e.bank.requests({ route: 'inbound', uetr })).map((attempt) => attempt.answer)).toEqual([
      202,
    ]);

    // Steps 9-10: the actioning bank's PaymentStatusReport comes back and is answered 202.
    await e2e.waitForEvent(uetr, 'DEBIT_COMPLETED');
    const responses = await e2e.bank.messages('inboundDirectDebitResponse', uetr);
    expect(responses).toHaveLength(1);
    expect(responses[0]?.delivery).toMatchObject({ state: 'done', lastStatus: 202, attempts: 1 });
    expect(bodyOf<PaymentStatusReport>(responses[0]).status.status).toBe('ACSC');

    // Every state change posted once, in state order, numbered 1..9; the tracker's snapshot is final.
    const postings = (await e2e.bank.postings(uetr, bank)).filter(
      (entry) => entry.posting.class === 'TRANSACTION_STATE',
    );
    expect(postings.map((entry) => ('type' in entry.posting ? entry.posting.type : ''))).toEqual([
      ...completedDebitJourney,
    ]);
    expect(
      postings.map((entry) => ('stageVersion' in entry.posting ? entry.posting.stageVersion : 0)),
    ).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    const snapshot = await e2e.waitForTransaction(
      uetr,
      (found) => found.deliveryAttempts.length >= 4,
      'every delivery attempt recorded',
    );
    // The admin API has its event postings too: each one the bank got, delivered, with its attempts.
    const received = await e2e.bank.postings(uetr);
    const events = await waitUntil(async () => {
      const answer = (await (await e2e.admin('tracker', `/admin/transactions/${uetr}/events`)).json()) as {
        events: { eventId: string; memberId: string; outcome: string; attemptCount: number }[];
      };
      const delivered = answer.events.filter((event) => event.outcome === 'delivered');
      return delivered.length >= received.length ? delivered : undefined;
    }, 'every posting delivered in the delivery log');
    expect(events.map((event) => event.eventId).sort()).toEqual(
      received.map((posting) => posting.eventId).sort(),
    );
    expect(events.every((event) => event.memberId === bank && event.attemptCount >= 1)).toBe(true);
    expect(snapshot.state).toBe('DEBIT_COMPLETED');
    expect(snapshot.lastSeq).toBe(9);
    expect(snapshot.history.map((entry) => entry.eventType)).toEqual([...completedDebitJourney]);
    expect(snapshot.messages.map((message) => message.messageIdentification)).toEqual([
      sent.messageIdentification,
      reportId,
      responses[0]?.messageIdentification,
    ]);
    const toBank = (found: Snapshot, endpoint: string) =>
      found.deliveryAttempts
        .filter((attempt) => attempt.endpoint === endpoint)
        .map((attempt) => [attempt.messageIdentification, attempt.httpStatus]);
    expect(toBank(snapshot, 'outbound/direct-debit-response')).toEqual([
      [reportId, 503],
      [reportId, 503],
      [reportId, 202],
    ]);
    expect(toBank(snapshot, 'inbound/direct-debit')).toEqual([[sent.messageIdentification, 202]]);
    expect((await e2e.queue()).depth).toBe(queueBefore.depth);
  });

  it("an operator's CLI against the running pipeline: rp send, then rp dead-letters", async () => {
    await e2e.openDebitWindow();
    const out: string[] = [];
    const io: CommandIo = { out: (line) => out.push(line), err: (line) => out.push(line), env: {} };
    const url = e2e.pipeline.url('ingress');
    const token = (await e2e.pipeline.bankAuthorization('250655')).replace(/^Bearer /, '');
    const sendCode = await sendCommand(
      root,
      ['--count', '6', '--concurrency', '3', '--json', '--url', url, '--token', token],
      io,
    );
    expect(sendCode, out.join('\n')).toBe(0);
    const summary = JSON.parse(out.join('\n')) as SendSummary;
    expect(summary).toMatchObject({ sent: 6, accepted: 6, refused: {} });
    expect(summary.sampleUetrs).toHaveLength(5);
    for (const uetr of summary.sampleUetrs) await e2e.waitForEvent(uetr, 'DEBIT_COMPLETED');

    out.length = 0;
    // As a read-only operator: the token in RP_ADMIN_TOKEN, as an operator's shell has it.
    const reader = (await e2e.pipeline.operatorAuthorization('operator.read')).replace(/^Bearer /, '');
    const listCode = await deadLettersCommand(['--json', '--url', e2e.pipeline.url('tracker')], {
      ...io,
      env: { RP_ADMIN_TOKEN: reader },
    });
    expect(listCode, out.join('\n')).toBe(0);
    const { topics } = JSON.parse(out.join('\n')) as { topics: { topic: string; records: number }[] };
    // Every consumer group of this pipeline declared its dead-letter topic at start; a journey that went
    // through left nothing in them.
    const run = e2e.pipeline.run;
    for (const [service, topic] of [
      ['validator', 'rp.directdebit.received.v1'],
      ['scheduler', 'rp.directdebit.accepted.v1'],
      ['dispatcher', 'rp.directdebit.due.v1'],
      ['tracker', 'rp.transaction.state.v1'],
      ['event-publisher', 'rp.events.v1'],
    ]) {
      expect(topics.find((entry) => entry.topic === `${service}.${run}.${topic}.dlq`)).toMatchObject({
        records: 0,
      });
    }
  });

  it('answers the same debit sent again (same messageIdentification, same body) 202 and processes it once', async () => {
    await e2e.openDebitWindow();
    const before = await ingressOutcomes();
    const sample = sampleOnUsDebit(root);
    const send = () => e2e.post('outbound/direct-debit', sample.body);
    // Twice at the same moment (a bank whose first attempt timed out on its side), then once more.
    const answers = [...(await Promise.all([send(), send()])), await send()];
    expect(answers.map((answer) => answer.status)).toEqual([202, 202, 202]);
    const acknowledgements = (await Promise.all(answers.map((answer) => answer.json()))) as {
      uetr: string;
      messageIdentification: string;
      receivedAt: string;
    }[];
    for (const acknowledgement of acknowledgements) {
      expect(acknowledgement).toEqual(acknowledgements[0]);
    }
    expect(acknowledgements[0]).toMatchObject({
      uetr: sample.uetr,
      messageIdentification: sample.messageIdentification,
    });
    const after = await ingressOutcomes();
    expect(after.accepted - before.accepted).toBe(1);
    // A resend is answered from the idempotency record (replayed), produced again (reproduced), or, when
    // it arrives while the first attempt is still producing, answered with that attempt's outcome (joined).
    const resends = (counts: typeof before) => counts.replayed + counts.reproduced + counts.joined;
    expect(resends(after) - resends(before)).toBe(2);

    await e2e.waitForEvent(sample.uetr, 'DEBIT_COMPLETED');
    expect(await e2e.eventTypes(sample.uetr)).toEqual([...completedDebitJourney]);
    const [report] = await e2e.bank.messages('outboundDirectDebitResponse', sample.uetr);
    expect(report?.duplicates).toBe(0);
    expect(await e2e.bank.requests({ route: 'outbound', uetr: sample.uetr })).toHaveLength(1);
    const inbound = await e2e.bank.messages('inboundDirectDebit', sample.uetr);
    expect(inbound.map((message) => message.duplicates)).toEqual([0]);
    expect(await e2e.bank.messages('inboundDirectDebitResponse', sample.uetr)).toHaveLength(1);
    const snapshot = await e2e.transaction(sample.uetr);
    expect(snapshot?.history.map((entry) => entry.eventType)).toEqual([...completedDebitJourney]);
    expect(snapshot?.messages.filter((message) => message.kind === 'DirectDebit')).toHaveLength(1);
  });

  it('refuses the same messageIdentification with another body: 409 problem+json, the first one kept', async () => {
    const sample = sampleOnUsDebit(root, { amount: '250.00' });
    expect((await e2e.post('outbound/direct-debit', sample.body)).status).toBe(202);
    const altered = sampleOnUsDebit(root, {
      uetr: sample.uetr,
      messageIdentification: sample.messageIdentification,
      amount: '9250.00',
    });
    const conflict = await e2e.post('outbound/direct-debit', altered.body);
    expect(conflict.status).toBe(409);
    expect(conflict.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    const problem = (await conflict.json()) as Record<string, unknown>;
    expect(problem).toMatchObject({ type: '/problems/duplicate-message', status: 409 });
    expect(String(problem.title)).not.toBe('');
    expect(String(problem.detail)).toContain(sample.messageIdentification);

    // The first body is the one processed: its amount reaches the actioning bank.
    await e2e.openDebitWindow();
    await e2e.waitForEvent(sample.uetr, 'DEBIT_COMPLETED');
    const [inbound] = await e2e.bank.messages('inboundDirectDebit', sample.uetr);
    expect(String(bodyOf<DirectDebit>(inbound).amounts.bankSettlementAmount.value)).toBe('250');
    expect(await e2e.eventTypes(sample.uetr)).toEqual([...completedDebitJourney]);
  });

  describe('refuses what is not a DirectDebit, with problem+json, and records nothing', () => {
    const expectProblem = async (response: Response, status: number, type: string) => {
      expect(response.status).toBe(status);
      expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      const body = (await response.json()) as Record<string, unknown>;
      expect(body).toMatchObject({ type, status });
      expect(typeof body.title).toBe('string');
      return body;
    };

    it('400 for a broken JSON body', async () => {
      const before = await ingressOutcomes();
      const sample = sampleOnUsDebit(root);
      const broken = sample.body.slice(0, sample.body.length - 20);
      await expectProblem(await e2e.post('outbound/direct-debit', broken), 400, '/problems/malformed-json');
      expect((await ingressOutcomes()).malformed).toBe(before.malformed + 1);
      expect(await e2e.transaction(sample.uetr)).toBeNull();
    });

    it('415 for a body that is not application/json', async () => {
      const sample = sampleOnUsDebit(root);
      for (const contentType of ['text/plain', 'application/xml', 'application/json; charset=latin1']) {
        await expectProblem(
          await e2e.post('outbound/direct-debit', sample.body, { 'content-type': contentType }),
          415,
          '/problems/unsupported-media-type',
        );
      }
      expect(await e2e.transaction(sample.uetr)).toBeNull();
    });

    it('422 for JSON that is not a valid DirectDebit, naming every bad member', async () => {
      const sample = sampleOnUsDebit(root);
      const debit = JSON.parse(sample.body) as Record<string, unknown> & { amounts: Record<string, unknown> };
      delete debit.debtorAgent;
      debit.amounts = { ...debit.amounts, bankSettlementAmount: { value: 'lots', currency: 'ZAR' } };
      const body = await expectProblem(
        await e2e.post('outbound/direct-debit', JSON.stringify(debit)),
        422,
        '/problems/validation-failed',
      );
      const pointers = (body.errors as { pointer: string }[]).map((error) => error.pointer);
      expect(pointers.some((pointer) => pointer.startsWith('/debtorAgent'))).toBe(true);
      expect(pointers.some((pointer) => pointer.startsWith('/amounts/bankSettlementAmount'))).toBe(true);
      expect(await e2e.transaction(sample.uetr)).toBeNull();
    });
  });
});
