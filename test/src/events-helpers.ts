import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { ReceivedPosting } from '@rp/bank-simulator';
import {
  completedDebitJourney,
  eventsApiVersion,
  type KnownEventType,
  transactionEventTypes,
} from '@rp/contracts';
import { root } from './pipeline.ts';
import { runProgram } from './process.ts';

/**
 * A uetr's postings at the bank once at least `count` arrived, on the simulator's long poll (asked
 * again while the deadline allows: one poll is capped at two minutes). Rejects at the deadline.
 */
export async function postingsOnceArrived(
  simulatorUrl: string,
  uetr: string,
  count: number,
  deadline: number,
): Promise<ReceivedPosting[]> {
  for (;;) {
    const timeoutMs = Math.max(1, Math.min(110_000, deadline - Date.now()));
    const query = new URLSearchParams({ uetr, count: String(count), timeoutMs: String(timeoutMs) });
    const response = await fetch(`${simulatorUrl}/sim/postings/wait?${query}`, {
      signal: AbortSignal.timeout(timeoutMs + 10_000),
    });
    if (!response.ok) throw new Error(`wait for ${uetr}: HTTP ${response.status} ${await response.text()}`);
    const answer = (await response.json()) as { complete: boolean; postings: ReceivedPosting[] };
    if (answer.complete) return answer.postings;
    if (Date.now() >= deadline) {
      throw new Error(`${answer.postings.length} of ${count} postings for ${uetr} arrived in time`);
    }
  }
}

/** Whether the postings end with the ESM_STATE posting of DEBIT_COMPLETED (nothing follows it). */
export function reachedFinalPosting(postings: readonly ReceivedPosting[]): boolean {
  const last = postings.at(-1)?.posting;
  const beforeLast = postings.at(-2)?.posting;
  return (
    last?.class === 'ESM_STATE' &&
    beforeLast?.class === 'TRANSACTION_STATE' &&
    beforeLast.type === 'DEBIT_COMPLETED'
  );
}

/** What one transaction's postings looked like at the bank, in arrival order. */
export interface JourneySummary {
  readonly uetr: string;
  /** `<class>:<eventId>` per posting, in arrival order. */
  readonly ids: readonly string[];
  readonly problems: readonly string[];
}

/**
 * Checks one completed on-us debit's postings as the bank stored them (the simulator keeps each event
 * id once, in the order of first arrival): every TRANSACTION_STATE posting of the journey once, in state
 * order (stageVersion 1, 2, ...), each followed by its ESM_STATE posting with the catalogue's ESM states,
 * every signature verified, the API version of this release. An ESM_STATE posting's event id is its
 * stage's (`ESM` in place of `EVT`), so two stages with alike ESM_STATE postings still get one each.
 */
export function checkCompletedDebit(uetr: string, postings: readonly ReceivedPosting[]): JourneySummary {
  const problems: string[] = [];
  const problem = (text: string) => problems.push(`${uetr}: ${text}`);
  const labels: string[] = [];
  const expected: string[] = [];
  const versions: number[] = [];
  let lastType: KnownEventType | undefined;
  let lastStageId: string | undefined;
  let awaitingEsm = false;
  for (const received of postings) {
    const { posting } = received;
    if (received.uetr !== uetr) problem(`posting ${received.eventId} is filed under ${received.uetr}`);
    if (!received.signatureVerified) problem(`posting ${received.eventId} was not signature-verified`);
    if (posting.apiVersion !== eventsApiVersion) {
      problem(`posting ${received.eventId}: apiVersion ${posting.apiVersion}`);
    }
    if (posting.class === 'TRANSACTION_STATE') {
      const type = posting.type as KnownEventType;
      if (posting.messageInfo.messageIdentification !== received.eventId) {
        problem(`webhook-id ${received.eventId} is not ${posting.messageInfo.messageIdentification}`);
      }
      if (posting.name !== `TRANSACTION_STATE_${type}`) problem(`name ${posting.name}`);
      if (posting.tranInfo.tranUetr !== uetr) problem(`tranUetr ${posting.tranInfo.tranUetr}`);
      labels.push(`TRANSACTION_STATE ${type}`);
      expected.push(`TRANSACTION_STATE ${type}`, `ESM_STATE ${type}`);
      versions.push(posting.stageVersion);
      awaitingEsm = true;
      lastType = type;
      lastStageId = received.eventId;
      continue;
    }
    // An ESM_STATE posting carries the ESM states of the stage it follows.
    const esm = lastType ? transactionEventTypes[lastType]?.esm : undefined;
    const state = `${posting.state.transactionState}/${posting.state.financialTransactionState}`;
    if (!esm || state !== `${esm.transactionState}/${esm.financialTransactionState}`) {
      problem(`ESM_STATE after ${lastType}: ${state}, catalogue ${JSON.stringify(esm)}`);
    }
    if (posting.identifiers.uetr !== uetr) problem(`ESM identifiers.uetr ${posting.identifiers.uetr}`);
    if (lastStageId !== undefined && received.eventId !== `ESM${lastStageId.slice(3)}`) {
      problem(`ESM_STATE posting ${received.eventId} does not pair with its stage's ${lastStageId}`);
    }
    labels.push(`ESM_STATE ${awaitingEsm ? lastType : 'without its stage'}`);
    awaitingEsm = false;
  }
  const journey = completedDebitJourney.map((type) => `TRANSACTION_STATE ${type}`);
  if (
    JSON.stringify(labels.filter((label) => label.startsWith('TRANSACTION_STATE'))) !==
    JSON.stringify(journey)
  ) {
    problem(`TRANSACTION_STATE postings in arrival order ${JSON.stringify(labels)}`);
  } else if (JSON.stringify(labels) !== JSON.stringify(expected)) {
    problem(`postings in arrival order ${JSON.stringify(labels)}`);
  }
  if (JSON.stringify(versions) !== JSON.stringify(completedDebitJourney.map((_, index) => index + 1))) {
    problem(`stageVersions in arrival order ${JSON.stringify(versions)}`);
  }
  const ids = postings.map((received) => `${received.posting.class}:${received.eventId}`);
  if (new Set(postings.map((received) => received.eventId)).size !== postings.length) {
    problem('an event id was stored twice');
  }
  return { uetr, ids, problems };
}

export interface CliResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

const cliMain = join(root, 'packages', 'cli', 'dist', 'main.js');

/** Runs the operator CLI (`rp <args>`, built) as its own process, as an operator would. */
export async function runCli(
  args: readonly string[],
  env: Readonly<Record<string, string>> = {},
): Promise<CliResult> {
  if (!existsSync(cliMain)) {
    throw new Error(`the CLI is not built (${cliMain} missing); run the build first`);
  }
  const { code, stdout, stderr } = await runProgram(process.execPath, [cliMain, ...args], {
    env: { ...process.env, ...env },
    timeoutMs: 120_000,
  });
  return { code, stdout, stderr };
}
