import {
  checkAdminAnswer,
  completedDebitJourney,
  type DirectDebit,
  type EventPosting,
  eventPublisherAdmin,
} from '@rp/contracts';
import { stateEventId } from '@rp/pipeline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deliveryId, laneId } from '../src/postings.ts';
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
  startEnvironment,
  stateOnly,
  type TestEnvironment,
  uetrOfDebit,
} from './fixtures.ts';

/**
 * The event publisher's admin API against its OpenAPI description (`eventPublisherAdmin`): the routes the
 * Hono app registers are the documented operations, and every answer of the running service, on real
 * deliveries to the test banks, is what the document says (status, media type, body schema).
 */

/** Steps of each debit's journey produced: enough postings for truncated replays, few enough to be quick. */
const steps = 3;
/** Postings per replay: a transaction's postings to bank B (3) fit, its postings to bank A (6) do not. */
const replayMax = 5;

interface Answer {
  readonly status: number;
  readonly contentType: string | null;
  // biome-ignore lint/suspicious/noExplicitAny: the parsed JSON is read by the assertions
  readonly body: any;
  /** What the admin document check found wrong with the answer. */
  readonly problems: string[];
}

/** `METHOD template status` of every answer checked, to show each documented operation was called. */
const answered = new Set<string>();

let env: TestEnvironment;
let debits: DirectDebit[];
let before: Date;
let after: Date;

/** Calls the publisher's admin app and checks the answer against the admin document. */
async function call(method: 'GET' | 'POST', path: string, body?: string): Promise<Answer> {
  const response = await env.publisher.app.request(path, {
    method,
    ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body }),
  });
  const {
    body: parsed,
    problems,
    operation,
  } = await checkAdminAnswer('event-publisher', method, path, response);
  answered.add(`${operation ?? `${method} ${path.split('?')[0]}`} ${response.status}`);
  return {
    status: response.status,
    contentType: response.headers.get('content-type'),
    body: parsed,
    problems,
  };
}

/** The answer has this status and is what the document says. */
function expectDocumented(answer: Answer, status: number): void {
  expect({ status: answer.status, problems: answer.problems }).toEqual({ status, problems: [] });
}

/** A 422 that names these members (JSON pointers), and is documented. */
function expectInvalid(answer: Answer, pointers: readonly string[]): void {
  expectDocumented(answer, 422);
  expect(answer.contentType).toMatch(/^application\/problem\+json/);
  expect(answer.body.code).toBe('VALIDATION_FAILED');
  const named = (answer.body.errors as { pointer: string }[]).map((error) => error.pointer);
  for (const pointer of pointers) expect(named).toContain(pointer);
}

const replay = (body: unknown) =>
  call('POST', '/admin/events/replay', typeof body === 'string' ? body : JSON.stringify(body));

beforeAll(async () => {
  env = await startEnvironment({ options: { replayMaxPostings: replayMax } });
  debits = [newDebit(bankA, bankB), newDebit(bankA, bankB)];
  before = new Date(Date.now() - 1_000);
  for (const postings of interleavedJourneys(debits, steps)) await env.produce(postings);
  const forA = debits.flatMap((debit) => expectedIds(debit, both, idOf, steps));
  const forB = debits.flatMap((debit) => expectedIds(debit, stateOnly, idOf, steps));
  await env.banks.a.waitForIds(forA, 'bank A has its postings');
  await env.banks.b.waitForIds(forB, 'bank B has its postings');
  after = new Date(Date.now() + 1_000);
  // The delivery log is written behind the deliveries; the admin API reads it.
  await eventually(async () => {
    const logged = await Promise.all(
      debits.map((debit) => env.store.deliveryLog.listByUetr(uetrOfDebit(debit))),
    );
    return logged.flat().length === forA.length + forB.length ? true : undefined;
  }, 'every posting logged');
});

afterAll(async () => {
  await env?.dispose();
});

