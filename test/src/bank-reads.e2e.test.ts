import { randomUUID } from 'node:crypto';
import { completedDebitJourney } from '@rp/contracts';
import { defaultBank, type SimulatedBank, sampleOnUsDebit } from '@rp/launcher';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EndToEnd, forgedToken, root, startEndToEnd } from './pipeline.ts';

// A bank reads the status of a transaction it is party to (GET /api/v1/transactions/{uetr}) with its
// access token from the identity provider the simulator plays; of any other transaction it learns
// nothing, not even that it exists.

const bankA = defaultBank.memberId;
/** The actioning bank of a debit bank A sends on one of its accounts. */
const bankB: SimulatedBank = { memberId: '198765', name: 'Bank B (synthetic)' };
/** A third participant, party to none of bank A's transactions. */
const bankC: SimulatedBank = { memberId: '470010', name: 'Bank C (synthetic)' };

let e2e: EndToEnd;
beforeAll(async () => {
  e2e = await startEndToEnd({ banks: [defaultBank, bankB, bankC] });
});
afterAll(async () => {
  await e2e?.stop();
});

interface TransactionStatus {
  uetr: string;
  transactionType: string;
  state: string;
  final: boolean;
  debtorAgentMemberId?: string;
  creditorAgentMemberId?: string;
  amount: { value: number; currency: string };
  history: { seq: number; state: string; eventType: string; at: string }[];
}

/** GET the transaction with `authorization` as it is (undefined: none). */
function readWith(uetr: string, authorization: string | undefined): Promise<Response> {
  return fetch(`${e2e.pipeline.apiUrl}/transactions/${uetr}`, {
    headers: authorization === undefined ? {} : { authorization },
  });
}

/** GET the transaction as `memberId`, with the bank's own token (client credentials grant). */
async function readAs(memberId: string, uetr: string): Promise<Response> {
  return readWith(uetr, await e2e.pipeline.bankAuthorization(memberId));
}

async function statusAs(memberId: string, uetr: string): Promise<TransactionStatus> {
  const response = await readAs(memberId, uetr);
  const text = await response.text();
  expect(response.status, `${memberId} reading ${uetr}: ${text}`).toBe(200);
  expect(response.headers.get('content-type')).toBe('application/json');
  return JSON.parse(text) as TransactionStatus;
}

/** Sends a debit as the bank its instructing agent names (the harness takes that bank's token). */
async function send(body: string): Promise<void> {
  const response = await e2e.post('outbound/direct-debit', body);
  expect(response.status, await response.clone().text()).toBe(202);
}

/** Waits until the tracker has recorded the transaction (its snapshot exists). */
async function recorded(uetr: string): Promise<void> {
  await e2e.waitForTransaction(uetr, (snapshot) => typeof snapshot.state === 'string', 'recorded');
}

function expectInOrder(status: TransactionStatus): void {
  expect(status.history.length).toBeGreaterThan(0);
  expect(status.history.map((step) => step.seq)).toEqual(status.history.map((_, index) => index + 1));
  const times = status.history.map((step) => Date.parse(step.at));
  expect(times).toEqual([...times].sort((a, b) => a - b));
  expect(status.history.at(-1)?.state).toBe(status.state);
}

