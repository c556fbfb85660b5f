import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  bankPaths,
  type CreditTransfer,
  type DirectDebit,
  deliveryHeaders,
  type EventPosting,
  type PaymentStatusReport,
  parseJsonExact,
  servicePaths,
  toJson,
  validate,
} from '@rp/contracts';
import { createLogger } from '@rp/runtime';
import { afterEach, describe, expect, it } from 'vitest';
import { BankSimulatorClient } from './client.ts';
import { type BankSimulator, type BankSimulatorConfig, createBankSimulator } from './service.ts';
import { signPosting } from './signature.ts';

const examples = new URL('../../../avro/examples/', import.meta.url);

function example<N extends 'DirectDebit' | 'EventPosting' | 'CreditTransfer'>(name: N, file: string) {
  const result = validate(name, parseJsonExact(readFileSync(new URL(file, examples), 'utf8')));
  if (!result.ok) throw new Error(`${file}: ${JSON.stringify(result.errors)}`);
  return result.value;
}

const debit = example('DirectDebit', 'DirectDebit.za-eft-on-us.json') as DirectDebit;
const posting = example('EventPosting', 'TransactionStatePosting.debit-queued.json') as EventPosting;
const credit = example('CreditTransfer', 'CreditTransfer.json') as CreditTransfer;
const postingUetr = '2f6c1e0a-8b4d-4c7e-9a1f-3d5b7c9e1a24';
const bank = '250655';
const logger = createLogger({ service: 'bank-simulator-test', level: 'silent' });

let running: BankSimulator[] = [];
const servers: Server[] = [];

afterEach(async () => {
  await Promise.all(running.map((simulator) => simulator.stop()));
  running = [];
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

async function start(config: BankSimulatorConfig = {}) {
  const simulator = createBankSimulator({ logger, ...config });
  await simulator.start();
  running.push(simulator);
  return { simulator, client: new BankSimulatorClient(simulator.url) };
}

function postEvent(
  simulator: BankSimulator,
  body: string,
  headers: Record<string, string> = {},
  memberId = bank,
) {
  return fetch(`${simulator.bankUrl(memberId)}/events`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body,
  });
}

function signedHeaders(
  secret: string,
  id: string,
  body: string,
  timestamp = String(Math.floor(Date.now() / 1000)),
) {
  return {
    [deliveryHeaders.id]: id,
    [deliveryHeaders.timestamp]: timestamp,
    [deliveryHeaders.signature]: signPosting(secret, id, timestamp, body),
  };
}

const postingBody = (stageVersion = 5) =>
  toJson('EventPosting', { ...posting, stageVersion } as EventPosting);

describe('bank routes', () => {
  it('stores event postings in arrival order and counts a redelivered event id once', async () => {
    const { simulator, client } = await start();
    expect((await postEvent(simulator, postingBody(5), { [deliveryHeaders.id]: 'evt-5' })).status).toBe(202);
    expect((await postEvent(simulator, postingBody(6), { [deliveryHeaders.id]: 'evt-6' })).status).toBe(202);
    const again = await postEvent(simulator, postingBody(5), { [deliveryHeaders.id]: 'evt-5' });
    expect(again.status).toBe(202);
    expect(await again.json()).toEqual({ eventId: 'evt-5', duplicate: true });

    const postings = await client.postings(postingUetr);
    expect(postings.map((entry) => entry.eventId)).toEqual(['evt-5', 'evt-6']);
    expect(
      postings.map((entry) => (entry.posting.class === 'TRANSACTION_STATE' ? entry.posting.stageVersion : 0)),
    ).toEqual([5, 6]);
    expect(postings[0]?.signatureVerified).toBe(false);
    const stats = await client.stats();
    expect(stats.duplicates).toBe(1);
    expect(stats.routes.events).toMatchObject({ received: 3, accepted: 2, duplicates: 1 });
    expect(stats.banks[bank]?.events.accepted).toBe(2);
    expect(stats.postingsByName).toEqual({ [(posting as { name: string }).name]: 2 });
  });

  it('counts a posting that arrives after a later stage of its transaction, and keeps the latest postings', async () => {
    const { simulator, client } = await start({ postingLogSize: 2 });
    for (const [stage, id] of [
      [5, 'evt-5'],
      [7, 'evt-7'],
      [6, 'evt-6'],
    ] as const) {
      expect((await postEvent(simulator, postingBody(stage), { [deliveryHeaders.id]: id })).status).toBe(202);
    }
    expect((await client.postings(postingUetr)).map((entry) => entry.eventId)).toEqual(['evt-7', 'evt-6']);
    expect(await client.stats()).toMatchObject({
      outOfOrder: 1,
      postingsKept: 2,
      routes: { events: { accepted: 3 } },
    });
    const metrics = await (await fetch(`${simulator.url}/metrics`)).text();
    expect(metrics).toMatch(/rp_banksim_postings_out_of_order_total\{[^}]*member_id="250655"[^}]*\} 1/);
  });

  it('refuses a posting that is not an EventPosting with 422 and malformed JSON with 400', async () => {
    const { simulator, client } = await start();
    expect((await postEvent(simulator, '{"class":"TRANSACTION_STATE"}')).status).toBe(422);
    expect((await postEvent(simulator, '{not json')).status).toBe(400);
    expect(await client.postings()).toEqual([]);
    expect((await client.stats()).routes.events.invalid).toBe(2);
  });

  it('waitForPostings answers as soon as the postings arrive and fails when they do not', async () => {
    const { simulator, client } = await start();
    const waiting = client.waitForPostings(postingUetr, 2, 10_000);
    await postEvent(simulator, postingBody(5), { [deliveryHeaders.id]: 'a' });
    await postEvent(simulator, postingBody(6), { [deliveryHeaders.id]: 'b' });
    expect((await waiting).map((entry) => entry.eventId)).toEqual(['a', 'b']);
    await expect(client.waitForPostings(postingUetr, 3, 200)).rejects.toThrow(/2 of 3 postings/);
  });

  it('stores outbound status reports and counts a resent one as a duplicate', async () => {
    const { simulator, client } = await start();
    const report = readFileSync(new URL('PaymentStatusReport.accp.json', examples), 'utf8');
    const send = () =>
      fetch(`${simulator.bankUrl(bank)}/outbound/direct-debit-response`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: report,
      });
    expect((await send()).status).toBe(202);
    expect((await send()).status).toBe(202);
    const messages = await client.messages('outboundDirectDebitResponse');
    expect(messages).toHaveLength(1);
    expect(messages[0]).toMatchObject({ memberId: bank, duplicates: 1 });
    expect((await client.stats()).routes.outbound).toMatchObject({ accepted: 1, duplicates: 1 });
  });

  it('keeps the latest messageLogSize messages, and counts every one', async () => {
    const { simulator, client } = await start({ messageLogSize: 1 });
    const report = JSON.parse(readFileSync(new URL('PaymentStatusReport.accp.json', examples), 'utf8'));
    for (const id of ['MSG-1', 'MSG-2']) {
      const body = JSON.stringify({
        ...report,
        messageIdentifiers: { ...report.messageIdentifiers, messageIdentification: id },
      });
      const response = await fetch(`${simulator.bankUrl(bank)}/outbound/direct-debit-response`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      });
      expect(response.status).toBe(202);
    }
    const messages = await client.messages('outboundDirectDebitResponse');
    expect(messages.map((message) => message.messageIdentification)).toEqual(['MSG-2']);
    expect(await client.stats()).toMatchObject({ messagesKept: 1, routes: { outbound: { accepted: 2 } } });
  });
});

