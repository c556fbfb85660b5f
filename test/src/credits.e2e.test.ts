import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { completedDebitJourney, type PaymentStatusReport } from '@rp/contracts';
import { baobab, pipelineServices } from '@rp/launcher';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  bodyOf,
  creditJourney,
  type EndToEnd,
  type Snapshot,
  startEndToEnd,
  transactionStateTypes,
  waitUntil,
} from './pipeline.ts';

// Credit transfer authorisations from the clearing house, and debits that wait until the credits of
// the cycle are final (spec 1.7, 1.8, 2.4). This pipeline's debit window opens by the credits
// themselves (CREDITS_GATE=credits), not by the operator's trigger the other files use.

/** A Baobab account the simulated bank reports as closed: it refuses credits to it (RJCT AC04). */
const closedAccount = baobab.currentAccount(6_200_000_900);

/** An inbound off-us debit's journey: no status report to deliver, so queued once accepted. */
const offUsJourney = [
  'DEBIT_REQUEST_RECEIVED',
  'DEBIT_REQUEST_ACCEPTED',
  'DEBIT_QUEUED',
  'DEBIT_DELIVERY_PENDING',
  'DEBIT_DELIVERED',
  'DEBIT_RESPONSE_ACCEPTED',
  'DEBIT_COMPLETED',
] as const;

let e2e: EndToEnd;
beforeAll(async () => {
  // The scheduler starts once the cycle's credits are in flight: with none in flight it would open the
  // day's window at once, and an open window stays open for the day.
  e2e = await startEndToEnd({
    env: { CREDITS_GATE: 'credits' },
    serviceEnv: { 'bank-simulator': { CLOSED_ACCOUNTS: closedAccount } },
    services: pipelineServices.filter((service) => service !== 'scheduler'),
  });
});
afterEach(async () => {
  await e2e?.bank.clearFaults();
});
afterAll(async () => {
  await e2e?.stop();
});

/** When the transaction's snapshot records `eventType`. */
function instantOf(snapshot: Snapshot, eventType: string): number {
  const entry = snapshot.history.find((change) => change.eventType === eventType);
  if (!entry) throw new Error(`${snapshot.uetr}: no ${eventType} in ${JSON.stringify(snapshot.history)}`);
  return Date.parse(entry.at);
}