describe('event publisher admin API against its OpenAPI description', () => {
  it('registers exactly the documented /admin operations', () => {
    const registered = env.publisher.app.routes
      .filter(
        (route) => (route.method === 'GET' || route.method === 'POST') && route.path.startsWith('/admin'),
      )
      .map((route) => `${route.method} ${route.path.replace(/:(\w+)(\{[^}]*\})?/g, '{$1}')}`);
    const documented = eventPublisherAdmin.operations.map(
      (operation) => `${operation.method.toUpperCase()} ${operation.path}`,
    );
    expect(new Set(documented).size).toBe(documented.length);
    expect([...new Set(registered)].sort()).toEqual([...documented].sort());
  });

  it("answers a posting's delivery per bank as documented, by event id and by state-change UUID", async () => {
    const debit = debits[0] as DirectDebit;
    const uetr = uetrOfDebit(debit);
    const [stateChange, esm] = journeyPostings(debit, 0) as [EventPosting, EventPosting];

    // A TRANSACTION_STATE posting delivered to both banks at once (not stored: known by its log).
    const delivered = await call('GET', `/admin/events/${idOf(stateChange)}/deliveries`);
    expectDocumented(delivered, 200);
    expect(delivered.body).toMatchObject({
      eventId: idOf(stateChange),
      uetr,
      class: 'TRANSACTION_STATE',
      stageVersion: 1,
    });
    expect(
      (delivered.body.deliveries as { memberId: string; outcome: string }[])
        .map((delivery) => [delivery.memberId, delivery.outcome])
        .sort(),
    ).toEqual(
      [
        [bankA, 'delivered'],
        [bankB, 'delivered'],
      ].sort(),
    );

    // The state change's UUID stands for its TRANSACTION_STATE posting.
    const byUuid = await call(
      'GET',
      `/admin/events/${stateEventId(uetr, completedDebitJourney[0] as string)}/deliveries`,
    );
    expectDocumented(byUuid, 200);
    expect(byUuid.body.eventId).toBe(idOf(stateChange));

    // An ESM_STATE posting: bank A only, no stageVersion.
    const esmView = await call('GET', `/admin/events/${idOf(esm)}/deliveries`);
    expectDocumented(esmView, 200);
    expect(esmView.body).toMatchObject({ eventId: idOf(esm), class: 'ESM_STATE' });
    expect(esmView.body).not.toHaveProperty('stageVersion');
    expect(esmView.body.deliveries).toHaveLength(1);

    // A log entry written before entries kept their source (an upgrade), with an outcome recorded
    // without an answer: the posting is described without class, source and production time.
    const legacyId = `EVT${'ab'.repeat(16)}`;
    await env.store.deliveryLog.recordAttempt(
      {
        eventId: deliveryId(legacyId, bankA),
        uetr,
        memberId: bankA,
        eventType: 'TRANSACTION_STATE_DEBIT_REQUEST_ACCEPTED',
      },
      { at: new Date(), httpStatus: null, latencyMs: 0, error: 'undelivered for 48 h: expired' },
      'expired',
    );
    const legacy = await call('GET', `/admin/events/${legacyId}/deliveries`);
    expectDocumented(legacy, 200);
    expect(legacy.body).not.toHaveProperty('source');
    expect(legacy.body.deliveries[0]).toMatchObject({
      memberId: bankA,
      outcome: 'expired',
      completedAt: expect.any(String),
    });
    expect(legacy.body.deliveries[0].attempts[0].httpStatus).toBeNull();

    // Unknown ids, in both forms.
    const unknown = await call('GET', `/admin/events/EVT${'0'.repeat(32)}/deliveries`);
    expectDocumented(unknown, 404);
    expect(unknown.body.code).toBe('NOT_FOUND');
    expectDocumented(await call('GET', '/admin/events/4b9e0c8f-2d6a-4e1f-9c3b-7a5d8e2f1c6b/deliveries'), 404);
  });

  it('answers replays, their refusals and their validation as documented', async () => {
    const debit = debits[0] as DirectDebit;
    const uetr = uetrOfDebit(debit);

    // A transaction's postings to bank B fit in one replay.
    const whole = await replay({ memberId: bankB, uetr });
    expectDocumented(whole, 202);
    expect(whole.body).toEqual({
      memberId: bankB,
      queued: steps,
      unavailable: 0,
      transactions: 1,
      eventIds: expectedIds(debit, stateOnly, idOf, steps),
      truncated: false,
    });

    // Its postings to bank A (both classes) do not: truncated, with where to go on (UETR in upper case).
    const cut = await replay({ memberId: bankA, uetr: uetr.toUpperCase() });
    expectDocumented(cut, 202);
    expect(cut.body).toMatchObject({ memberId: bankA, queued: replayMax, transactions: 1, truncated: true });
    expect(cut.body.resumeFrom).toEqual(expect.any(String));

    // A time range of bank B's postings, truncated, and the rest of it from `resumeFrom`.
    const range = await replay({ memberId: bankB, from: before.toISOString(), to: after.toISOString() });
    expectDocumented(range, 202);
    expect(range.body).toMatchObject({ queued: replayMax, truncated: true, transactions: 2 });
    const rest = await replay({ memberId: bankB, from: range.body.resumeFrom, to: after.toISOString() });
    expectDocumented(rest, 202);
    expect(rest.body.queued).toBeGreaterThanOrEqual(2 * steps - replayMax);
    expect(rest.body.truncated).toBe(false);

    // Nothing in the range: not an error. Offsets other than Z are taken.
    const empty = await replay({
      memberId: bankB,
      from: '2020-01-01T00:00:00+02:00',
      to: '2020-01-02T00:00:00.5-01:30',
    });
    expectDocumented(empty, 202);
    expect(empty.body).toEqual({
      memberId: bankB,
      queued: 0,
      unavailable: 0,
      transactions: 0,
      eventIds: [],
      truncated: false,
    });

    // Banks that receive no events, or are not participants.
    for (const memberId of [bankC, 'no-such-bank']) {
      const refused = await replay({ memberId, uetr });
      expectDocumented(refused, 404);
      expect(refused.body.code).toBe('NOT_FOUND');
    }

    // Not JSON.
    const malformed = await replay('{"memberId": ');
    expectDocumented(malformed, 400);
    expect(malformed.body.code).toBe('MALFORMED_JSON');

    // Each rule of the parser names its member.
    expectInvalid(await replay([]), ['']);
    expectInvalid(await replay({ uetr }), ['/memberId']);
    expectInvalid(await replay({ memberId: '', uetr }), ['/memberId']);
    expectInvalid(await replay({ memberId: bankA, uetr: 'not-a-uuid' }), ['/uetr']);
    expectInvalid(await replay({ memberId: bankA, uetr, from: before.toISOString() }), ['/uetr']);
    expectInvalid(await replay({ memberId: bankA, uetr, transaction: uetr }), ['/transaction']);
    expectInvalid(await replay({ memberId: bankA, from: 'yesterday' }), ['/from', '/to']);
    expectInvalid(
      await replay({ memberId: bankA, from: '2026-03-02T07:00:00', to: '2026-03-02T08:00:00Z' }),
      ['/from'],
    );
    expectInvalid(await replay({ memberId: bankA, from: after.toISOString(), to: before.toISOString() }), [
      '/to',
    ]);
  });

  it('answers the lane list as documented, with a lane parked behind a refused posting', async () => {
    // Bank A answers 500 to every posting of one transaction: its first posting opens a lane as its head
    // and the transaction's next postings wait behind it, never tried.
    const stuck = newDebit(bankA, bankA);
    const stuckUetr = uetrOfDebit(stuck);
    env.banks.a.refuse.set(stuckUetr, 500);
    for (const postings of interleavedJourneys([stuck], 2)) await env.produce(postings);
    const stuckIds = expectedIds(stuck, both, idOf, 2);
    const lane = await eventually(async () => {
      const found = await env.deliveries.getLane(laneId(bankA, stuckUetr));
      return found && found.count === stuckIds.length && found.headFailures > 0 && found.lastError
        ? found
        : undefined;
    }, 'the refused transaction parked in its lane');
    expect(lane.pending.map((entry) => entry.eventId)).toEqual(stuckIds);

    const all = await call('GET', '/admin/events/lanes');
    expectDocumented(all, 200);
    const listed = (all.body.lanes as { memberId: string; uetr: string }[]).find(
      (entry) => entry.uetr === stuckUetr,
    );
    expect(listed).toMatchObject({
      memberId: bankA,
      queued: stuckIds.length,
      head: stuckIds[0],
      lastError: expect.stringMatching(/^HTTP 500/),
    });

    const ofA = await call('GET', `/admin/events/lanes?memberId=${bankA}&limit=500`);
    expectDocumented(ofA, 200);
    expect((ofA.body.lanes as { uetr: string }[]).map((entry) => entry.uetr)).toContain(stuckUetr);
    const one = await call('GET', '/admin/events/lanes?limit=1');
    expectDocumented(one, 200);
    expect(one.body.lanes).toHaveLength(1);
    const none = await call('GET', `/admin/events/lanes?memberId=${bankC}`);
    expectDocumented(none, 200);
    expect(none.body).toEqual({ lanes: [] });

    for (const limit of ['0', '501', 'ten', '2.5', '']) {
      expectInvalid(await call('GET', `/admin/events/lanes?limit=${limit}`), ['/limit']);
    }

    // The head waits for its retry (logged, pending); the posting behind it is queued, never tried.
    const head = await call('GET', `/admin/events/${stuckIds[0]}/deliveries`);
    expectDocumented(head, 200);
    expect(head.body.deliveries).toEqual([
      expect.objectContaining({
        memberId: bankA,
        outcome: 'pending',
        queuePosition: 0,
        nextAttemptAt: expect.any(String),
      }),
    ]);
    const behind = await call('GET', `/admin/events/${stuckIds[1]}/deliveries`);
    expectDocumented(behind, 200);
    expect(behind.body.deliveries).toEqual([
      {
        memberId: bankA,
        outcome: 'queued',
        attemptCount: 0,
        attempts: [],
        queuePosition: 1,
        nextAttemptAt: expect.any(String),
      },
    ]);
  });

  it('called every documented operation, with a success and its main errors', () => {
    const expected = [
      'POST /admin/events/replay 202',
      'POST /admin/events/replay 400',
      'POST /admin/events/replay 404',
      'POST /admin/events/replay 422',
      'GET /admin/events/lanes 200',
      'GET /admin/events/lanes 422',
      'GET /admin/events/{eventId}/deliveries 200',
      'GET /admin/events/{eventId}/deliveries 404',
    ];
    expect([...answered].sort()).toEqual(expected.sort());
    for (const operation of eventPublisherAdmin.operations) {
      const method = operation.method.toUpperCase();
      expect([...answered].some((entry) => entry.startsWith(`${method} ${operation.path} 2`))).toBe(true);
    }
  });
});
