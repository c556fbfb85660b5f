import { createHmac } from 'node:crypto';
import { completedDebitJourney, type DirectDebit } from '@rp/contracts';
import type { EventPostingSource } from '@rp/store';
import { afterEach, describe, expect, it } from 'vitest';
import { deliveryId, laneId } from '../src/postings.ts';
import { verifyPosting } from '../src/receiver.ts';
import { signingKey } from '../src/signing.ts';
import type { TestBank } from './bank.ts';
import { uetrOf } from './bank.ts';
import {
  bankA,
  bankB,
  bankC,
  both,
  eventually,
  expectedIds,
  idOf,
  interleavedJourneys,
  journeyPostings,
  newDebit,
  secretsA,
  secretsB,
  startEnvironment,
  stateOnly,
  type TestEnvironment,
  uetrOfDebit,
} from './fixtures.ts';

/** A retry schedule whose maximum age a short delivery log retention may exceed. */
const testRetention = { retrySchedule: { delaysMs: [50, 100, 200, 300], jitter: 0.2, maxAgeMs: 1_000 } };

let environment: TestEnvironment | undefined;
afterEach(async () => {
  await environment?.dispose();
  environment = undefined;
});

async function produceJourneys(
  env: TestEnvironment,
  debits: readonly DirectDebit[],
  steps?: number,
): Promise<void> {
  for (const postings of interleavedJourneys(debits, steps)) await env.produce(postings);
}

/**
 * A transaction whose first posting bank A refuses (500) every time, sent: answers once its lane's head
 * has failed twice, at the schedule's second step, with the attempts bank A has had on it so far.
 */
async function stuckAtSecondStep(env: TestEnvironment, stuck: DirectDebit) {
  const uetr = uetrOfDebit(stuck);
  const attempts = () => env.banks.a.received.filter((entry) => uetrOf(entry) === uetr);
  env.banks.a.refuse.set(uetr, 500);
  await produceJourneys(env, [stuck], 1);
  await env.banks.a.waitUntil(() => attempts().length >= 2, 'the stuck head refused twice');
  const waiting = await eventually(async () => {
    const found = await env.deliveries.getLane(laneId(bankA, uetr));
    return found?.headFailures === 2 ? found : undefined;
  }, 'the stuck lane at its second step');
  return { uetr, attempts, waiting };
}

/**
 * At least once and in order: the first arrivals are the postings in state order, and a posting seen
 * again (a retry whose answer was lost) never comes after a later one.
 */
function expectInOrder(
  bank: TestBank,
  debit: DirectDebit,
  classes: readonly ('TRANSACTION_STATE' | 'ESM_STATE')[],
) {
  const expected = expectedIds(debit, classes, idOf);
  const arrivals = bank.accepted(uetrOfDebit(debit)).map((entry) => entry.id);
  expect([...new Set(arrivals)]).toEqual(expected);
  const positions = arrivals.map((id) => expected.indexOf(id));
  expect(positions).toEqual([...positions].sort((x, y) => x - y));
}