describe('credits and the debits that wait for them', () => {
  it('holds every debit of the cycle (on-us and off-us) while a credit is in flight, then carries all through', async () => {
    // The creditor's bank refuses the authorisations with 503 until the fault is cleared: the credits
    // stay in flight (CREDIT_AUTH_DELIVERY_PENDING), retried by the dispatcher.
    await e2e.bank.setFault({ route: 'credit', mode: 'error', status: 503 });
    const credits = [];
    for (let index = 0; index < 3; index += 1) {
      const credit = await e2e.sendCredit({ amount: `${100 + index}.25` });
      expect(credit.response.status).toBe(202);
      credits.push(credit);
    }
    const debits = [];
    for (let index = 0; index < 3; index += 1) {
      const debit = await e2e.sendDebit();
      expect(debit.response.status).toBe(202);
      debits.push(debit);
    }
    // Inbound off-us debits from the clearing house join the same queue.
    const offUs = [];
    for (let index = 0; index < 2; index += 1) {
      const debit = await e2e.sendOffUsDebit();
      expect(debit.response.status).toBe(202);
      offUs.push(debit);
    }
    for (const credit of credits) await e2e.waitForEvent(credit.uetr, 'CREDIT_AUTH_DELIVERY_PENDING');
    for (const debit of debits) await e2e.waitForEvent(debit.uetr, 'DEBIT_STATUS_DELIVERED');
    for (const debit of offUs) await e2e.waitForEvent(debit.uetr, 'DEBIT_REQUEST_ACCEPTED');

    await e2e.pipeline.start('scheduler');
    for (const debit of [...debits, ...offUs]) await e2e.waitForEvent(debit.uetr, 'DEBIT_QUEUED');
    const waiting = await waitUntil(async () => {
      const view = await e2e.windows();
      return view.debitWindow.state === 'awaiting-credits' ? view : undefined;
    }, 'the debit window to wait for credits');
    expect(waiting.debitWindow.creditsFinalised).toBe(false);
    expect(waiting.debitWindow.creditsInFlight).toBe(credits.length);
    expect((await e2e.queue()).depth).toBeGreaterThanOrEqual(debits.length + offUs.length);
    for (const debit of [...debits, ...offUs]) {
      expect(await e2e.bank.messages('inboundDirectDebit', debit.uetr)).toEqual([]);
    }

    // The bank takes the authorisations again: delivered, answered (ACSC), final. Then the window opens.
    await e2e.bank.clearFaults();
    for (const credit of credits) await e2e.waitForEvent(credit.uetr, 'CREDIT_AUTH_RESPONSE_ACCEPTED');
    for (const debit of [...debits, ...offUs]) await e2e.waitForEvent(debit.uetr, 'DEBIT_COMPLETED');
    const opened = await e2e.windows();
    expect(opened.debitWindow).toMatchObject({ state: 'open', creditsFinalisedBy: 'credits' });

    // No debit left for its bank before the last credit of the cycle was final.
    const lastCreditFinal = Math.max(
      ...(await Promise.all(
        credits.map(async (credit) =>
          instantOf(
            await e2e.waitForTransaction(
              credit.uetr,
              (found) => found.state === 'CREDIT_AUTH_RESPONSE_ACCEPTED',
              'the credit final',
            ),
            'CREDIT_AUTH_RESPONSE_ACCEPTED',
          ),
        ),
      )),
    );
    for (const debit of offUs) {
      const snapshot = await e2e.waitForTransaction(
        debit.uetr,
        (found) => found.state === 'DEBIT_COMPLETED',
        'done',
      );
      expect(instantOf(snapshot, 'DEBIT_DELIVERY_PENDING')).toBeGreaterThanOrEqual(lastCreditFinal);
      // No initiating bank among the participants: no status report goes back; queued once accepted.
      expect(await e2e.eventTypes(debit.uetr)).toEqual([...offUsJourney]);
      expect(await e2e.bank.messages('outboundDirectDebitResponse', debit.uetr)).toEqual([]);
      expect(await e2e.bank.messages('inboundDirectDebit', debit.uetr)).toHaveLength(1);
    }
    for (const debit of debits) {
      const snapshot = await e2e.waitForTransaction(
        debit.uetr,
        (found) => found.state === 'DEBIT_COMPLETED',
        'done',
      );
      expect(instantOf(snapshot, 'DEBIT_DELIVERY_PENDING')).toBeGreaterThanOrEqual(lastCreditFinal);
      expect(await e2e.eventTypes(debit.uetr)).toEqual([...completedDebitJourney]);
    }

    // Each credit's journey at the creditor's bank: every stage once, in order, and its answer ACSC.
    for (const credit of credits) {
      const postings = (await e2e.bank.postings(credit.uetr)).flatMap((entry) =>
        entry.posting.class === 'TRANSACTION_STATE' ? [{ ...entry, posting: entry.posting }] : [],
      );
      expect(transactionStateTypes(postings)).toEqual([...creditJourney]);
      expect(postings.map((entry) => entry.posting.stageVersion)).toEqual([1, 2, 3, 4, 5]);
      expect(postings.every((entry) => entry.signatureVerified)).toBe(true);
      const delivered = await e2e.bank.messages('inboundCreditTransferAuthorization', credit.uetr);
      expect(delivered).toHaveLength(1);
      const [answer] = await e2e.bank.messages('inboundCreditTransferAuthorizationResponse', credit.uetr);
      expect(bodyOf<PaymentStatusReport>(answer).status.status).toBe('ACSC');
      // The same authorisation on every attempt: refused with 503 at least once, then 202.
      const attempts = await e2e.bank.requests({ route: 'credit', uetr: credit.uetr });
      expect(attempts.at(-1)?.answer).toBe(202);
      expect(attempts.slice(0, -1).every((attempt) => attempt.answer === 503)).toBe(true);
      expect(new Set(attempts.map((attempt) => attempt.messageIdentification))).toEqual(
        new Set([credit.messageIdentification]),
      );
    }
  });

  it('rejects a credit to an account that fails CDV, and records a creditor bank that refuses it', async () => {
    const good = baobab.currentAccount(6_200_000_700);
    const broken = `${good.slice(0, -1)}${(Number(good.slice(-1)) + 1) % 10}`;
    const rejected = await e2e.sendCredit({ creditorAccount: broken });
    expect(rejected.response.status).toBe(202);
    const final = await e2e.waitForTransaction(
      rejected.uetr,
      (found) => found.state === 'CREDIT_AUTH_REJECTED',
      'the credit rejected',
    );
    expect(final.history.map((change) => change.eventType)).toEqual([
      'CREDIT_AUTH_RECEIVED',
      'CREDIT_AUTH_REJECTED',
    ]);
    expect(await e2e.bank.messages('inboundCreditTransferAuthorization', rejected.uetr)).toEqual([]);
    await e2e.waitForEvent(rejected.uetr, 'CREDIT_AUTH_REJECTED');

    // Valid, delivered, and refused by the creditor's bank: the answer is recorded, RJCT AC04.
    const refused = await e2e.sendCredit({ creditorAccount: closedAccount });
    expect(refused.response.status).toBe(202);
    await e2e.waitForEvent(refused.uetr, 'CREDIT_AUTH_RESPONSE_ACCEPTED');
    const [answer] = await e2e.bank.messages('inboundCreditTransferAuthorizationResponse', refused.uetr);
    const status = bodyOf<PaymentStatusReport>(answer).status;
    expect(status.status).toBe('RJCT');
    expect(status.reasonInfo?.map((reason) => reason.reason?.code)).toEqual(['AC04']);
    expect(await e2e.eventTypes(refused.uetr)).toEqual([...creditJourney]);
  });

  it('lets only the clearing house in on the scheme-facing route', async () => {
    for (const token of [null, 'not-the-token']) {
      const refused = await e2e.sendCredit({ token });
      expect(refused.response.status).toBe(401);
      expect(refused.response.headers.get('content-type')).toBe('application/problem+json');
      expect(await refused.response.json()).toMatchObject({ type: '/problems/unauthorized', status: 401 });
      expect(await e2e.transaction(refused.uetr)).toBeNull();
    }
  });

  // Last in the file: the logs then hold a whole mixed cycle, refusals and retries included.
  it('never writes a secret to its logs: no signing secret, clearing-house token, bank or operator client secret', async () => {
    const { logDir, signingSecrets, scheme, bankClients, operatorClients } = e2e.pipeline;
    const secrets = [
      ...Object.values(signingSecrets).flat(),
      scheme.token,
      ...Object.values(bankClients),
      ...Object.values(operatorClients).map((client) => client.secret),
    ];
    expect(secrets.every((secret) => secret.length >= 16)).toBe(true);
    const files = readdirSync(logDir).filter((file) => file.endsWith('.log'));
    expect(files.sort()).toEqual(expect.arrayContaining(pipelineServices.map((service) => `${service}.log`)));
    for (const file of files) {
      const text = readFileSync(join(logDir, file), 'utf8');
      // The services did log (their configuration, every request): the check reads something real.
      expect(text.length, file).toBeGreaterThan(1_000);
      for (const secret of secrets) expect(text.includes(secret), `${file} holds a secret`).toBe(false);
    }
  });
});
