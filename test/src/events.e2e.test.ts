import { randomUUID } from 'node:crypto';
import type { SimulatorStats } from '@rp/bank-simulator';
import { completedDebitJourney, type KnownEventType, transactionEventTypes } from '@rp/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  checkCompletedDebit,
  type JourneySummary,
  postingsOnceArrived,
  reachedFinalPosting,
  runCli,
} from './events-helpers.ts';
import { type EndToEnd, mapBounded, startEndToEnd, waitUntil } from './pipeline.ts';

// Event postings end to end: every service a process on the real stack, the bank simulator as the bank
// (it validates every posting against the contracts, verifies every signature with the bank's secrets,
// keeps each event id once and counts the repeats).

const transactions = Number(process.env.RP_E2E_EVENT_TRANSACTIONS ?? 1000);
const bank = '250655';
const postingsPerDebit = completedDebitJourney.length * 2; // TRANSACTION_STATE + ESM_STATE per stage
const postingsWhenQueued = completedDebitJourney.indexOf('DEBIT_QUEUED') * 2 + 2;

let e2e: EndToEnd;
let simulator: string;
let publisher: string;
const journeys: JourneySummary[] = [];

beforeAll(async () => {
  // The bank also refuses a webhook-timestamp more than 5 minutes off, as the receiver guide says.
  e2e = await startEndToEnd({ serviceEnv: { 'bank-simulator': { SIGNATURE_TOLERANCE: '300' } } });
  simulator = e2e.pipeline.url('bank-simulator');
  publisher = e2e.pipeline.url('event-publisher');
});

afterAll(async () => {
  await e2e?.stop();
});

const stats = (): Promise<SimulatorStats> => e2e.bank.stats();

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** The CLI's environment of an operator with `role`: the access token in RP_ADMIN_TOKEN. */
async function operatorEnv(role: 'operator.read' | 'operator.replay'): Promise<Record<string, string>> {
  return { RP_ADMIN_TOKEN: (await e2e.pipeline.operatorAuthorization(role)).replace(/^Bearer /, '') };
}

async function snapshotOf(uetr: string) {
  const response = await e2e.admin('tracker', `/admin/transactions/${uetr}`);
  expect(response.status).toBe(200);
  return (await response.json()) as {
    state: string;
    version: number;
    history: { eventType: string; service: string; seq: number }[];
    messages: unknown[];
  };
}

interface DeliveriesAnswer {
  deliveries: {
    memberId: string;
    outcome: string;
    attemptCount: number;
    attempts: { httpStatus: number | null }[];
  }[];
}

/** The bank's delivery log entry of one posting (the event publisher's admin API). */
async function deliveryOf(eventId: string) {
  const response = await e2e.admin('event-publisher', `/admin/events/${eventId}/deliveries`);
  expect(response.status).toBe(200);
  const entry = ((await response.json()) as DeliveriesAnswer).deliveries.find(
    (delivery) => delivery.memberId === bank,
  );
  expect(entry).toBeDefined();
  const { outcome, attemptCount, attempts } = entry as DeliveriesAnswer['deliveries'][number];
  return { outcome, attemptCount, lastStatus: attempts.at(-1)?.httpStatus };
}

