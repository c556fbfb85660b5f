import {
  anyTimeWindows,
  johannesburgDate,
  launchPipeline,
  type Pipeline,
  type PipelineEndpoints,
  pipelineServices,
  pipelineWindowKeeper,
  sampleOnUsDebit,
} from '@rp/launcher';
import { connectStore } from '@rp/store';
import { collectGarbage, freePort, inspectOption } from './inspector.ts';
import {
  benchNodeOptions,
  benchServicesEnvironment,
  perRunningProcess,
  serviceMetrics,
  servicesMemory,
} from './pipeline.ts';
import type { Row } from './report.ts';
import { servicesEnvironment, servicesEnvironmentRow } from './service-env.ts';
import { bounded, metricValue, percentile, round } from './stats.ts';

export interface QueueMemoryOptions {
  readonly root: string;
  readonly endpoints: PipelineEndpoints;
  readonly run: string;
  /** The smaller queue, the yardstick (the issue's 100,000). */
  readonly small: number;
  /** The larger queue (the issue's 1,000,000). */
  readonly large: number;
  /** Queue writes in flight while seeding. */
  readonly concurrency: number;
  /** How long the release is watched at most. */
  readonly releaseMinutes: number;
}

/**
 * Each service's resident set while a large queue of accepted debits waits for the debit window, beside
 * its figure with a queue a tenth of the size, then while the scheduler releases the queue and after.
 *
 * The queue is written straight into the scheduler's `debit_queue` through the store's own `enqueue` (the
 * write the scheduler makes when both halves of an on-us debit met in its memory, an insert): the pipeline queues about 30
 * debits a second on this kind of machine, so a million through the ingress would take the better part of
 * a day. Every service runs meanwhile; the scheduler is the one that holds the queue and releases it.
 * Nothing counts the queue meanwhile (the scheduler's count for its gauge is turned off,
 * `QUEUE_DEPTH_INTERVAL=0`): on the local MongoDB stand-in a count by status scans every document, about
 * 0.1 ms each, and over 100,000 queued debits it outlasts the 30 s query limit (on MongoDB the status
 * index answers it). The release is the scheduler's alone: the dispatcher is stopped before the window
 * opens, so the million debits wait on `rp.directdebit.due.v1` instead of flooding the bank simulator
 * (their journeys would take hours at the pipeline's rate).
 */
