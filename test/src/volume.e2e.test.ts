import type { SimulatorStats } from '@rp/bank-simulator';
import { completedDebitJourney } from '@rp/contracts';
import { type SampleDebit, sampleOnUsDebit } from '@rp/launcher';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type EndToEnd,
  mapBounded,
  root,
  startEndToEnd,
  transactionStateTypes,
  waitUntil,
} from './pipeline.ts';

const total = 1_000;
const inFlight = 20;
/** This machine is slow and shared (FerretDB does ~600 updates/s): generous, but finite. */
const processingDeadlineMs = 25 * 60_000;
const bank = '250655';
const completedName = 'TRANSACTION_STATE_DEBIT_COMPLETED';

let e2e: EndToEnd;
beforeAll(async () => {
  // Production's bank request timeout (10 s): under load a slow answer must not turn into a resend.
  e2e = await startEndToEnd({ serviceEnv: { dispatcher: { BANK_REQUEST_TIMEOUT: '10s' } } });
});
afterAll(async () => {
  await e2e?.stop();
});

const ingressReady = () =>
  fetch(`${e2e.pipeline.url('ingress')}/health/ready`, { signal: AbortSignal.timeout(5_000) }).then(
    async (response) => {
      await response.arrayBuffer();
      return response.ok;
    },
    () => false,
  );

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

describe('volume', () => {
  it(`carries ${total.toLocaleString('en')} on-us debits through the whole exchange: none lost, none duplicated, each in order`, {
    timeout: processingDeadlineMs + 15 * 60_000,
  }, async () => {
    const samples: SampleDebit[] = Array.from({ length: total }, () => sampleOnUsDebit(root));
    const uetrs = new Set(samples.map((sample) => sample.uetr));
    const before = await e2e.bank.stats();
    const completedPostings = (stats: SimulatorStats) =>
      (stats.postingsByName[completedName] ?? 0) - (before.postingsByName[completedName] ?? 0);
    const t0 = performance.now();

    // The initiating bank sends them, about 20 at a time, and every one ends up answered 202. Like a
    // bank (spec section 7 row 2), it resends a debit the service refused with 503, once the ingress
    // says it is ready again (the shared MongoDB-compatible server can stall under load).
    let answered = 0;
    let lastSendLog = t0;
    const outcomes = await mapBounded(samples, inFlight, async (sample) => {
      const statuses: number[] = [];
      for (let attempt = 1; attempt <= 10; attempt += 1) {
        const response = await e2e.post('outbound/direct-debit', sample.body);
        await response.arrayBuffer();
        statuses.push(response.status);
        if (response.status === 202) answered += 1;
        if (performance.now() - lastSendLog > 15_000) {
          lastSendLog = performance.now();
          console.log(`volume: ${answered} debits answered 202 after ${seconds(lastSendLog - t0)}`);
        }
        if (response.status !== 503) break;
        await waitUntil(
          async () => ((await ingressReady()) ? true : undefined),
          'the ingress to be ready again',
          10 * 60_000,
          250,
        );
      }
      return statuses;
    });
    const sentMs = performance.now() - t0;
    const refusals = outcomes.flat().filter((status) => status === 503).length;
    expect(outcomes.filter((statuses) => statuses.at(-1) !== 202)).toEqual([]);
    expect(outcomes.flat().filter((status) => status !== 202 && status !== 503)).toEqual([]);
    console.log(
      `volume: ${total} debits answered 202 in ${seconds(sentMs)} (${Math.round(total / (sentMs / 1000))}/s; ${refusals} refusals with 503 resent)`,
    );

    // The debit window opens. Wait (on the simulator's counters) until the bank holds a DEBIT_COMPLETED
    // posting for as many transactions as were sent: a transaction's postings arrive in order, and
    // that is its last TRANSACTION_STATE posting.
    await e2e.openDebitWindow();
    const t1 = performance.now();
    let lastLog = t1;
    await waitUntil(
      async () => {
        const stats = await e2e.bank.stats();
        const completed = completedPostings(stats);
        if (performance.now() - lastLog > 15_000) {
          lastLog = performance.now();
          const debits = stats.routes.inbound.accepted - before.routes.inbound.accepted;
          const acknowledged = stats.responses.acknowledged - before.responses.acknowledged;
          console.log(
            `volume: after ${seconds(lastLog - t1)}: ${debits} inbound debits, ${acknowledged} reports acknowledged, ${completed} DEBIT_COMPLETED postings`,
          );
        }
        return completed >= total ? stats : undefined;
      },
      `${total} DEBIT_COMPLETED postings`,
      processingDeadlineMs,
      500,
    );
    const processedMs = performance.now() - t1;
    console.log(
      `volume: ${total} debits completed ${seconds(processedMs)} after the window opened; ${seconds(performance.now() - t0)} from the first send`,
    );

    // Each inbound debit reached the actioning bank exactly once per messageIdentification; each
    // status report went to the initiating bank; no report of the actioning bank was given up on.
    const stats = await e2e.bank.stats();
    expect(stats.routes.inbound.accepted - before.routes.inbound.accepted).toBe(total);
    expect(stats.routes.inbound.duplicates - before.routes.inbound.duplicates).toBe(0);
    expect(stats.routes.outbound.accepted - before.routes.outbound.accepted).toBe(total);
    expect(stats.responses.failed - before.responses.failed).toBe(0);
    expect(completedPostings(stats)).toBe(total);
    // The bank's own check, on every posting as it arrived (the books below read each transaction's).
    expect(stats.outOfOrder - before.outOfOrder).toBe(0);
    const inbound = (await e2e.bank.messages('inboundDirectDebit')).filter((message) =>
      uetrs.has(message.uetr),
    );
    expect(inbound).toHaveLength(total);
    expect(inbound.filter((message) => message.duplicates !== 0)).toEqual([]);
    expect(new Set(inbound.map((message) => message.uetr)).size).toBe(total);
    const sentIds = new Map(samples.map((sample) => [sample.uetr, sample.messageIdentification]));
    expect(inbound.filter((message) => sentIds.get(message.uetr) !== message.messageIdentification)).toEqual(
      [],
    );
    const reports = (await e2e.bank.messages('outboundDirectDebitResponse')).filter((message) =>
      uetrs.has(message.uetr),
    );
    expect(new Set(reports.map((message) => message.uetr)).size).toBe(total);

    // Every transaction: its TRANSACTION_STATE postings in state order (one DEBIT_COMPLETED, stage
    // versions 1..9), and the tracker's snapshot final with the same nine states.
    const wrong = (
      await mapBounded([...uetrs], inFlight, async (uetr) => {
        const postings = (await e2e.bank.postings(uetr, bank)).filter(
          (entry) => entry.posting.class === 'TRANSACTION_STATE',
        );
        const types = transactionStateTypes(postings);
        const versions = postings.map((entry) =>
          entry.posting.class === 'TRANSACTION_STATE' ? entry.posting.stageVersion : 0,
        );
        const snapshot = await e2e.transaction(uetr);
        const history = snapshot?.history.map((entry) => entry.eventType) ?? [];
        const ok =
          types.join() === completedDebitJourney.join() &&
          versions.join() === '1,2,3,4,5,6,7,8,9' &&
          snapshot?.state === 'DEBIT_COMPLETED' &&
          history.join() === completedDebitJourney.join();
        return ok ? undefined : { uetr, types, versions, state: snapshot?.state, history };
      })
    ).filter((entry) => entry !== undefined);
    expect(wrong).toEqual([]);
    console.log(`volume: checked, ${seconds(performance.now() - t0)} from the first send`);
  });
});