describe('signatures', () => {
  const secrets = { [bank]: ['new-secret-0123456789', 'old-secret-0123456789'] };

  it('accepts a posting signed with any of the bank’s secrets (rotation)', async () => {
    const { simulator, client } = await start({ signingSecrets: secrets });
    const body = postingBody(5);
    expect(
      (await postEvent(simulator, body, signedHeaders('new-secret-0123456789', 'e1', body))).status,
    ).toBe(202);
    expect(
      (await postEvent(simulator, body, signedHeaders('old-secret-0123456789', 'e2', body))).status,
    ).toBe(202);
    const whsec = `whsec_${Buffer.from('raw-key-bytes').toString('base64')}`;
    const { simulator: other } = await start({ signingSecrets: { [bank]: [whsec] } });
    expect((await postEvent(other, body, signedHeaders(whsec, 'e3', body))).status).toBe(202);
    const postings = await client.postings(postingUetr);
    expect(postings.map((entry) => entry.signatureVerified)).toEqual([true, true]);
  });

  it('refuses a bad, a missing or a stale signature with 401 and counts it', async () => {
    const { simulator, client } = await start({ signingSecrets: secrets, signatureToleranceSeconds: 300 });
    const body = postingBody(5);
    const wrongKey = await postEvent(simulator, body, signedHeaders('another-secret-000000', 'e1', body));
    expect(wrongKey.status).toBe(401);
    const tampered = await postEvent(
      simulator,
      postingBody(6),
      signedHeaders('new-secret-0123456789', 'e2', body),
    );
    expect(tampered.status).toBe(401);
    expect((await postEvent(simulator, body)).status).toBe(401);
    const stale = String(Math.floor(Date.now() / 1000) - 3_600);
    expect(
      (await postEvent(simulator, body, signedHeaders('new-secret-0123456789', 'e3', body, stale))).status,
    ).toBe(401);
    expect(await client.postings()).toEqual([]);
    const stats = await client.stats();
    expect(stats.signatureFailures).toBe(4);
    expect(stats.banks[bank]?.events.signatureFailures).toBe(4);
  });

  it('lets postings to a bank without secrets through unsigned', async () => {
    const { simulator, client } = await start({ signingSecrets: secrets });
    expect((await postEvent(simulator, postingBody(5), {}, '470010')).status).toBe(202);
    expect(await client.postings(undefined, '470010')).toHaveLength(1);
  });
});