describe('event postings of 1,000 on-us debits', () => {
  it(
    'reach the bank once each, in state order per UETR, signed, valid, with their ESM_STATE postings',
    async () => {
      const t0 = Date.now();
      const uetrs = await mapBounded(Array.from({ length: transactions }), 16, async () => {
        const { uetr, response } = await e2e.sendDebit();
        expect(response.status).toBe(202);
        return uetr;
      });
      const sent = Date.now();

      // Held until the debit window: each debit's postings up to DEBIT_QUEUED, then the window opens.
      const deadline = Date.now() + 20 * 60_000;
      for (const uetr of uetrs) await postingsOnceArrived(simulator, uetr, postingsWhenQueued, deadline);
      const queued = Date.now();
      await e2e.openDebitWindow();

      // Waited for one after the other: a transaction already complete answers at once. A journey that
      // reached its final posting short of a stage is not waited for any longer: the check names it.
      for (const uetr of uetrs) {
        let postings = await postingsOnceArrived(simulator, uetr, postingsPerDebit, deadline);
        while (!reachedFinalPosting(postings)) {
          postings = await postingsOnceArrived(simulator, uetr, postings.length + 1, deadline);
        }
        journeys.push(checkCompletedDebit(uetr, postings));
      }
      const completed = Date.now();
      const after = await stats();
      const events = after.routes.events;
      console.info(
        `${transactions} on-us debits: sent in ${seconds(sent - t0)}, all queued ${seconds(queued - t0)}, ` +
          `every posting at the bank ${seconds(completed - t0)} after the first was sent ` +
          `(${seconds(completed - queued)} after the window opened); ${events.accepted} postings stored, ` +
          `${events.duplicates} duplicates, ${events.invalid} invalid, ${events.signatureFailures} signature failures`,
      );

      const problems = journeys.flatMap((journey) => journey.problems);
      expect(problems.slice(0, 20), `${problems.length} problems`).toEqual([]);
      expect(journeys).toHaveLength(transactions);
      const expected = transactions * postingsPerDebit;
      expect(new Set(journeys.flatMap((journey) => journey.ids)).size).toBe(expected);
      // The bank counted every request: each stored once, the rest repeats of an id it had.
      expect(events.accepted).toBe(expected);
      expect(events.invalid).toBe(0);
      expect(events.signatureFailures).toBe(0);
      expect(after.signatureFailures).toBe(0);
      expect(events.received).toBe(events.accepted + events.duplicates);

      // The bank's own reports: each one answered 202 by the ingress in the end, however many times the
      // bank had to send it (a report whose 202 was lost is answered again from the idempotency record).
      const reports = await waitUntil(
        async () => {
          const { responses } = await stats();
          return responses.pending === 0 ? responses : undefined;
        },
        "every one of the bank's reports acknowledged",
        5 * 60_000,
      );
      expect(reports).toMatchObject({ sent: transactions, acknowledged: transactions, failed: 0 });
      console.info(
        `the bank's ${reports.sent} reports: ${reports.attempts} attempts until each was acknowledged`,
      );
    },
    30 * 60_000,
  );

  it('were emitted by the services the event type catalogue names', async () => {
    expect(journeys).toHaveLength(transactions);
    const sample = journeys.filter((_, index) => index % Math.max(1, Math.floor(transactions / 20)) === 0);
    for (const { uetr } of sample) {
      const snapshot = await snapshotOf(uetr);
      expect(snapshot.state).toBe('DEBIT_COMPLETED');
      // A bank's report recorded before the dispatcher's record of its 202 makes the tracker apply the
      // delivery it implies itself (services/tracker/README.md): DEBIT_DELIVERED by the tracker then.
      const implied = (entry: { eventType: string; service: string }) =>
        entry.eventType === 'DEBIT_DELIVERED' && entry.service === 'tracker';
      expect(
        snapshot.history.map((entry) => [entry.eventType, implied(entry) ? 'dispatcher' : entry.service]),
      ).toEqual(
        completedDebitJourney.map((type) => [type, transactionEventTypes[type as KnownEventType].emittedBy]),
      );
    }
  });
});