/** A token straight from the provider's test route: claims a client could not get by the grant. */
async function minted(body: { clientId: string; audience?: string; expiresInSeconds?: number }) {
  const response = await fetch(`${e2e.pipeline.url('bank-simulator')}/sim/oauth2/tokens`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return ((await response.json()) as { access_token: string }).access_token;
}

/** The same answer but for the UETR asked about. */
async function sameAnswer(first: [Response, string], second: [Response, string]): Promise<void> {
  const [a, b] = await Promise.all([first[0].text(), second[0].text()]);
  expect(first[0].status).toBe(second[0].status);
  expect(a.replaceAll(first[1], '{uetr}')).toBe(b.replaceAll(second[1], '{uetr}'));
}

describe('a bank reads the transactions it is party to, and only those, end to end', () => {
  it('bank A follows its on-us debit from its first state to DEBIT_COMPLETED, its history in order', async () => {
    const sample = sampleOnUsDebit(root, { amount: '1500.25' });
    await send(sample.body);
    await recorded(sample.uetr);

    const early = await statusAs(bankA, sample.uetr);
    expect(early).toMatchObject({
      uetr: sample.uetr,
      transactionType: 'DIRECT_DEBIT',
      debtorAgentMemberId: bankA,
      creditorAgentMemberId: bankA,
      amount: { value: 1500.25, currency: 'ZAR' },
    });
    expect(early.history[0]).toMatchObject({ seq: 1, eventType: 'DEBIT_REQUEST_RECEIVED' });
    expectInOrder(early);

    await e2e.openDebitWindow();
    await e2e.waitForEvent(sample.uetr, 'DEBIT_COMPLETED');
    await e2e.waitForTransaction(
      sample.uetr,
      (snapshot) => snapshot.state === 'DEBIT_COMPLETED',
      'completed',
    );
    const done = await statusAs(bankA, sample.uetr);
    expect(done).toMatchObject({ state: 'DEBIT_COMPLETED', final: true });
    expect(done.history.map((step) => step.eventType)).toEqual([...completedDebitJourney]);
    expectInOrder(done);
  });

  it('bank A reads its debit straight after the 202, without waiting for the tracker to record it', async () => {
    const sample = sampleOnUsDebit(root);
    await send(sample.body);
    const status = await statusAs(bankA, sample.uetr);
    expect(status).toMatchObject({ uetr: sample.uetr, transactionType: 'DIRECT_DEBIT', final: false });
    expect(status.history[0]).toMatchObject({ seq: 1, eventType: 'DEBIT_REQUEST_RECEIVED' });
    expectInOrder(status);
  });

  it('both banks of a debit read it; a bank that is no party gets the answer of a UETR that does not exist', async () => {
    // Bank A collects from its customer's debtor, whose account is at bank B (the actioning bank).
    const sample = sampleOnUsDebit(root);
    const debit = JSON.parse(sample.body) as Record<string, Record<string, unknown>>;
    debit.debtorAgent = { ...debit.debtorAgent, memberId: bankB.memberId };
    debit.instructedAgent = { memberId: bankB.memberId };
    await send(JSON.stringify(debit));
    await recorded(sample.uetr);

    for (const bank of [bankA, bankB.memberId]) {
      const status = await statusAs(bank, sample.uetr);
      expect(status, bank).toMatchObject({
        uetr: sample.uetr,
        creditorAgentMemberId: bankA,
        debtorAgentMemberId: bankB.memberId,
      });
      expectInOrder(status);
    }
    const unknown = randomUUID();
    const [theirs, none] = await Promise.all([
      readAs(bankC.memberId, sample.uetr),
      readAs(bankC.memberId, unknown),
    ]);
    expect(theirs.status).toBe(404);
    expect(theirs.headers.get('content-type')).toBe('application/problem+json');
    await sameAnswer([theirs, sample.uetr], [none, unknown]);
  });

  it("bank A reading bank C's transaction gets 404, the answer of a UETR that does not exist", async () => {
    // An on-us debit of bank C's own: its customers on both sides, sent by bank C.
    const sample = sampleOnUsDebit(root);
    const debit = JSON.parse(sample.body) as Record<string, Record<string, unknown>>;
    debit.creditorAgent = { ...debit.creditorAgent, memberId: bankC.memberId };
    debit.debtorAgent = { ...debit.debtorAgent, memberId: bankC.memberId };
    debit.instructingAgent = { memberId: bankC.memberId };
    debit.instructedAgent = { memberId: bankC.memberId };
    await send(JSON.stringify(debit));
    await recorded(sample.uetr);

    expect((await statusAs(bankC.memberId, sample.uetr)).uetr).toBe(sample.uetr);
    const unknown = randomUUID();
    const [theirs, none] = await Promise.all([readAs(bankA, sample.uetr), readAs(bankA, unknown)]);
    expect(theirs.status).toBe(404);
    expect(((await theirs.clone().json()) as { type: string }).type).toBe('/problems/not-found');
    await sameAnswer([theirs, sample.uetr], [none, unknown]);
  });

  it('refuses a read without a good token of a participant, for a transaction the bank is party to', async () => {
    const sample = sampleOnUsDebit(root);
    await send(sample.body);
    await recorded(sample.uetr);

    const forged = await forgedToken(e2e, bankA);
    const cases: [string, string | undefined, number][] = [
      ['no token', undefined, 401],
      ['an expired token', `Bearer ${await minted({ clientId: bankA, expiresInSeconds: -120 })}`, 401],
      [
        'a token for another audience',
        `Bearer ${await minted({ clientId: bankA, audience: 'another-api' })}`,
        401,
      ],
      ['a token signed by an unknown key', `Bearer ${forged}`, 401],
      ['a token of a client that is no participant', `Bearer ${await minted({ clientId: '999999' })}`, 403],
    ];
    for (const [name, authorization, status] of cases) {
      const response = await readWith(sample.uetr, authorization);
      expect(response.status, name).toBe(status);
      expect(response.headers.get('content-type'), name).toBe('application/problem+json');
      if (status === 401) expect(response.headers.get('www-authenticate'), name).toMatch(/^Bearer/);
      expect(await response.text(), name).not.toContain('DEBIT_');
    }
    // The same transaction with bank A's own token: there it is.
    expect((await statusAs(bankA, sample.uetr)).uetr).toBe(sample.uetr);
  });
});