describe('event publisher on the real stack', () => {
  it('delivers every posting of hundreds of concurrent transactions to their subscribed banks, in order, signed', async () => {
    // The service's own attempt timeouts: this test is about volume, and on a loaded machine the short
    // ones of the other tests would time out answers that are merely late.
    const env = await startEnvironment({ options: { attemptTimeoutMs: 10_000, connectTimeoutMs: 3_000 } });
    environment = env;
    const onUsA = Array.from({ length: 120 }, () => newDebit(bankA, bankA));
    const onUsB = Array.from({ length: 120 }, () => newDebit(bankB, bankB));
    const offUs = Array.from({ length: 60 }, () => newDebit(bankA, bankB));
    const onUsC = Array.from({ length: 30 }, () => newDebit(bankC, bankC));
    const all = [...onUsA, ...onUsB, ...offUs, ...onUsC].sort(() => Math.random() - 0.5);
    await produceJourneys(env, all);

    const forA = [...onUsA, ...offUs].flatMap((debit) => expectedIds(debit, both, idOf));
    const forB = [...onUsB, ...offUs].flatMap((debit) => expectedIds(debit, stateOnly, idOf));
    await env.banks.a.waitForIds(forA, 'bank A has its postings', 120_000);
    await env.banks.b.waitForIds(forB, 'bank B has its postings', 120_000);

    // Each bank: its transactions' postings (A: both classes, B: TRANSACTION_STATE), once, in state order.
    // At least once, in order: on a loaded machine an attempt can outlive its timeout and be sent
    // again with the same id, which the receiver recognises; nothing else may arrive, and nothing late.
    for (const debit of [...onUsA, ...offUs]) expectInOrder(env.banks.a, debit, both);
    for (const debit of [...onUsB, ...offUs]) expectInOrder(env.banks.b, debit, stateOnly);
    expect(new Set(env.banks.a.received.map((entry) => entry.id)).size).toBe(forA.length);
    expect(new Set(env.banks.b.received.map((entry) => entry.id)).size).toBe(forB.length);
    const stageVersions = env.banks.b
      .accepted(uetrOfDebit(offUs[0] as DirectDebit))
      .map((entry) => entry.posting.stageVersion);
    // A posting seen again right after itself is a retry of an attempt whose answer came too late.
    expect(stageVersions.filter((version, index) => version !== stageVersions[index - 1])).toEqual(
      completedDebitJourney.map((_, step) => step + 1),
    );

    // Bank C has no events URL: nothing is stored or queued for its transactions.
    const cPosting = expectedIds(onUsC[0] as DirectDebit, both, idOf)[0] as string;
    expect(await env.deliveries.getPosting(cPosting)).toBeNull();

    // A rotating bank gets one signature per active secret; each verifies alone; a stranger's does not.
    const sample = env.banks.a.received[0];
    expect(sample?.verified).toBe(true);
    const entries = sample?.signature.split(' ') ?? [];
    expect(entries).toHaveLength(2);
    for (const [index, secret] of secretsA.entries()) {
      const expected = createHmac('sha256', signingKey(secret))
        .update(`${sample?.id}.${sample?.timestamp}.${sample?.body}`)
        .digest('base64');
      expect(entries[index]).toBe(`v1,${expected}`);
      const headers = {
        'webhook-id': sample?.id,
        'webhook-timestamp': sample?.timestamp,
        'webhook-signature': sample?.signature,
      };
      expect(verifyPosting({ headers, body: sample?.body ?? '' }, [secret])).toBe(true);
      expect(verifyPosting({ headers, body: `${sample?.body} ` }, [secret])).toBe(false);
    }
    const bSample = env.banks.b.received[0];
    expect(
      verifyPosting(
        {
          headers: {
            'webhook-id': bSample?.id,
            'webhook-timestamp': bSample?.timestamp,
            'webhook-signature': bSample?.signature,
          },
          body: bSample?.body ?? '',
        },
        ['a-secret-bank-b-never-had'],
      ),
    ).toBe(false);
    expect(bSample?.signature.split(' ')).toHaveLength(1);
    // One trace per transaction across its postings.
    const traces = new Set(
      env.banks.b
        .accepted(uetrOfDebit(onUsB[0] as DirectDebit))
        .map((entry) => entry.traceparent?.slice(3, 35)),
    );
    expect(traces.size).toBe(1);

    // The delivery log: one attempt, delivered, per posting and bank, written a consumer batch at a
    // time (one insert command for many postings), not a write per posting.
    const logged = forA.length + forB.length;
    const logWrites = env.storeCommands('insert') + env.storeCommands('update');
    expect(logWrites).toBeGreaterThan(0);
    expect(logWrites).toBeLessThan(logged / 4);
    const first = expectedIds(offUs[0] as DirectDebit, stateOnly, idOf)[0] as string;
    // Written behind, before the consumer commits: shortly after the bank has the posting.
    const logA = await eventually(
      async () => (await env.store.deliveryLog.get(deliveryId(first, bankA))) ?? undefined,
      'the delivery log entry',
    );
    expect(logA).toMatchObject({
      outcome: 'delivered',
      memberId: bankA,
      eventType: 'TRANSACTION_STATE_DEBIT_REQUEST_RECEIVED',
    });
    // One attempt logged per arrival at the bank (nearly always one): none lost, none counted twice.
    expect(logA?.attemptCount).toBe(env.banks.a.received.filter((entry) => entry.id === first).length);
    expect(logA?.attempts).toHaveLength(logA?.attemptCount ?? 0);
    expect(logA?.attempts.at(-1)?.httpStatus).toBe(202);
    // The entry names the record the posting came from: what a replay reads again.
    expect(logA?.source).toMatchObject({
      postingId: first,
      eventClass: 'TRANSACTION_STATE',
      stageVersion: 1,
    });
    const response = await env.publisher.app.request(`/admin/events/${first}/deliveries`);
    expect(response.status).toBe(200);
    const view = (await response.json()) as {
      uetr: string;
      class: string;
      source: { topic: string; partition: number; offset: number };
      deliveries: { memberId: string; outcome: string }[];
    };
    expect(view.uetr).toBe(uetrOfDebit(offUs[0] as DirectDebit));
    expect(view.class).toBe('TRANSACTION_STATE');
    expect(view.source).toEqual({
      topic: logA?.source?.topic,
      partition: logA?.source?.partition,
      offset: logA?.source?.offset,
    });
    // Sent at once, a posting is not stored: its body stays on the topic.
    const direct = forA.filter((id) => env.banks.a.received.filter((entry) => entry.id === id).length === 1);
    const stored = await Promise.all(direct.slice(0, 50).map((id) => env.deliveries.getPosting(id)));
    expect(stored.filter((posting) => posting === null).length).toBeGreaterThan(0);
    expect(view.deliveries.map((delivery) => [delivery.memberId, delivery.outcome]).sort()).toEqual(
      [
        [bankB, 'delivered'],
        [bankA, 'delivered'],
      ].sort(),
    );
    // A lane parked by an attempt that outlived its timeout (the bank had it already) drains once its
    // retry is delivered; none stays parked.
    await eventually(
      async () => (env.publisher.parkedLanes === 0 ? true : undefined),
      'no lane stays parked',
    );

    // Metrics: every posting counted once as delivered; bank C's postings and bank B's ESM_STATE postings
    // (a class it does not take) go nowhere. Retries: the banks answer at once, so only an attempt that
    // outlived its timeout on a loaded machine is sent again, and every copy a bank got twice was one.
    expect(await env.metric('rp_events_deliveries_total', { member_id: bankA, outcome: 'delivered' })).toBe(
      forA.length,
    );
    expect(await env.metric('rp_events_deliveries_total', { member_id: bankB, outcome: 'delivered' })).toBe(
      forB.length,
    );
    const repeats = env.banks.a.received.length - forA.length + (env.banks.b.received.length - forB.length);
    const retries = await env.metric('rp_events_retries_total');
    expect(retries).toBeGreaterThanOrEqual(repeats);
    expect(retries).toBeLessThanOrEqual(Math.ceil((forA.length + forB.length) / 20));
    expect(await env.metric('rp_events_postings_skipped_total', { reason: 'no-subscriber' })).toBe(
      onUsC.length * 2 * completedDebitJourney.length + onUsB.length * completedDebitJourney.length,
    );
  }, 300_000);

  it('keeps postings of a bank answering 500 in order and delivers them all once it answers 202', async () => {
    const env = await startEnvironment();
    environment = env;
    env.banks.a.failNext = { count: 40, status: 500 };
    const debits = Array.from({ length: 15 }, () => newDebit(bankA, bankA));
    await produceJourneys(env, debits);
    const expected = debits.flatMap((debit) => expectedIds(debit, both, idOf));
    await env.banks.a.waitForIds(expected, 'bank A has every posting after its 500s', 120_000);

    expect(env.banks.a.received.filter((entry) => entry.status === 500)).toHaveLength(40);
    for (const debit of debits) expectInOrder(env.banks.a, debit, both);
    // The first posting was refused with 500 at least once, then delivered; its log says so.
    const firstId = env.banks.a.received[0]?.id as string;
    const log = await eventually(async () => {
      const entry = await env.store.deliveryLog.get(deliveryId(firstId, bankA));
      return entry?.outcome === 'delivered' ? entry : undefined;
    }, 'the first posting logged as delivered');
    expect(log?.attempts.map((attempt) => attempt.httpStatus)).toContain(500);
    expect(log?.attempts.at(-1)?.httpStatus).toBe(202);
    expect(log?.attempts.find((attempt) => attempt.httpStatus === 500)?.error).toMatch(/^HTTP 500/);
    await eventually(
      async () => ((await env.deliveries.listLanes(bankA, 10)).length === 0 ? true : undefined),
      'lanes emptied',
    );
    expect(await env.metric('rp_events_attempts_total', { member_id: bankA, result: 'retryable' })).toBe(40);
    expect(await env.metric('rp_events_retries_total', { member_id: bankA })).toBeGreaterThan(0);
    expect(
      await env.metric('rp_events_deliveries_total', { member_id: bankA, outcome: 'delivered' }),
    ).toBeGreaterThanOrEqual(expected.length);
  }, 300_000);

  it("honours a bank's Retry-After", async () => {
    const env = await startEnvironment();
    environment = env;
    env.banks.a.failNext = { count: 1, status: 429, retryAfter: '1' };
    const debit = newDebit(bankA, bankA);
    await produceJourneys(env, [debit]);
    const expected = expectedIds(debit, both, idOf);
    await env.banks.a.waitForIds(expected, 'bank A has every posting after asking for a pause');
    const [throttled, next] = env.banks.a.received;
    expect(throttled?.status).toBe(429);
    expect(next?.id).toBe(throttled?.id);
    expect((next?.at ?? 0) - (throttled?.at ?? 0)).toBeGreaterThanOrEqual(950);
    expectInOrder(env.banks.a, debit, both);
  }, 120_000);

  it('tries a lane that failed before its bank was paused again as soon as the bank answers; refused again then, it keeps its step', async () => {
    const env = await startEnvironment({
      options: {
        retrySchedule: { delaysMs: [200, 30_000, 600_000], jitter: 0 },
        breakerThreshold: 3,
        breakerCooldownMs: 300,
        breakerMaxCooldownMs: 300,
      },
    });
    environment = env;
    const [stuck, third, other] = [
      newDebit(bankA, bankA),
      newDebit(bankA, bankA),
      newDebit(bankA, bankA),
    ] as [DirectDebit, DirectDebit, DirectDebit];
    env.banks.a.refuse.set(uetrOfDebit(third), 500);
    // Refused at once and again 200 ms later: two failures in a row, one short of pausing the bank. The
    // lane's head waits out the schedule's second step (30 s), not held: the breaker is closed.
    const { uetr: stuckUetr, attempts: attemptsOnStuck, waiting } = await stuckAtSecondStep(env, stuck);
    // A third transaction refused too: the third failure in a row pauses the bank.
    await produceJourneys(env, [third], 1);
    await env.banks.a.waitUntil(
      () => env.banks.a.received.some((entry) => uetrOf(entry) === uetrOfDebit(third)),
      'the third failure in a row',
    );

    // The other transaction's posting is a probe of the paused bank; the bank takes it, and the stuck
    // lane is tried at once, not 30 s later.
    await produceJourneys(env, [other], 1);
    await env.banks.a.waitUntil(
      () => attemptsOnStuck().length >= 3,
      'the stuck head tried again once the bank answered',
      20_000,
    );
    const taken = env.banks.a.accepted(uetrOfDebit(other))[0];
    const early = attemptsOnStuck()[2];
    expect(taken && early && early.at >= taken.at).toBe(true);
    expect((early?.at ?? Number.POSITIVE_INFINITY) - (attemptsOnStuck()[1]?.at ?? 0)).toBeLessThan(20_000);

    // Refused again, that early attempt does not count: the head stays at the second step (30 s from
    // now), not the third (10 min).
    const lane = await eventually(async () => {
      const found = await env.deliveries.getLane(laneId(bankA, stuckUetr));
      return found && found.nextAttemptAt.getTime() !== waiting.nextAttemptAt.getTime() ? found : undefined;
    }, 'the stuck lane rescheduled after its early attempt');
    expect(lane.headFailures).toBe(2);
    expect(lane.nextAttemptAt.getTime()).toBeGreaterThan(early?.at ?? Number.POSITIVE_INFINITY);
    expect(lane.nextAttemptAt.getTime() - (early?.at ?? 0)).toBeLessThan(60_000);
    expect(attemptsOnStuck().every((entry) => entry.status === 500)).toBe(true);
  }, 120_000);

  it('probes a paused bank once a pause, taking a held lane ahead of its step, and delivers it as soon as the bank is back', async () => {
    const env = await startEnvironment({
      options: {
        retrySchedule: { delaysMs: [200, 600_000], jitter: 0 },
        breakerThreshold: 2,
        breakerCooldownMs: 300,
        breakerMaxCooldownMs: 300,
      },
    });
    environment = env;
    const stuck = newDebit(bankA, bankA);
    // Refused at once and again 200 ms later: the bank is paused, and the only lane it has waits out the
    // schedule's second step, 10 minutes. No other transaction comes to probe the bank with.
    const { uetr: stuckUetr, attempts: attemptsOnStuck, waiting } = await stuckAtSecondStep(env, stuck);

    // Each pause over, the held lane is the probe, ahead of its step; refused, those probes are not steps.
    await env.banks.a.waitUntil(
      () => attemptsOnStuck().length >= 5,
      'three probes of the paused bank, one a pause',
      20_000,
    );
    const lane = await env.deliveries.getLane(laneId(bankA, stuckUetr));
    expect(lane?.headFailures).toBe(2);
    expect(waiting.nextAttemptAt.getTime() - Date.now()).toBeGreaterThan(60_000);

    // The bank is back: the next probe delivers the head, minutes before its step.
    env.banks.a.refuse.delete(stuckUetr);
    await env.banks.a.waitUntil(
      () => env.banks.a.accepted(stuckUetr).length === 1,
      'the stuck head delivered by a probe',
      20_000,
    );
    expect(
      attemptsOnStuck()
        .slice(0, -1)
        .every((entry) => entry.status === 500),
    ).toBe(true);
    await eventually(
      async () => ((await env.deliveries.getLane(laneId(bankA, stuckUetr))) === null ? true : undefined),
      'the lane emptied and gone',
    );
  }, 120_000);

  it('parks a bank that never answers without holding anyone else back, keeps its postings through a restart, and delivers them when it is back', async () => {
    const env = await startEnvironment();
    environment = env;
    env.banks.a.behave({ kind: 'hang' });
    const onUsA = Array.from({ length: 15 }, () => newDebit(bankA, bankA));
    const onUsB = Array.from({ length: 15 }, () => newDebit(bankB, bankB));
    const offUs = Array.from({ length: 10 }, () => newDebit(bankA, bankB));
    // A's own transactions stop one step short; their last step comes after the restart below.
    const lastStep = completedDebitJourney.length - 1;
    await produceJourneys(env, onUsA, lastStep);
    await produceJourneys(env, [...onUsB, ...offUs]);

    // Bank B gets everything, also of the transactions it shares with the silent bank A.
    const forB = [...onUsB, ...offUs].flatMap((debit) => expectedIds(debit, stateOnly, idOf));
    await env.banks.b.waitForIds(forB, 'bank B has its postings while bank A is silent', 120_000);
    for (const debit of [...onUsB, ...offUs]) expectInOrder(env.banks.b, debit, stateOnly);
    expect(env.banks.a.accepted()).toHaveLength(0);

    // Bank A's postings wait in MongoDB, one lane per transaction, each whole.
    const parkedForA = [
      ...onUsA.flatMap((debit) => expectedIds(debit, both, idOf, lastStep)),
      ...offUs.flatMap((debit) => expectedIds(debit, both, idOf)),
    ];
    const lanes = await eventually(
      async () => {
        const listed = await env.deliveries.listLanes(bankA, 500);
        return listed.reduce((sum, lane) => sum + lane.count, 0) === parkedForA.length ? listed : undefined;
      },
      'every posting of bank A parked',
      60_000,
    );
    expect(lanes).toHaveLength(onUsA.length + offUs.length);
    const someLane = await env.deliveries.getLane(laneId(bankA, uetrOfDebit(onUsA[0] as DirectDebit)));
    expect(someLane?.pending.map((entry) => entry.eventId)).toEqual(
      expectedIds(onUsA[0] as DirectDebit, both, idOf, lastStep),
    );
    const forA = [...onUsA, ...offUs].flatMap((debit) => expectedIds(debit, both, idOf));
    const waiting = await env.publisher.app.request(`/admin/events/${forA[0]}/deliveries`);
    const waitingView = (await waiting.json()) as {
      deliveries: { memberId: string; outcome: string; queuePosition?: number }[];
    };
    expect(waitingView.deliveries.find((delivery) => delivery.memberId === bankA)).toMatchObject({
      queuePosition: 0,
    });
    expect(['pending', 'queued']).toContain(
      waitingView.deliveries.find((delivery) => delivery.memberId === bankA)?.outcome,
    );
    const lanesView = await env.publisher.app.request(`/admin/events/lanes?memberId=${bankA}&limit=500`);
    expect(((await lanesView.json()) as { lanes: unknown[] }).lanes).toHaveLength(lanes.length);
    await eventually(
      async () =>
        (await env.metric('rp_events_parked_lanes', { member_id: bankA })) === lanes.length
          ? true
          : undefined,
      'the parked gauge shows the lanes',
    );
    expect(await env.metric('rp_events_bank_paused', { member_id: bankA })).toBe(1);

    // A new process takes over: it finds the lanes in MongoDB, not in the old process's memory, and
    // queues the transactions' last postings behind them rather than sending them first.
    await env.restartPublisher();
    for (const debit of onUsA) await env.produce(journeyPostings(debit, lastStep));
    await eventually(async () => {
      const lane = await env.deliveries.getLane(laneId(bankA, uetrOfDebit(onUsA.at(-1) as DirectDebit)));
      return lane?.count === 2 * completedDebitJourney.length ? true : undefined;
    }, 'the last postings queued behind the parked ones');
    const logInsertsBefore = env.storeCommands('insert');
    const logUpdatesBefore = env.storeCommands('update');
    env.banks.a.behave({ kind: 'ok' });
    await env.banks.a.waitForIds(forA, 'bank A has every posting once it is back', 120_000);
    for (const debit of [...onUsA, ...offUs]) expectInOrder(env.banks.a, debit, both);
    await eventually(
      async () => ((await env.deliveries.listLanes(bankA, 10)).length === 0 ? true : undefined),
      'lanes emptied',
    );
    // Each posting's delivery is in the log. The postings parked without an attempt get their entries
    // a lane's worth to an insert; only the postings tried before are appended to: a lane's head whose
    // attempt timed out, and now and then a probe that was still out when the bank came back.
    for (const id of forA) {
      const entry = await env.store.deliveryLog.get(deliveryId(id, bankA));
      expect(entry?.outcome, id).toBe('delivered');
      expect(entry?.source?.topic, id).toBeDefined();
    }
    expect(env.storeCommands('update') - logUpdatesBefore).toBeLessThanOrEqual(2 * lanes.length);
    const logInserts = env.storeCommands('insert') - logInsertsBefore;
    expect(logInserts).toBeGreaterThan(0);
    expect(logInserts).toBeLessThan(forA.length / 4);
  }, 300_000);

  it('records a posting the bank refuses for good (4xx) as failed and goes on with the next one', async () => {
    // The publisher signs with a secret bank B does not have: B answers 401 to every posting.
    const env = await startEnvironment({
      publisherSecrets: { [bankA]: secretsA, [bankB]: ['not-the-secret-bank-b-has'] },
    });
    environment = env;
    const debit = newDebit(bankB, bankB);
    await produceJourneys(env, [debit]);
    const expected = expectedIds(debit, stateOnly, idOf);
    await env.banks.b.waitUntil(
      (bank) => bank.received.length >= expected.length,
      'bank B answered every posting',
    );
    expect(env.banks.b.received.map((entry) => entry.id)).toEqual(expected);
    expect(env.banks.b.received.every((entry) => entry.status === 401 && !entry.verified)).toBe(true);
    // With the secret it was given, the bank can tell the signatures are not its own ...
    const entry = env.banks.b.received[0];
    const headers = {
      'webhook-id': entry?.id,
      'webhook-timestamp': entry?.timestamp,
      'webhook-signature': entry?.signature,
    };
    expect(verifyPosting({ headers, body: entry?.body ?? '' }, secretsB)).toBe(false);
    expect(verifyPosting({ headers, body: entry?.body ?? '' }, ['not-the-secret-bank-b-has'])).toBe(true);
    // ... and each posting was tried once and logged as failed.
    const logs = await Promise.all(
      expected.map((id) =>
        eventually(async () => (await env.store.deliveryLog.get(deliveryId(id, bankB))) ?? undefined, 'log'),
      ),
    );
    expect(logs.map((log) => [log.outcome, log.attemptCount, log.attempts[0]?.httpStatus])).toEqual(
      expected.map(() => ['failed', 1, 401]),
    );
  }, 300_000);

  it('replays a transaction and a time range to a bank, with the original event ids, in order', async () => {
    const env = await startEnvironment();
    environment = env;
    const debits = Array.from({ length: 4 }, () => newDebit(bankA, bankB));
    const before = new Date(Date.now() - 1_000);
    await produceJourneys(env, debits);
    const forA = debits.flatMap((debit) => expectedIds(debit, both, idOf));
    const forB = debits.flatMap((debit) => expectedIds(debit, stateOnly, idOf));
    await env.banks.a.waitForIds(forA, 'bank A has its postings');
    await env.banks.b.waitForIds(forB, 'bank B has its postings');
    const after = new Date(Date.now() + 1_000);
    // A replay takes what the delivery log holds; it is written behind the deliveries.
    await eventually(async () => {
      const logged = await Promise.all(
        debits.map((debit) => env.store.deliveryLog.listByUetr(uetrOfDebit(debit))),
      );
      return logged.flat().length === forA.length + forB.length ? true : undefined;
    }, 'every posting logged');

    const replayed = debits[1] as DirectDebit;
    const response = await env.publisher.app.request('/admin/events/replay', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ memberId: bankA, uetr: uetrOfDebit(replayed) }),
    });
    expect(response.status).toBe(202);
    const result = (await response.json()) as {
      queued: number;
      transactions: number;
      truncated: boolean;
      eventIds: string[];
    };
    const replayedIds = expectedIds(replayed, both, idOf);
    expect(result).toMatchObject({ queued: replayedIds.length, transactions: 1, truncated: false });
    expect(result.eventIds).toEqual(replayedIds);
    await env.banks.a.waitUntil(
      (bank) => bank.accepted(uetrOfDebit(replayed)).length === 2 * replayedIds.length,
      'bank A has the replayed transaction again',
    );
    expect(env.banks.a.accepted(uetrOfDebit(replayed)).map((entry) => entry.id)).toEqual([
      ...replayedIds,
      ...replayedIds,
    ]);
    // The replayed lane's attempts are logged together, before its entries are removed.
    const log = await eventually(async () => {
      const entry = await env.store.deliveryLog.get(deliveryId(replayedIds[0] as string, bankA));
      return entry?.attemptCount === 2 ? entry : undefined;
    }, 'the replay is in the delivery log');
    expect(log).toMatchObject({ outcome: 'delivered', attemptCount: 2 });

    const range = await env.publisher.app.request('/admin/events/replay', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ memberId: bankB, from: before.toISOString(), to: after.toISOString() }),
    });
    expect(range.status).toBe(202);
    expect(((await range.json()) as { queued: number }).queued).toBe(forB.length);
    await env.banks.b.waitUntil(
      (bank) => bank.accepted().length === 2 * forB.length,
      'bank B has its range again',
    );
    for (const debit of debits) {
      const ids = env.banks.b.accepted(uetrOfDebit(debit)).map((entry) => entry.id);
      const once = expectedIds(debit, stateOnly, idOf);
      expect(ids).toEqual([...once, ...once]);
    }

    // A posting the bank was sent whose record the topic no longer holds is counted, not queued.
    const gone = debits[2] as DirectDebit;
    const goneIds = expectedIds(gone, both, idOf);
    const known = (await env.store.deliveryLog.get(deliveryId(goneIds[0] as string, bankA)))?.source;
    expect(known?.postingId).toBe(goneIds[0]);
    await env.store.deliveryLog.recordAttempt(
      {
        eventId: deliveryId('EVT-PAST-RETENTION', bankA),
        uetr: uetrOfDebit(gone),
        memberId: bankA,
        eventType: 'TRANSACTION_STATE_DEBIT_REQUEST_RECEIVED',
        source: {
          ...(known as EventPostingSource),
          postingId: 'EVT-PAST-RETENTION',
          offset: 1_000_000_000,
        },
      },
      { at: new Date(), httpStatus: 202, latencyMs: 1 },
      'delivered',
    );
    const partly = await env.publisher.app.request('/admin/events/replay', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ memberId: bankA, uetr: uetrOfDebit(gone) }),
    });
    expect(await partly.json()).toMatchObject({ queued: goneIds.length, unavailable: 1, eventIds: goneIds });
    await env.banks.a.waitUntil(
      (bank) => bank.accepted(uetrOfDebit(gone)).length === 2 * goneIds.length,
      'bank A has the partly replayed transaction again',
    );

    const refused = await env.publisher.app.request('/admin/events/replay', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ memberId: bankC, uetr: uetrOfDebit(replayed) }),
    });
    expect(refused.status).toBe(404);
    // Refused before the audit: the trail holds the replays above, none to a bank that receives no events.
    const audited = await env.store.audit.list({ action: 'events.replay', limit: 100 });
    expect(audited.length).toBeGreaterThan(0);
    expect(audited.filter((entry) => entry.target.startsWith(`bank ${bankC} `))).toEqual([]);
    const invalid = await env.publisher.app.request('/admin/events/replay', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ memberId: bankA, from: 'yesterday' }),
    });
    expect(invalid.status).toBe(422);
    expect(uetrOf(env.banks.a.accepted()[0] as never)).toBeTruthy();
  }, 300_000);

  it('deletes the delivery log of postings delivered longer ago than its retention, when one is set', async () => {
    const env = await startEnvironment({
      options: {
        ...testRetention,
        deliveryLogRetentionMs: 1_500,
        postingPurgeIntervalMs: 250,
      },
    });
    environment = env;
    const debit = newDebit(bankB, bankB);
    await produceJourneys(env, [debit]);
    const expected = expectedIds(debit, stateOnly, idOf);
    await env.banks.b.waitUntil(
      (bank) => bank.accepted(uetrOfDebit(debit)).length >= expected.length,
      'bank B took every posting',
    );
    // Gone once the retention has passed, each posting counted as it went. No snapshot of the log in
    // between: on a slow machine the first postings can go before the last is written, and the log is
    // written behind the deliveries, so an empty log alone could be one not written yet.
    await eventually(
      async () =>
        (await env.metric('rp_events_delivery_log_purged_total')) >= expected.length &&
        (await env.store.deliveryLog.listByUetr(uetrOfDebit(debit))).length === 0
          ? true
          : undefined,
      'the delivery log written and purged',
      30_000,
    );
  }, 120_000);
});