describe('replay through the CLI', () => {
  it('delivers one transaction again: the bank sees the same event ids once more, nothing else changes', async () => {
    const journey = journeys[0] as JourneySummary;
    expect(journey).toBeDefined();
    const { uetr } = journey;
    const ids = journey.ids.map((id) => id.slice(id.indexOf(':') + 1));
    const before = await stats();
    const postingsBefore = await e2e.bank.postings(uetr);
    const messagesBefore = await e2e.bank.messages(undefined, uetr);
    const snapshotBefore = await snapshotOf(uetr);
    // The CLI's JSON view of the first posting's log; the others straight from the admin API.
    const logBefore = await runCli(
      ['deliveries', ids[0] as string, '--url', publisher, '--json'],
      await operatorEnv('operator.read'),
    );
    expect(logBefore.code, logBefore.stderr).toBe(0);
    const firstBefore = (JSON.parse(logBefore.stdout) as DeliveriesAnswer).deliveries.find(
      (delivery) => delivery.memberId === bank,
    );
    const attemptsBefore = await Promise.all(ids.map((id) => deliveryOf(id)));
    expect(firstBefore?.attemptCount).toBe(attemptsBefore[0]?.attemptCount);
    expect(attemptsBefore.every((delivery) => delivery.outcome === 'delivered')).toBe(true);

    const replay = await runCli(['replay', '--bank', bank, '--uetr', uetr], {
      EVENT_PUBLISHER_URL: publisher,
      ...(await operatorEnv('operator.replay')),
    });
    expect(replay.stderr).toBe('');
    expect(replay.code).toBe(0);
    expect(replay.stdout).toContain(
      `replay to bank ${bank} (transaction ${uetr}): ${ids.length} postings of 1 transaction queued again`,
    );
    // The ids it lists are the transaction's, in the order they were produced (the order the bank got them).
    const listed = replay.stdout
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => /^(EVT|ESM)[0-9a-f]{32}$/.test(line));
    expect(listed).toEqual(ids);
    // Audited: who (the operator's token subject), what and when.
    const audit = (await (
      await e2e.admin('tracker', '/admin/audit?action=events.replay&limit=5')
    ).json()) as {
      entries: { actor: string; target: string; at: string }[];
    };
    expect(audit.entries).toContainEqual(
      expect.objectContaining({
        actor: e2e.pipeline.operatorClients.admin.id,
        target: `bank ${bank} transaction ${uetr}`,
      }),
    );

    // Every replayed id was sent to the bank once more and answered (a duplicate: the bank had it).
    await waitUntil(async () => {
      const now = await Promise.all(ids.map((id) => deliveryOf(id)));
      return now.every(
        (delivery, index) => delivery.attemptCount > (attemptsBefore[index]?.attemptCount as number),
      )
        ? now
        : undefined;
    }, 'every replayed posting delivered again');
    const attemptsAfter = await Promise.all(ids.map((id) => deliveryOf(id)));
    expect(
      attemptsAfter.map((delivery) => [delivery.attemptCount, delivery.outcome, delivery.lastStatus]),
    ).toEqual(attemptsBefore.map((delivery) => [delivery.attemptCount + 1, 'delivered', 202]));

    const after = await stats();
    expect(after.routes.events.duplicates).toBeGreaterThanOrEqual(
      before.routes.events.duplicates + ids.length,
    );
    // Nothing new stored, every extra request a repeat, nothing invalid or unsigned, no other exchange.
    expect(after.routes.events.accepted).toBe(before.routes.events.accepted);
    expect(after.routes.events.received - before.routes.events.received).toBe(
      after.routes.events.duplicates - before.routes.events.duplicates,
    );
    expect(after.routes.events.invalid).toBe(0);
    expect(after.signatureFailures).toBe(0);
    expect(after.routes.inbound).toEqual(before.routes.inbound);
    expect(after.routes.outbound).toEqual(before.routes.outbound);
    expect(await e2e.bank.postings(uetr)).toEqual(postingsBefore);
    expect(await e2e.bank.messages(undefined, uetr)).toEqual(messagesBefore);
    expect(await snapshotOf(uetr)).toEqual(snapshotBefore);
    console.info(
      `replay of ${uetr}: ${ids.length} postings sent again; the bank counted ${
        after.routes.events.duplicates - before.routes.events.duplicates
      } duplicates meanwhile`,
    );

    const log = await runCli(
      ['deliveries', ids[0] as string, '--url', publisher],
      await operatorEnv('operator.read'),
    );
    expect(log.code, log.stderr).toBe(0);
    expect(log.stdout).toContain(
      `event ${ids[0]}: TRANSACTION_STATE_DEBIT_REQUEST_RECEIVED (stageVersion 1)`,
    );
    const expectedAttempts = (attemptsBefore[0]?.attemptCount as number) + 1;
    expect(log.stdout).toContain(`bank ${bank}: delivered, ${expectedAttempts} attempts`);
    expect(log.stdout.match(/HTTP 202 +\d+ ms/g)?.length, log.stdout).toBe(expectedAttempts);
  });

  it('replays nothing for a range without postings, and says so', async () => {
    const before = await stats();
    const result = await runCli(
      [
        'replay',
        '--bank',
        bank,
        '--from',
        '2001-01-01T00:00:00Z',
        '--to',
        '2001-01-02T00:00:00+02:00',
        '--url',
        publisher,
      ],
      await operatorEnv('operator.replay'),
    );
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.trim()).toBe(
      `nothing to replay: no posting of 2001-01-01T00:00:00.000Z to 2001-01-01T22:00:00.000Z was sent to bank ${bank}`,
    );
    expect((await stats()).routes.events.received).toBe(before.routes.events.received);
  });

  it('exits non-zero with the reason for a refused call or bad arguments', async () => {
    const uetr = randomUUID();
    const replayer = await operatorEnv('operator.replay');
    const unknownBank = await runCli(
      ['replay', '--bank', '999999', '--uetr', uetr, '--url', publisher],
      replayer,
    );
    expect(unknownBank.code).toBe(1);
    expect(unknownBank.stdout).toBe('');
    expect(unknownBank.stderr.trim()).toBe(
      'rp replay: the event publisher refused the replay: HTTP 404 Not Found: bank 999999 is not a participant that receives events',
    );

    const badArguments = await runCli([
      'replay',
      '--bank',
      bank,
      '--uetr',
      uetr,
      '--from',
      '2026-01-01T00:00:00Z',
    ]);
    expect(badArguments.code).toBe(2);
    expect(badArguments.stderr).toContain('rp replay: give either --uetr or --from and --to, not both');

    const unknownEvent = await runCli(['deliveries', `EVT${'0'.repeat(32)}`, '--url', publisher], replayer);
    expect(unknownEvent.code).toBe(1);
    expect(unknownEvent.stderr).toContain('HTTP 404 Not Found: no posting');

    // Without a token, or with a read-only operator's, a replay is refused and nothing is queued.
    const unsigned = await runCli(['replay', '--bank', bank, '--uetr', uetr, '--url', publisher]);
    expect(unsigned.code).toBe(1);
    expect(unsigned.stderr).toContain('HTTP 401 Unauthorized');
    expect(unsigned.stderr).toContain('RP_ADMIN_TOKEN');
    const reader = await runCli(
      ['replay', '--bank', bank, '--uetr', uetr, '--url', publisher],
      await operatorEnv('operator.read'),
    );
    expect(reader.code).toBe(1);
    expect(reader.stderr).toContain('HTTP 403 Forbidden: This call needs the operator.replay role');
  });
});