export async function queueMemoryBench(
  options: QueueMemoryOptions,
  log: (line: string) => void,
): Promise<Row[]> {
  const inspectors: Record<string, number> = {};
  for (const service of pipelineServices) inspectors[service] = await freePort();
  const pipeline = await launchPipeline({
    root: options.root,
    endpoints: options.endpoints,
    run: options.run,
    env: { LOG_LEVEL: 'warn', RESPONSE_DELAY: '0ms', ...anyTimeWindows },
    serviceEnv: Object.fromEntries(
      pipelineServices.map((service) => [
        service,
        {
          NODE_OPTIONS: benchNodeOptions([inspectOption(inspectors[service] as number)]),
          ...(service === 'scheduler' ? { QUEUE_DEPTH_INTERVAL: '0' } : {}),
        },
      ]),
    ),
  });
  const store = await connectStore({
    uri: options.endpoints.mongodbUri,
    database: pipeline.database,
    appName: 'bench-queue-seed',
  });
  const scheduler = pipeline.url('scheduler');
  const rows: Row[] = [servicesEnvironmentRow(servicesEnvironment(benchServicesEnvironment(pipeline)))];
  try {
    const released = async () =>
      metricValue(await serviceMetrics(pipeline, 'scheduler'), 'rp_scheduler_debits_released_total');
    const idle = await settledMemory(pipeline, log);
    const windowDate = johannesburgDate();
    let seeded = 0;
    const seed = async (upTo: number) => {
      const started = performance.now();
      const count = upTo - seeded;
      await bounded(count, options.concurrency, async () => {
        const sample = sampleOnUsDebit(options.root, { collectionDate: windowDate });
        const at = new Date();
        const { outcome } = await store.debitQueue.enqueue(
          {
            uetr: sample.uetr,
            windowDate,
            requestedCollectionDate: windowDate,
            creditorAgentMemberId: '250655',
            origin: 'on-us',
            enqueuedAt: at,
            messageJson: sample.body,
          },
          at,
          { acceptedAt: at, statusReportAcknowledgedAt: at, statusReportId: `RPT-${sample.uetr}` },
          { unwritten: true },
        );
        if (outcome !== 'enqueued') throw new Error(`debit ${sample.uetr} was not queued: ${outcome}`);
        seeded += 1;
        if (seeded % 50_000 === 0) log(`  ${seeded.toLocaleString('en-US')} queued`);
      });
      const seconds = (performance.now() - started) / 1000;
      return { seconds, rate: count / seconds };
    };

    log(`queue memory: queueing ${options.small.toLocaleString('en-US')} debits`);
    const toSmall = await seed(options.small);
    const atSmall = await settledMemory(pipeline, log);
    log(`  resident MB with ${options.small.toLocaleString('en-US')} queued: ${JSON.stringify(atSmall)}`);
    const collectedSmall = await collectedMemory(pipeline, inspectors);
    log(`  after a forced collection (MB): ${JSON.stringify(collectedSmall)}`);
    log(`queue memory: queueing up to ${options.large.toLocaleString('en-US')} debits`);
    const toLarge = await seed(options.large);
    const atLarge = await settledMemory(pipeline, log);
    log(`  resident MB with ${options.large.toLocaleString('en-US')} queued: ${JSON.stringify(atLarge)}`);
    const collectedLarge = await collectedMemory(pipeline, inspectors);
    log(`  after a forced collection (MB): ${JSON.stringify(collectedLarge)}`);

    log(
      `queue memory: the scheduler releases the queue (the dispatcher stopped), for ${options.releaseMinutes} min at most`,
    );
    await pipeline.kill('dispatcher', 'SIGTERM');
    const peak: Record<string, number> = {};
    const sample = async () => {
      for (const [service, mb] of Object.entries(await servicesMemory(pipeline)))
        peak[service] = Math.max(peak[service] ?? 0, mb);
    };
    const releasedBefore = await released();
    const releaseStart = performance.now();
    const opened = await fetch(`${scheduler}/admin/windows/debit/open`, {
      method: 'POST',
      headers: { authorization: await pipeline.operatorAuthorization('operator.replay') },
    });
    // A release that runs past midnight in Johannesburg has the rest of the queue wait for the new
    // business day's window, opened as an operator would (see DebitWindowKeeper).
    const keeper = pipelineWindowKeeper(pipeline, log);
    if (opened.ok) keeper.opened();
    // The release runs in the request that opens the window: a failure is an answer, and a figure.
    const failure = opened.ok
      ? undefined
      : `opening the debit window answered ${opened.status}: ${((await opened.json()) as { detail?: string }).detail ?? ''}`;
    if (failure !== undefined) log(`  ${failure}`);
    const deadline = Date.now() + options.releaseMinutes * 60_000;
    let releasedCount = 0;
    for (;;) {
      await sample();
      await keeper.check();
      releasedCount = (await released()) - releasedBefore;
      if (failure !== undefined || releasedCount >= options.large || Date.now() > deadline) break;
      await new Promise((resolve) => setTimeout(resolve, 5_000));
    }
    const releaseSeconds = (performance.now() - releaseStart) / 1000;
    const after = await settledMemory(pipeline, log);
    const drained = releasedCount >= options.large;

    const seedRate =
      (toSmall.rate * options.small + toLarge.rate * (options.large - options.small)) / options.large;
    for (const service of pipelineServices) {
      if (service === 'dispatcher') continue;
      const small = atSmall[service] ?? 0;
      const large = atLarge[service] ?? 0;
      rows.push({
        group: 'pipeline',
        name: `memory with ${options.large.toLocaleString('en-US')} debits queued: ${service}`,
        value: large,
        unit: 'MB RSS',
        detail: `${small} MB with ${options.small.toLocaleString('en-US')} (${signedPercent(large, small)}); ${idle[service]} MB idle, ${peak[service]} MB at most while released, ${after[service]} MB ${drained ? 'after' : 'at the end'}`,
      });
    }
    for (const service of pipelineServices) {
      const small = collectedSmall[service];
      const large = collectedLarge[service];
      if (small === undefined || large === undefined) continue;
      rows.push({
        group: 'pipeline',
        name: `memory after a forced collection, ${options.large.toLocaleString('en-US')} queued: ${service}`,
        value: large.rss,
        unit: 'MB RSS',
        detail: `${small.rss} MB with ${options.small.toLocaleString('en-US')} (${signedPercent(large.rss, small.rss)}); heap in use ${large.heap} MB against ${small.heap} MB (${signedPercent(large.heap, small.heap)})`,
      });
    }
    const dispatcherSmall = atSmall.dispatcher ?? 0;
    const dispatcherLarge = atLarge.dispatcher ?? 0;
    rows.push({
      group: 'pipeline',
      name: `memory with ${options.large.toLocaleString('en-US')} debits queued: dispatcher`,
      value: dispatcherLarge,
      unit: 'MB RSS',
      detail: `${dispatcherSmall} MB with ${options.small.toLocaleString('en-US')} (${signedPercent(dispatcherLarge, dispatcherSmall)}); ${idle.dispatcher} MB idle; stopped for the release`,
    });
    rows.push(
      {
        group: 'pipeline',
        name: `the scheduler releases ${options.large.toLocaleString('en-US')} queued debits`,
        value: round(releasedCount / releaseSeconds, 0),
        unit: 'debits/s',
        detail: drained
          ? `${round(releaseSeconds, 0)} s from the window opening to the last released (to rp.directdebit.due.v1, each taken off the queue)`
          : `${releasedCount.toLocaleString('en-US')} released in ${round(releaseSeconds, 0)} s${failure === undefined ? ', when the bench stopped waiting' : `: ${failure}`}; the memory "at the end" is with the rest still queued`,
      },
      {
        group: 'pipeline',
        name: 'queue writes while seeding (the store, as the scheduler queues a debit)',
        value: round(seedRate, 0),
        unit: 'debits/s',
        detail: `${options.concurrency} in flight; ${round(toSmall.seconds + toLarge.seconds, 0)} s for ${options.large.toLocaleString('en-US')}`,
      },
    );
  } finally {
    await pipeline.stop();
    await store.close();
    // A million debits' documents are gigabytes in the MongoDB stand-in: the run's database, topics and
    // subjects go with it.
    await pipeline.dropData();
  }
  return rows;
}

