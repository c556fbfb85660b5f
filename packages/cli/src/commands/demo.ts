import { join } from 'node:path';
import {
  anyTimeWindows,
  clearOfDayEnd,
  defaultBank,
  johannesburgDate,
  launchPipeline,
  type Pipeline,
  pipelineWindowKeeper,
  sampleOnUsDebit,
  schedulerWindows,
  stopAndDrop,
} from '@rp/launcher';
import { stackUp } from '@rp/local-stack';
import { formatSeconds } from '../process.ts';

const basePort = Number(process.env.RP_DEMO_BASE_PORT ?? 18180);
/** What the demo's journey may take, from its debit sent to its last posting read. */
const demoBudgetMs = 2 * 60_000;

/**
 * `rp demo`: the local stack, every service as its own process, the bank simulator as the bank, one on-us
 * debit sent through the whole journey, and its event postings as the bank received them.
 */
export async function demoCommand(root: string): Promise<number> {
  const started = Date.now();
  const stack = await stackUp();
  const run = `demo-${Date.now().toString(36)}`;
  const logDir = join(root, '.local', 'demo', run);
  console.log(`\nstarting the pipeline (${run}); logs in ${logDir}`);
  let pipeline: Pipeline | undefined;
  let stopKeeper = () => {};
  try {
    pipeline = await launchPipeline({
      root,
      endpoints: stack,
      run,
      logDir,
      ports: {
        'bank-simulator': basePort,
        tracker: basePort + 1,
        'event-publisher': basePort + 2,
        validator: basePort + 3,
        scheduler: basePort + 4,
        dispatcher: basePort + 5,
        ingress: basePort + 6,
      },
      // Windows that hold at any hour: the debit waits for today's window, which the demo opens itself.
      env: { ...anyTimeWindows, RESPONSE_DELAY: '500ms' },
      onReady: (service, port, ms) =>
        console.log(`  ${service.padEnd(16)} ready on :${port} (${formatSeconds(ms)})`),
    });
    const simulator = pipeline.url('bank-simulator');
    // A journey that midnight in Johannesburg would cut short (the day's reconciliation close) waits for
    // the new business day.
    await clearOfDayEnd(demoBudgetMs, {
      schedulers: [schedulerWindows(pipeline)],
      log: (line) => console.log(`  ${line}`),
    });
    const { uetr, body } = sampleOnUsDebit(root, { collectionDate: johannesburgDate() });
    console.log(`\nsending an on-us direct debit, uetr ${uetr}`);
    // The bank's access token from the identity provider the simulator plays (OAuth2 client credentials).
    const authorization = await pipeline.bankAuthorization(defaultBank.memberId);
    const response = await fetch(`${pipeline.apiUrl}/outbound/direct-debit`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization },
      body,
    });
    console.log(`  POST /api/v1/outbound/direct-debit -> ${response.status} ${await response.text()}`);
    if (response.status !== 202) return 1;

    type Received = {
      posting: {
        class: string;
        type?: string;
        stageVersion?: number;
        messageInfo?: { creationDateTime?: string };
      };
    };
    const postings = async (count: number): Promise<Received[]> => {
      const url = `${simulator}/sim/postings/wait?uetr=${uetr}&count=${count}&timeoutMs=20000`;
      const answer = (await (await fetch(url)).json()) as { postings?: Received[] };
      return answer.postings ?? [];
    };
    const isFinal = (entry: Received) =>
      ['DEBIT_COMPLETED', 'DEBIT_UNPAID'].includes(String(entry.posting.type));
    const queued = await postings(10);
    console.log(`  ${queued.length} postings so far; opening the debit window (admin trigger)`);
    // As an operator who may act (operator.replay), with a token from the same identity provider; a demo
    // at midnight in Johannesburg has the new business day's window opened too, as an operator would.
    const keeper = pipelineWindowKeeper(pipeline, (line) => console.log(`  ${line}`));
    try {
      await keeper.openToday();
    } catch (error) {
      console.log(`  ${error instanceof Error ? error.message : String(error)}`);
      return 1;
    }
    stopKeeper = keeper.every(1_000);
    let journey = queued;
    const journeyDeadline = Date.now() + 90_000;
    while (!journey.some(isFinal) && Date.now() < journeyDeadline) {
      const next = await postings(journey.length + 1);
      if (next.length === journey.length) break;
      journey = next;
    }
    journey = await postings(journey.length + (journey.some(isFinal) ? 1 : 0)).then((all) =>
      all.length >= journey.length ? all : journey,
    );

    console.log(`\nthe journey, as the bank's /events endpoint received it (${journey.length} postings):`);
    for (const { posting } of journey) {
      if (posting.class !== 'TRANSACTION_STATE') continue;
      const at = posting.messageInfo?.creationDateTime ?? '';
      console.log(`  ${String(posting.stageVersion).padStart(2)}  ${String(posting.type).padEnd(32)} ${at}`);
    }
    const esm = journey.filter(({ posting }) => posting.class === 'ESM_STATE').length;
    console.log(`  (and ${esm} ESM_STATE postings for the ZA_EFT record)`);
    const final = journey.some(isFinal);
    const outcome = final ? 'finished: the debit reached a final state' : 'ended before the debit was final';
    console.log(`\ndemo ${outcome} in ${formatSeconds(Date.now() - started)}`);
    return final ? 0 : 1;
  } finally {
    stopKeeper();
    await stopAndDrop(pipeline);
  }
}