describe('faults', () => {
  it('answers the configured error a given number of times, then clears itself', async () => {
    const { simulator, client } = await start();
    await client.setFault({ mode: 'error', status: 503, retryAfterSeconds: 2, route: 'events', count: 2 });
    const first = await postEvent(simulator, postingBody(5), { [deliveryHeaders.id]: 'x' });
    expect(first.status).toBe(503);
    expect(first.headers.get('retry-after')).toBe('2');
    expect((await postEvent(simulator, postingBody(5), { [deliveryHeaders.id]: 'x' })).status).toBe(503);
    expect((await postEvent(simulator, postingBody(5), { [deliveryHeaders.id]: 'x' })).status).toBe(202);
    expect((await client.stats()).routes.events.faultsInjected).toBe(2);
  });

  it('scopes a fault to one bank and one route', async () => {
    const { simulator, client } = await start();
    await client.setFault({ mode: 'error', status: 500, memberId: bank, route: 'events' });
    expect((await postEvent(simulator, postingBody(5), {}, bank)).status).toBe(500);
    expect((await postEvent(simulator, postingBody(5), {}, '470010')).status).toBe(202);
    const report = readFileSync(new URL('PaymentStatusReport.accp.json', examples), 'utf8');
    const outbound = await fetch(`${simulator.bankUrl(bank)}/outbound/direct-debit-response`, {
      method: 'POST',
      body: report,
    });
    expect(outbound.status).toBe(202);
    await client.clearFaults();
    expect((await postEvent(simulator, postingBody(5), {}, bank)).status).toBe(202);
  });

  it('applies an error rate: 0 never fails, 1 always does', async () => {
    const { simulator, client } = await start();
    await client.setFault({ mode: 'error', rate: 0 });
    expect((await postEvent(simulator, postingBody(5), { [deliveryHeaders.id]: 'r0' })).status).toBe(202);
    await client.setFault({ mode: 'error', rate: 1, status: 429 });
    expect((await postEvent(simulator, postingBody(5), { [deliveryHeaders.id]: 'r1' })).status).toBe(429);
  });

  it('drops the connection without an answer', async () => {
    const { simulator, client } = await start();
    await client.setFault({ mode: 'drop', count: 1 });
    await expect(postEvent(simulator, postingBody(5))).rejects.toThrow();
    expect((await postEvent(simulator, postingBody(5))).status).toBe(202);
  });

  it('delays the answer', async () => {
    const { simulator, client } = await start();
    await client.setFault({ mode: 'delay', ms: 300 });
    const started = performance.now();
    expect((await postEvent(simulator, postingBody(5))).status).toBe(202);
    expect(performance.now() - started).toBeGreaterThanOrEqual(290);
  });

  it('never answers in no-response mode: the client gives up', async () => {
    const { simulator, client } = await start();
    await client.setFault({ mode: 'no-response', route: 'inbound' });
    const call = fetch(`${simulator.bankUrl(bank)}/inbound/direct-debit`, {
      method: 'POST',
      body: toJson('DirectDebit', debit),
      signal: AbortSignal.timeout(300),
    });
    await expect(call).rejects.toThrow(/timeout|abort/i);
    expect(await client.messages('inboundDirectDebit')).toEqual([]);
  });

  it('targets one transaction: requests about other UETRs pass', async () => {
    const { simulator, client } = await start();
    const uetr = debit.transactionIdentifiers.uetr;
    const other: DirectDebit = {
      ...debit,
      messageIdentifiers: { ...debit.messageIdentifiers, messageIdentification: 'OTHER0000000000000001' },
      transactionIdentifiers: {
        ...debit.transactionIdentifiers,
        uetr: '0f6c1e0a-8b4d-4c7e-9a1f-3d5b7c9e1a77',
      },
    };
    await client.setFault({ mode: 'error', status: 503, route: 'inbound', uetr });
    const post = (body: DirectDebit) =>
      fetch(`${simulator.bankUrl(bank)}/inbound/direct-debit`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: toJson('DirectDebit', body),
      });
    expect((await post(other)).status).toBe(202);
    expect((await post(debit)).status).toBe(503);
    expect((await client.messages('inboundDirectDebit')).map((message) => message.uetr)).toEqual([
      other.transactionIdentifiers.uetr,
    ]);
    // A posting is matched by the UETR it is about.
    await client.setFault({ mode: 'error', status: 500, route: 'events', uetr: postingUetr });
    expect((await postEvent(simulator, postingBody(5))).status).toBe(500);
  });

  it('logs every request to the message routes with its answer, faulted or not', async () => {
    const { simulator, client } = await start();
    const uetr = debit.transactionIdentifiers.uetr;
    const id = debit.messageIdentifiers.messageIdentification;
    await client.setFault({ mode: 'error', status: 503, route: 'inbound', uetr, count: 1 });
    await client.setFault({ mode: 'drop', route: 'inbound', uetr, count: 1 });
    const post = () =>
      fetch(`${simulator.bankUrl(bank)}/inbound/direct-debit`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', [deliveryHeaders.id]: id },
        body: toJson('DirectDebit', debit),
      });
    await expect(post()).rejects.toThrow();
    expect((await post()).status).toBe(503);
    expect((await post()).status).toBe(202);
    expect((await post()).status).toBe(202);
    const requests = await client.requests({ route: 'inbound', uetr });
    expect(requests.map((request) => request.answer)).toEqual(['dropped', 503, 202, 202]);
    expect(requests.map((request) => request.fault)).toEqual(['drop', 'error', undefined, undefined]);
    expect(new Set(requests.map((request) => request.messageIdentification))).toEqual(new Set([id]));
    expect(new Set(requests.map((request) => request.webhookId))).toEqual(new Set([id]));
    expect(await client.requests({ route: 'outbound' })).toEqual([]);
    const [stored] = await client.messages('inboundDirectDebit', uetr);
    expect(stored?.duplicates).toBe(1);
  });

  it('keeps only the latest requests in the log', async () => {
    const { simulator, client } = await start({ requestLogSize: 2 });
    for (let index = 0; index < 3; index += 1) {
      await fetch(`${simulator.bankUrl(bank)}/inbound/direct-debit`, { method: 'POST', body: '{bad' });
    }
    const requests = await client.requests();
    expect(requests.map((request) => [request.seq, request.answer])).toEqual([
      [2, 400],
      [3, 400],
    ]);
  });

  it('accepts no-report on the inbound and credit routes only (inbound when no route is named)', async () => {
    const { client } = await start();
    await expect(client.setFault({ mode: 'no-report', route: 'outbound' })).rejects.toThrow(/422/);
    await expect(client.setFault({ mode: 'no-report', route: '*' })).rejects.toThrow(/422/);
    await client.setFault({ mode: 'no-report' });
    await client.setFault({ mode: 'no-report', route: 'credit' });
    expect(await client.listFaults()).toEqual([
      { mode: 'no-report', route: 'inbound' },
      { mode: 'no-report', route: 'credit' },
    ]);
  });

  it('refuses an invalid fault rule with 422', async () => {
    const { simulator } = await start();
    const response = await fetch(`${simulator.url}/sim/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ mode: 'error', rate: 2 }),
    });
    expect(response.status).toBe(422);
  });

  it('reset forgets postings, messages, stats and faults', async () => {
    const { simulator, client } = await start();
    await postEvent(simulator, postingBody(5));
    await client.setFault({ mode: 'error', route: 'outbound' });
    await client.reset();
    expect(await client.postings()).toEqual([]);
    expect((await client.stats()).routes.events.received).toBe(0);
    const report = readFileSync(new URL('PaymentStatusReport.accp.json', examples), 'utf8');
    const outbound = await fetch(`${simulator.bankUrl(bank)}/outbound/direct-debit-response`, {
      method: 'POST',
      body: report,
    });
    expect(outbound.status).toBe(202);
  });
});

const reportPaths: readonly string[] = [
  servicePaths.inboundDirectDebitResponse,
  servicePaths.inboundCreditTransferAuthorizationResponse,
];

/**
 * A stand-in for the engine's ingress: answers the banks' reports with the statuses given, then 202
 * (anything else 404), and keeps every request.
 */
async function fakeIngress(statuses: number[]) {
  const bodies: string[] = [];
  const requests: { path: string; status: number; body: string }[] = [];
  const waiters = new Set<() => void>();
  const server = createServer((request: IncomingMessage, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const path = request.url ?? '';
      const status = reportPaths.includes(path) ? (statuses.shift() ?? 202) : 404;
      const body = Buffer.concat(chunks).toString('utf8');
      bodies.push(body);
      requests.push({ path, status, body });
      response.writeHead(status, status === 503 ? { 'retry-after': '0' } : {}).end();
      for (const check of [...waiters]) check();
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  /** Resolves once the engine acknowledged (202 or 409) `count` reports. */
  const acknowledgedCount = (count: number) =>
    new Promise<void>((resolve) => {
      const check = () => {
        if (requests.filter((entry) => entry.status === 202 || entry.status === 409).length < count) return;
        waiters.delete(check);
        resolve();
      };
      waiters.add(check);
      check();
    });
  return { url, bodies, requests, acknowledged: acknowledgedCount(1), acknowledgedCount };
}

function parseReport(body: string): PaymentStatusReport {
  const report = validate('PaymentStatusReport', parseJsonExact(body));
  if (!report.ok) throw new Error(JSON.stringify(report.errors));
  return report.value;
}

describe('inbound debits', () => {
  const retry = { initialDelayMs: 10, maxDelayMs: 50 };

  const sendDebit = (simulator: BankSimulator, body: DirectDebit = debit) =>
    fetch(`${simulator.bankUrl(bank)}/inbound/direct-debit`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: toJson('DirectDebit', body),
    });

  it('answers ACSC to the engine, retrying 503 until the engine answers 202', async () => {
    const ingress = await fakeIngress([503, 503]);
    const { simulator, client } = await start({ engineUrl: ingress.url, responseDelayMs: 5, retry });
    expect((await sendDebit(simulator)).status).toBe(202);
    await ingress.acknowledged;
    expect(ingress.bodies).toHaveLength(3);
    expect(new Set(ingress.bodies).size).toBe(1);
    const report = validate('PaymentStatusReport', parseJsonExact(ingress.bodies[0] as string));
    if (!report.ok) throw new Error(JSON.stringify(report.errors));
    expect(report.value.status.status).toBe('ACSC');
    expect(report.value.transactionIdentifiers.uetr).toBe(debit.transactionIdentifiers.uetr);
    expect(report.value.originalMessageIdentifiers).toEqual(debit.messageIdentifiers);
    expect(report.value.instructingAgent?.memberId).toBe(bank);
    expect(report.value.messageIdentifiers.messageIdentification).toHaveLength(35);

    const [sent] = await client.messages('inboundDirectDebitResponse', debit.transactionIdentifiers.uetr);
    expect(sent?.delivery).toMatchObject({ attempts: 3, lastStatus: 202, state: 'done' });
    expect((await client.messages('inboundDirectDebit')).map((message) => message.uetr)).toEqual([
      debit.transactionIdentifiers.uetr,
    ]);
    expect((await client.stats()).responses).toMatchObject({
      sent: 1,
      attempts: 3,
      acknowledged: 1,
      pending: 0,
    });
  });

  it('answers RJCT AM04 for an insufficient-funds debtor account, and treats 409 as done', async () => {
    const ingress = await fakeIngress([409]);
    const account = debit.paymentScheme.schemeData?.shortenedDebtorAccountNumber as string;
    const { simulator, client } = await start({
      engineUrl: ingress.url,
      responseDelayMs: 5,
      retry,
      insufficientFundsAccounts: [account],
    });
    expect((await sendDebit(simulator)).status).toBe(202);
    await ingress.acknowledged;
    const report = validate('PaymentStatusReport', parseJsonExact(ingress.bodies[0] as string));
    if (!report.ok) throw new Error(JSON.stringify(report.errors));
    expect(report.value.status).toEqual({
      status: 'RJCT',
      reasonInfo: [{ reason: { code: 'AM04' }, additionalInfo: ['Insufficient funds'] }],
    });
    const [sent] = await client.messages('inboundDirectDebitResponse');
    expect(sent?.delivery).toMatchObject({ attempts: 1, lastStatus: 409, state: 'done' });
  });

  it('acknowledges an inbound debit but never reports on it under a no-report fault', async () => {
    const ingress = await fakeIngress([]);
    const { simulator, client } = await start({ engineUrl: ingress.url, responseDelayMs: 5, retry });
    const uetr = debit.transactionIdentifiers.uetr;
    await client.setFault({ mode: 'no-report', route: 'inbound', uetr });
    expect((await sendDebit(simulator)).status).toBe(202);
    const second: DirectDebit = {
      ...debit,
      messageIdentifiers: { ...debit.messageIdentifiers, messageIdentification: 'FNB20250314093000000098' },
      transactionIdentifiers: {
        ...debit.transactionIdentifiers,
        uetr: '0f6c1e0a-8b4d-4c7e-9a1f-3d5b7c9e1a98',
      },
    };
    expect((await sendDebit(simulator, second)).status).toBe(202);
    // The other debit's report arrives; by then the first one's would have been sent long before.
    await ingress.acknowledged;
    expect(ingress.bodies).toHaveLength(1);
    expect(JSON.parse(ingress.bodies[0] as string).transactionIdentifiers.uetr).toBe(
      second.transactionIdentifiers.uetr,
    );
    expect(await client.messages('inboundDirectDebitResponse', uetr)).toEqual([]);
    expect(await client.messages('inboundDirectDebit', uetr)).toHaveLength(1);
    const [request] = await client.requests({ uetr });
    expect(request).toMatchObject({ answer: 202, fault: 'no-report' });
    expect((await client.stats()).routes.inbound.faultsInjected).toBe(1);
  });

  it('answers a resent inbound debit once and gives each report its own identification', async () => {
    const ingress = await fakeIngress([]);
    const { simulator, client } = await start({ engineUrl: ingress.url, responseDelayMs: 5, retry });
    expect((await sendDebit(simulator)).status).toBe(202);
    expect((await sendDebit(simulator)).status).toBe(202);
    await ingress.acknowledged;
    const second: DirectDebit = {
      ...debit,
      messageIdentifiers: { ...debit.messageIdentifiers, messageIdentification: 'FNB20250314093000000099' },
      transactionIdentifiers: {
        ...debit.transactionIdentifiers,
        uetr: '0f6c1e0a-8b4d-4c7e-9a1f-3d5b7c9e1a99',
      },
    };
    expect((await sendDebit(simulator, second)).status).toBe(202);
    const stats = await client.stats();
    expect(stats.routes.inbound).toMatchObject({ accepted: 2, duplicates: 1 });
    const waited = await simulator.records.waitFor(() => {
      const sent = simulator.records.messages({ kind: 'inboundDirectDebitResponse' });
      return sent.length === 2 && sent.every((message) => message.delivery?.state === 'done')
        ? sent
        : undefined;
    }, 5_000);
    expect(new Set(waited?.map((message) => message.messageIdentification)).size).toBe(2);
  });
});

describe('credit transfer authorisations', () => {
  const retry = { initialDelayMs: 10, maxDelayMs: 50 };
  const secret = 'credit-secret-0123456789';
  const signingSecrets = { [bank]: [secret] };
  const uetr = credit.transactionIdentifiers.uetr;
  const id = credit.messageIdentifiers.messageIdentification;
  const reportPath = servicePaths.inboundCreditTransferAuthorizationResponse;
  const creditorAccount = credit.creditorAccount.identification.value;

  /** Another credit of the same shape: its own message, its own transaction, to `account`. */
  const otherCredit = (suffix: string, account = creditorAccount): CreditTransfer => ({
    ...credit,
    messageIdentifiers: {
      ...credit.messageIdentifiers,
      messageIdentification: `RTC202503141015000000${suffix}`,
    },
    transactionIdentifiers: {
      ...credit.transactionIdentifiers,
      uetr: `7d0b2c6e-1f3a-4e5b-8c9d-0a1b2c3d4e${suffix}`,
    },
    creditorAccount: {
      ...credit.creditorAccount,
      identification: { ...credit.creditorAccount.identification, value: account },
    },
  });

  const post = (simulator: BankSimulator, body: string, headers: Record<string, string>) =>
    fetch(`${simulator.bankUrl(bank)}${bankPaths.inboundCreditTransferAuthorization}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body,
    });

  /** The credit as the engine delivers it: signed, webhook-id its messageIdentification. */
  const sendCredit = (simulator: BankSimulator, body: CreditTransfer = credit) => {
    const text = toJson('CreditTransfer', body);
    return post(simulator, text, signedHeaders(secret, body.messageIdentifiers.messageIdentification, text));
  };

  it('acknowledges a signed credit, then reports ACSC to the engine, resent until it answers 202', async () => {
    const ingress = await fakeIngress([503]);
    const { simulator, client } = await start({
      engineUrl: ingress.url,
      responseDelayMs: 5,
      retry,
      signingSecrets,
    });
    const response = await sendCredit(simulator);
    expect(response.status).toBe(202);
    expect(await response.json()).toEqual({ messageIdentification: id });
    await ingress.acknowledged;
    expect(ingress.requests.map((entry) => [entry.path, entry.status])).toEqual([
      [reportPath, 503],
      [reportPath, 202],
    ]);
    expect(new Set(ingress.bodies).size).toBe(1);
    // The amount reaches the engine to the cent, as a JSON number.
    expect(ingress.bodies[0]).toContain('"value":1234567890123.45');
    const report = parseReport(ingress.bodies[0] as string);
    expect(report.status).toEqual({ status: 'ACSC' });
    expect(report.transactionIdentifiers).toEqual(credit.transactionIdentifiers);
    expect(report.originalMessageIdentifiers).toEqual(credit.messageIdentifiers);
    expect(report.instructingAgent).toEqual(credit.creditorAgent);
    expect(report.instructingAgent?.memberId).toBe(bank);
    expect(report.instructedAgent).toEqual(credit.debtorAgent);
    expect(report.paymentScheme).toEqual(credit.paymentScheme);
    expect(report.originalTransactionData).toEqual({
      amounts: credit.amounts,
      creditor: credit.creditor,
      creditorAccount: credit.creditorAccount,
      creditorAgent: credit.creditorAgent,
      debtor: credit.debtor,
      debtorAccount: credit.debtorAccount,
      debtorAgent: credit.debtorAgent,
      paymentMethod: 'CreditTransfer',
      paymentTypeInformation: credit.paymentTypeInformation,
    });
    expect(report.messageIdentifiers.messageIdentification).toHaveLength(35);
    expect(report.messageIdentifiers.messageIdentification).not.toBe(id);

    const sent = await simulator.records.waitFor(() => {
      const [message] = simulator.records.messages({
        kind: 'inboundCreditTransferAuthorizationResponse',
        uetr,
      });
      return message?.delivery?.state === 'done' ? message : undefined;
    }, 5_000);
    expect(sent?.delivery).toMatchObject({ attempts: 2, lastStatus: 202, state: 'done' });
    expect(await client.messages('inboundCreditTransferAuthorization', uetr)).toMatchObject([
      { memberId: bank, messageIdentification: id, signatureVerified: true, duplicates: 0 },
    ]);
    expect(await client.messages('inboundDirectDebitResponse')).toEqual([]);
    expect(await client.requests({ route: 'credit', uetr })).toMatchObject([
      { route: 'credit', memberId: bank, messageIdentification: id, webhookId: id, answer: 202 },
    ]);
    const stats = await client.stats();
    expect(stats.routes.credit).toMatchObject({ received: 1, accepted: 1, duplicates: 0 });
    expect(stats.routes.inbound.received).toBe(0);
    expect(stats.responses).toMatchObject({ sent: 1, attempts: 2, acknowledged: 1, pending: 0 });
  });

  it('answers RJCT AC04 for a closed creditor account, and credits the others', async () => {
    const ingress = await fakeIngress([]);
    const open = otherCredit('01', '62000000047');
    const { simulator } = await start({
      engineUrl: ingress.url,
      responseDelayMs: 5,
      retry,
      signingSecrets,
      closedAccounts: [creditorAccount],
      // Insufficient funds concern debits: a credit to such an account is still credited.
      insufficientFundsAccounts: ['62000000047'],
    });
    expect((await sendCredit(simulator)).status).toBe(202);
    expect((await sendCredit(simulator, open)).status).toBe(202);
    await ingress.acknowledgedCount(2);
    const statuses = new Map(
      ingress.bodies.map((body) => {
        const report = parseReport(body);
        return [report.transactionIdentifiers.uetr, report.status];
      }),
    );
    expect(statuses).toEqual(
      new Map([
        [
          uetr,
          { status: 'RJCT', reasonInfo: [{ reason: { code: 'AC04' }, additionalInfo: ['Account closed'] }] },
        ],
        [open.transactionIdentifiers.uetr, { status: 'ACSC' }],
      ]),
    );
  });

  it('refuses an unsigned, a badly signed or a stale credit with 401, stores and answers none', async () => {
    const ingress = await fakeIngress([]);
    const { simulator, client } = await start({
      engineUrl: ingress.url,
      responseDelayMs: 5,
      retry,
      signingSecrets,
      signatureToleranceSeconds: 300,
    });
    const text = toJson('CreditTransfer', credit);
    const stale = String(Math.floor(Date.now() / 1000) - 3_600);
    const refused = [
      await post(simulator, text, {}),
      await post(simulator, text, signedHeaders('another-secret-000000', id, text)),
      await post(simulator, text, signedHeaders(secret, id, toJson('CreditTransfer', otherCredit('02')))),
      await post(simulator, text, signedHeaders(secret, id, text, stale)),
    ];
    expect(refused.map((response) => response.status)).toEqual([401, 401, 401, 401]);
    expect(await client.messages('inboundCreditTransferAuthorization')).toEqual([]);
    expect((await client.requests({ route: 'credit', uetr })).map((request) => request.answer)).toEqual([
      401, 401, 401, 401,
    ]);
    const stats = await client.stats();
    expect(stats.signatureFailures).toBe(4);
    expect(stats.banks[bank]?.credit).toMatchObject({ received: 4, signatureFailures: 4, accepted: 0 });

    // Signed but not a CreditTransfer: the signature passes, the body does not.
    const notCredit = toJson('DirectDebit', debit);
    expect((await post(simulator, notCredit, signedHeaders(secret, 'dd', notCredit))).status).toBe(422);
    expect((await client.stats()).routes.credit.invalid).toBe(1);

    // A good credit after them: its report is the only one the engine gets.
    const good = otherCredit('03');
    expect((await sendCredit(simulator, good)).status).toBe(202);
    await ingress.acknowledged;
    expect(ingress.bodies.map((body) => parseReport(body).transactionIdentifiers.uetr)).toEqual([
      good.transactionIdentifiers.uetr,
    ]);

    // A bank without secrets takes credits unsigned, and says it did not check them.
    const { simulator: unsigned, client: unsignedClient } = await start();
    expect((await post(unsigned, text, {})).status).toBe(202);
    expect(await unsignedClient.messages('inboundCreditTransferAuthorization')).toMatchObject([
      { messageIdentification: id, signatureVerified: false },
    ]);
  });

  it('acknowledges a redelivered credit again but answers it once', async () => {
    const ingress = await fakeIngress([]);
    const { simulator, client } = await start({
      engineUrl: ingress.url,
      responseDelayMs: 5,
      retry,
      signingSecrets,
    });
    const text = toJson('CreditTransfer', credit);
    const now = Math.floor(Date.now() / 1000);
    // The engine signs each attempt afresh: same webhook-id, a later timestamp.
    const first = await post(simulator, text, signedHeaders(secret, id, text, String(now)));
    const again = await post(simulator, text, signedHeaders(secret, id, text, String(now + 1)));
    expect([first.status, again.status]).toEqual([202, 202]);
    expect(await again.json()).toEqual({ messageIdentification: id });
    // A later credit's report arriving means the redelivery's would have been sent before it.
    const later = otherCredit('04');
    expect((await sendCredit(simulator, later)).status).toBe(202);
    await ingress.acknowledgedCount(2);
    expect(ingress.bodies.map((body) => parseReport(body).transactionIdentifiers.uetr).sort()).toEqual(
      [uetr, later.transactionIdentifiers.uetr].sort(),
    );
    expect(await client.messages('inboundCreditTransferAuthorization', uetr)).toMatchObject([
      { messageIdentification: id, duplicates: 1 },
    ]);
    expect(await client.messages('inboundCreditTransferAuthorizationResponse', uetr)).toHaveLength(1);
    expect((await client.requests({ route: 'credit', uetr })).map((request) => request.webhookId)).toEqual([
      id,
      id,
    ]);
    expect((await client.stats()).routes.credit).toMatchObject({ received: 3, accepted: 2, duplicates: 1 });
  });

  it('applies faults set for the credit route, and only those', async () => {
    const ingress = await fakeIngress([]);
    const { simulator, client } = await start({ engineUrl: ingress.url, responseDelayMs: 5, retry });
    const silent = otherCredit('05');
    const silentUetr = silent.transactionIdentifiers.uetr;
    // Faults on the other routes leave credits alone.
    await client.setFault({ mode: 'error', status: 500, route: 'inbound' });
    await client.setFault({ mode: 'drop', route: 'events' });
    await client.setFault({ mode: 'no-report', route: 'credit', uetr: silentUetr });
    await client.setFault({ mode: 'error', status: 503, route: 'credit', uetr, count: 1 });
    await client.setFault({ mode: 'drop', route: 'credit', uetr, count: 1 });

    expect((await sendCredit(simulator, silent)).status).toBe(202);
    await expect(sendCredit(simulator)).rejects.toThrow();
    expect((await sendCredit(simulator)).status).toBe(503);
    expect((await sendCredit(simulator)).status).toBe(202);
    await ingress.acknowledged;
    // The silent credit came first: its report would have arrived before this one.
    expect(ingress.bodies.map((body) => parseReport(body).transactionIdentifiers.uetr)).toEqual([uetr]);

    expect((await client.requests({ route: 'credit', uetr })).map((r) => [r.fault, r.answer])).toEqual([
      ['drop', 'dropped'],
      ['error', 503],
      [undefined, 202],
    ]);
    expect(await client.requests({ route: 'credit', uetr: silentUetr })).toMatchObject([
      { fault: 'no-report', answer: 202 },
    ]);
    expect(
      (await client.messages('inboundCreditTransferAuthorization')).map((message) => message.uetr),
    ).toEqual([silentUetr, uetr]);
    expect(await client.messages('inboundCreditTransferAuthorizationResponse', silentUetr)).toEqual([]);
    expect((await client.stats()).routes.credit).toMatchObject({ faultsInjected: 3, accepted: 2 });
  });
});