/** How long a reading waits at most for each service's next full collection. */
const collectionWaitMs = 5 * 60_000;

/**
 * Each service's resident set at rest: the median of 30 readings 2 s apart, once every service has made a
 * full (mark-compact) collection since the call. An idle service's resident set climbs by a tenth or more
 * between two full collections, which come minutes apart, and a freshly started one holds its start-up
 * garbage until its first: a minute's readings alone would say where the last collection left it. A
 * service that makes none within `collectionWaitMs` is read anyway, and named in the log.
 */
async function settledMemory(
  pipeline: Pipeline,
  log: (line: string) => void,
): Promise<Record<string, number>> {
  const before = await fullCollections(pipeline);
  let waiting = Object.keys(before);
  const deadline = Date.now() + collectionWaitMs;
  while (waiting.length > 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const now = await fullCollections(pipeline);
    waiting = waiting.filter((service) => (now[service] ?? 0) <= (before[service] ?? 0));
  }
  if (waiting.length > 0)
    log(`  no full collection within ${collectionWaitMs / 60_000} min, read anyway: ${waiting.join(', ')}`);
  const readings: Record<string, number[]> = {};
  for (let reading = 0; reading < 30; reading += 1) {
    for (const [service, mb] of Object.entries(await servicesMemory(pipeline))) {
      const values = readings[service] ?? [];
      values.push(mb);
      readings[service] = values;
    }
    await new Promise((resolve) => setTimeout(resolve, 2_000));
  }
  return Object.fromEntries(
    Object.entries(readings).map(([service, values]) => [
      service,
      percentile(
        [...values].sort((a, b) => a - b),
        0.5,
      ),
    ]),
  );
}

export interface CollectedMemory {
  /** Resident set, MB. */
  readonly rss: number;
  /** V8's heap in use, MB. */
  readonly heap: number;
}

/**
 * Each running service's resident set and heap in use right after a full collection forced through its
 * inspector, one service at a time: beside the median of `settledMemory`, a reading that does not depend on
 * when V8 collects by itself. The heap in use is what the service still holds; the resident set also
 * keeps what V8 has not handed back to the system.
 */
export async function collectedMemory(
  pipeline: Pipeline,
  inspectors: Readonly<Record<string, number>>,
): Promise<Record<string, CollectedMemory>> {
  for (const service of pipelineServices) {
    const port = inspectors[service];
    if (port !== undefined && pipeline.isRunning(service)) await collectGarbage(port);
  }
  return perRunningProcess(pipeline, (metrics) => ({
    rss: round(metricValue(metrics, 'process_resident_memory_bytes') / 2 ** 20, 0),
    heap: round(metricValue(metrics, 'nodejs_heap_size_used_bytes') / 2 ** 20, 1),
  }));
}

/** Full (mark-compact) collections each running service has made, from its own garbage collection metrics. */
function fullCollections(pipeline: Pipeline): Promise<Record<string, number>> {
  return perRunningProcess(pipeline, (metrics) =>
    metricValue(metrics, 'nodejs_gc_duration_seconds_count', { kind: 'major' }),
  );
}

/** `value` against `base` as a signed percentage, "+1.8%" ("n/a" without a base). */
export function signedPercent(value: number, base: number): string {
  if (base === 0) return 'n/a';
  const change = (100 * (value - base)) / base;
  return `${change >= 0 ? '+' : ''}${round(change, 1)}%`;
}
