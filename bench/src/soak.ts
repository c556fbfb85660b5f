import { type PipelineEndpoints, pipelineServices, pipelineWindowKeeper } from '@rp/launcher';
import { heapProfileRows, heapProfilesMissing, heapSampleMinute } from './heap-profile.ts';
import { freePort } from './inspector.ts';
import { type LagWindow, watchLag } from './lag.ts';
import type { MemoryCgroups } from './memory-limits.ts';
import {
  benchServicesEnvironment,
  consumerLag,
  cpuBetween,
  endBenchPipeline,
  examine,
  lagSampleMs,
  launchBenchPipeline,
  orderChecked,
  Probe,
  type Sent,
  servicesMemoryAndCollections,
  settle,
  settleThreshold,
  warmUp,
} from './pipeline.ts';
import { type PostgresCounters, postgresRows } from './postgres.ts';
import { type CollectedMemory, collectedMemory, signedPercent } from './queue-memory.ts';
import type { Report, Row } from './report.ts';
import { servicesEnvironment, servicesEnvironmentRow } from './service-env.ts';
import { type Drift, drift, minuteSpan, percentChange, round, type Summary, summarize } from './stats.ts';
import { storageRow } from './storage.ts';

export interface SoakOptions {
  readonly root: string;
  readonly endpoints: PipelineEndpoints;
  readonly run: string;
  /** Debits a second offered, evenly spaced, for the whole soak. */
  readonly rate: number;
  /** Where the rate came from, said in the table (a setting, or a share of a run's sustained rate). */
  readonly rateSource: string;
  readonly minutes: number;
  /** Journeys of each minute whose latency and posting order are followed. */
  readonly sample: number;
  /** Processes of the infrastructure on this machine (the local stack's), by name, for CPU accounting. */
  readonly infrastructure?: ReadonlyMap<string, number>;
  /** The broker's log directory, when it is on this machine: what a debit keeps in Kafka. */
  readonly kafkaLogDir?: string;
  /** PostgreSQL's own counters behind the local stack's FerretDB; none when undefined. */
  readonly postgres?: () => Promise<PostgresCounters | undefined>;
  /** Each service in a memory cgroup of its Kubernetes limit (`--k8s-memory`); none when undefined. */
  readonly memoryLimits?: MemoryCgroups;
  /**
   * Services whose heaps are sampled from 5 s into the middle minute (`heapSampleMinute`, `heapProfileRows`);
   * each one's profiles are written to `dir` when it is given.
   */
  readonly heapSample?: { readonly services: readonly string[]; readonly dir?: string };
}

/** One minute of the soak: what was offered and done in it, and the readings at its end. */
export interface SoakMinute {
  /** From 1. */
  readonly minute: number;
  readonly seconds: number;
  /** Debits sent in the minute, and journeys completed in it (DEBIT_COMPLETED at the bank). */
  readonly sent: number;
  readonly completed: number;
  /** The machine's busy share, and its own busy CPU (the stolen seconds left out) a debit completed, ms. */
  readonly busyPercent: number | undefined;
  readonly cpuMsPerDebit: number | undefined;
  /** Each process's CPU a debit completed in the minute, ms. */
  readonly processMs: Readonly<Record<string, number>>;
  /** Each service's resident set at the minute's end, MB. */
  readonly memoryMb: Readonly<Record<string, number>>;
  /** How long each service's major collections stopped it in the minute, ms (none when not read). */
  readonly majorGcMs?: Readonly<Record<string, number>>;
  /**
   * Each service's V8 heap in use and resident set right after a full collection forced at the minute's
   * end, at the minutes it is forced (`collectedAt`).
   */
  readonly collected?: Readonly<Record<string, CollectedMemory>>;
  /** The consumer group with the most records waiting at any sample of the minute. */
  readonly lagPeak: { readonly group: string; readonly records: number } | undefined;
  /** 202 to DEBIT_COMPLETED of the minute's followed journeys, those done within `followSeconds`. */
  readonly toCompleted: Summary;
  readonly followed: number;
  /**
   * Followed journeys not done within `followSeconds` of the end of the quarter of the minute they were
   * sent in, and postings out of order.
   */
  readonly notDone: number;
  readonly outOfOrder: number;
}

/** The full run's row of the rate it sustained (`offerSteady`'s search). */
const sustainedRow = 'on-us debits sustained through the whole journey';

/**
 * The soak's default rate: half the sustained rate of a run (the run of record's), the load the latency
 * target is set at; undefined when the run has none.
 */
export function soakRate(
  report: Pick<Report, 'rows' | 'machine'>,
): { rate: number; source: string } | undefined {
  const sustained = report.rows.find((row) => row.name === sustainedRow)?.value;
  if (sustained === undefined || !(sustained > 0)) return undefined;
  const commit = report.machine.versions.commit;
  return {
    rate: round(sustained / 2, 1),
    source: `half the ${sustained}/s the run of record at \`${commit}\` sustained`,
  };
}

/**
 * Whether a full collection is forced in every service at the end of `minute` of `minutes`: the first, every
 * fifteenth and the last, so that the heap each service still holds is read beside its resident set (which
 * also keeps what V8 has not handed back) without a stop of every service each minute.
 */
export function collectedAt(minute: number, minutes: number): boolean {
  return minute === 1 || minute % 15 === 0 || minute === minutes;
}

/**
 * How long after the end of its part of the minute (`followParts`) a followed journey is read back from
 * the bank.
 */
export const followSeconds = 15;

/**
 * The parts of a minute (its quarters) whose journeys are followed each on its own, `followSeconds` after
 * the part's end, each with its share of the sample. The bank simulator keeps the latest 100,000 postings
 * (`POSTING_LOG_SIZE`): at 125 debits a second, 44 s of them. Read back at once 15 s after the minute,
 * a minute's first journeys were gone from it by then, and read as not done.
 */
export const followParts = 4;

/**
 * The `parts` consecutive parts of a minute's time (`from` to `to`, ms), each with the sample size its share
 * of `sample` gives (at least one).
 */
export function minuteParts(
  from: number,
  to: number,
  parts: number,
  sample: number,
): { readonly start: number; readonly end: number; readonly sample: number }[] {
  const length = (to - from) / parts;
  return Array.from({ length: parts }, (_, index) => ({
    start: from + index * length,
    end: index === parts - 1 ? to : from + (index + 1) * length,
    sample: Math.max(1, Math.ceil(sample / parts)),
  }));
}

/** The whole soak, for its summary rows. */
export interface SoakReading {
  readonly rate: number;
  readonly rateSource: string;
  readonly seconds: number;
  readonly sent: number;
  readonly completed: number;
  /** From the end of the offered load to the last journey done. */
  readonly drainSeconds: number;
  readonly postings: number;
  readonly duplicates: number;
  readonly signatureFailures: number;
  readonly outOfOrder: number;
  readonly minutes: readonly SoakMinute[];
}

const ms = (value: number) => `${round(value, 0)} ms`;
/** How `drift` read a soak's minutes, said in the rows that use it (too few minutes keep the first). */
const steadyNote = (moved: Drift) =>
  moved.earlyMinutes[0] === 1
    ? 'medians of the first and last third of the minutes, too few to leave the first out'
    : 'medians of the first and last third of the minutes, the first minute, start-up, left out';

/**
 * The minute's row: its debits a second, with its latency, CPU, backlog and memory in the detail, and
 * whether the collections forced at the end of the minute before (`collectedAt`) fell in it: their stop
 * holds the minute's journeys and their CPU counts in it, a cost of the measurement and not of the load.
 */
export function soakMinuteRow(minute: SoakMinute, afterCollection = false): Row {
  const latency =
    minute.toCompleted.count > 0
      ? `202 to DEBIT_COMPLETED p50 / p95 / p99 ${round(minute.toCompleted.p50, 0)} / ${round(minute.toCompleted.p95, 0)} / ${round(minute.toCompleted.p99, 0)} ms over ${minute.toCompleted.count} followed`
      : 'no followed journey done';
  const notDone =
    minute.notDone > 0
      ? `, ${minute.notDone} of ${minute.followed} not done ${followSeconds} s after their quarter of the minute`
      : '';
  const order = minute.outOfOrder > 0 ? `, ${minute.outOfOrder} postings out of order` : '';
  const top = Object.entries(minute.processMs)
    .sort(([, a], [, b]) => b - a)
    .slice(0, 4)
    .map(([name, value]) => `${name} ${round(value, 1)}`)
    .join(', ');
  const cpu =
    minute.busyPercent === undefined || minute.cpuMsPerDebit === undefined
      ? `CPU a debit: ${top}`
      : `the machine ${round(minute.busyPercent, 0)}% busy, ${round(minute.cpuMsPerDebit, 1)} ms of its CPU a debit (${top})`;
  const lag =
    minute.lagPeak === undefined || minute.lagPeak.records === 0
      ? 'no records waiting at any sample'
      : `at most ${minute.lagPeak.records} records waiting (${minute.lagPeak.group})`;
  const memory = Object.entries(minute.memoryMb)
    .map(([service, mb]) => `${service} ${round(mb, 0)}`)
    .join(', ');
  const stops = Object.entries(minute.majorGcMs ?? {})
    .filter(([, stopped]) => stopped > 0)
    .sort(([, a], [, b]) => b - a)
    .slice(0, 3)
    .map(([service, stopped]) => `${service} ${round(stopped, 0)}`);
  const collections =
    minute.majorGcMs === undefined
      ? ''
      : `; major collections stopped ${stops.length === 0 ? 'no service' : `${stops.join(', ')} ms`}`;
  return {
    group: 'pipeline',
    name: `soak minute ${minute.minute}: debits completed`,
    value: round(minute.completed / minute.seconds, 1),
    unit: 'debits/s',
    detail: `${minute.sent} sent, ${minute.completed} completed; ${latency}${notDone}${order}; ${cpu}; ${lag}; resident MB: ${memory}${collections}${afterCollection ? `; the collections forced after minute ${minute.minute - 1} stopped every service in this one` : ''}`,
  };
}

/**
 * What the soak says as a whole: the rate held with nothing lost, then how the late minutes compare with
 * the early ones for the machine's CPU a debit and the latency (`drift`: start-up left out, a third at
 * each end, medians, so that neither the first minute nor one collection decides it), and the last minute
 * with the first for each service's resident set and heap (what a service holds from its start on), the
 * figures of every minute in the detail. A pipeline that holds its rate for hours shows none of them climbing.
 */
export function soakRows(soak: SoakReading): Row[] {
  const minutes = soak.minutes;
  const first = minutes[0];
  const last = minutes[minutes.length - 1];
  const behind = minutes.filter((minute) => minute.notDone > 0).map((minute) => minute.minute);
  const rows: Row[] = [
    {
      group: 'pipeline',
      name: 'soak: on-us debits offered steadily through the whole journey',
      value: round(soak.completed / soak.seconds, 1),
      unit: 'debits/s',
      detail: `${soak.sent} sent evenly over ${round(soak.seconds / 60, 1)} min at ${soak.rate}/s (${soak.rateSource}), ${soak.completed} completed (${soak.completed >= soak.sent ? 'nothing lost' : `${soak.sent - soak.completed} missing`}), the last ${round(soak.drainSeconds, 1)} s after the load ended; ${soak.postings} postings, ${soak.duplicates} duplicates, ${soak.signatureFailures} signature failures; ${orderChecked(soak.postings, soak.outOfOrder)}; ${behind.length === 0 ? `every minute's followed journeys done within ${followSeconds} s of the end of their quarter of it` : `followed journeys not done within ${followSeconds} s of their quarter's end in minutes ${behind.join(', ')}`}`,
    },
  ];
  if (first === undefined || last === undefined) return rows;
  rows.push(
    ...minutes.map((minute, index) => soakMinuteRow(minute, minutes[index - 1]?.collected !== undefined)),
  );
  const cpu = drift(minutes.map((minute) => ({ minute: minute.minute, value: minute.cpuMsPerDebit })));
  if (cpu !== undefined) {
    const processes = Object.keys(last.processMs).flatMap((name) => {
      const moved = drift(
        minutes.map((minute) => ({ minute: minute.minute, value: minute.processMs[name] })),
      );
      return moved === undefined ? [] : [`${name} ${round(moved.early, 1)} / ${round(moved.late, 1)}`];
    });
    rows.push({
      group: 'pipeline',
      name: 'soak: machine CPU a debit, the late minutes against the early',
      value: cpu.change,
      unit: '% change',
      detail: `${round(cpu.late, 1)} ms in ${minuteSpan(cpu.lateMinutes)} against ${round(cpu.early, 1)} ms in ${minuteSpan(cpu.earlyMinutes)} (${steadyNote(cpu)}); by minute: ${minutes.map((minute) => (minute.cpuMsPerDebit === undefined ? '-' : round(minute.cpuMsPerDebit, 1))).join(', ')} ms; by process, the early and the late: ${processes.join(', ')} ms`,
    });
  }
  const p99 = drift(
    minutes.map((minute) => ({
      minute: minute.minute,
      value: minute.toCompleted.count > 0 ? minute.toCompleted.p99 : undefined,
    })),
  );
  if (p99 !== undefined) {
    rows.push({
      group: 'pipeline',
      name: 'soak: 202 to DEBIT_COMPLETED p99, the late minutes against the early',
      value: p99.change,
      unit: '% change',
      detail: `${ms(p99.late)} in ${minuteSpan(p99.lateMinutes)} against ${ms(p99.early)} in ${minuteSpan(p99.earlyMinutes)} (${steadyNote(p99)}); p50 / p99 by minute: ${minutes
        .map((minute) =>
          minute.toCompleted.count > 0
            ? `${round(minute.toCompleted.p50, 0)} / ${round(minute.toCompleted.p99, 0)}`
            : '-',
        )
        .join(', ')} ms`,
    });
  }
  for (const service of Object.keys(last.majorGcMs ?? {})) {
    const stopped = drift(
      minutes.map((minute) => ({ minute: minute.minute, value: minute.majorGcMs?.[service] })),
    );
    if (stopped === undefined) continue;
    rows.push({
      group: 'pipeline',
      name: `soak: major collections' stop a minute, the late minutes against the early: ${service}`,
      value: stopped.change,
      unit: '% change',
      detail: `${ms(stopped.late)} a minute in ${minuteSpan(stopped.lateMinutes)} against ${ms(stopped.early)} in ${minuteSpan(stopped.earlyMinutes)} (${steadyNote(stopped)}); by minute: ${minutes.map((minute) => (minute.majorGcMs?.[service] === undefined ? '-' : round(minute.majorGcMs[service], 0))).join(', ')} ms`,
    });
  }
  for (const service of Object.keys(last.memoryMb)) {
    const was = first.memoryMb[service];
    const now = last.memoryMb[service];
    if (was === undefined || now === undefined) continue;
    rows.push({
      group: 'pipeline',
      name: `soak: resident memory, the last minute against the first: ${service}`,
      value: percentChange(was, now),
      unit: '% change',
      detail: `${round(was, 0)} MB after the first minute, ${round(now, 0)} MB after the last (${signedPercent(now, was)}); by minute: ${minutes.map((minute) => round(minute.memoryMb[service] ?? 0, 0)).join(', ')} MB; the most ${round(Math.max(...minutes.map((minute) => minute.memoryMb[service] ?? 0)), 0)} MB`,
    });
  }
  const heapFirst = first.collected;
  const heapLast = last.collected;
  if (heapFirst !== undefined && heapLast !== undefined && first !== last) {
    const forced = minutes.filter((minute) => minute.collected !== undefined);
    for (const service of Object.keys(heapLast)) {
      const was = heapFirst[service];
      const now = heapLast[service];
      if (was === undefined || now === undefined) continue;
      rows.push({
        group: 'pipeline',
        name: `soak: V8 heap in use after a forced collection, the last minute against the first: ${service}`,
        value: percentChange(was.heap, now.heap),
        unit: '% change',
        detail: `${was.heap} MB after the first minute, ${now.heap} MB after the last; after the collections forced at the end of minutes ${forced.map((minute) => minute.minute).join(', ')}: heap ${forced.map((minute) => minute.collected?.[service]?.heap ?? '-').join(', ')} MB, resident ${forced.map((minute) => minute.collected?.[service]?.rss ?? '-').join(', ')} MB`,
      });
    }
  }
  return rows;
}

/** The busiest consumer group of a minute's lag samples. */
function busiestGroup(lag: LagWindow): SoakMinute['lagPeak'] {
  const [top] = Object.entries(lag.groups).sort(([, a], [, b]) => b.peak - a.peak);
  return top === undefined ? undefined : { group: top[0], records: top[1].peak };
}

const sleepUntil = (at: number) =>
  new Promise((resolve) => setTimeout(resolve, Math.max(0, at - performance.now())));

/**
 * The soak: on-us debits offered at one steady rate for many minutes, every journey through to
 * DEBIT_COMPLETED with every posting delivered and checked for order as it arrives, and each minute read
 * on its own: the journeys completed in it, the latency of a sample of those sent in it, the machine's CPU
 * a debit (and each process's), the consumer groups' backlog and each service's resident set. What the
 * sixty-second windows of the full run cannot show: whether a rate the pipeline keeps up with for a minute
 * holds, or whether the CPU a debit, the latency or a service's memory climbs as its collections, indexes
 * and logs grow.
 */
export async function soakBench(options: SoakOptions, log: (line: string) => void): Promise<Row[]> {
  const inspectors: Record<string, number> = {};
  for (const service of pipelineServices) inspectors[service] = await freePort();
  const pipeline = await launchBenchPipeline({ ...options, inspectors });
  const probe = new Probe(pipeline, options.endpoints, options.postgres, options.kafkaLogDir);
  const infrastructure = options.infrastructure ?? new Map<string, number>();
  const rows: Row[] = [servicesEnvironmentRow(servicesEnvironment(benchServicesEnvironment(pipeline)))];
  const keeper = pipelineWindowKeeper(pipeline, log);
  let stopKeeper = () => {};
  /** Each minute's journeys read back from the bank, after the minute. */
  const follows: Promise<void>[] = [];
  try {
    await keeper.openToday();
    stopKeeper = keeper.every(5_000);
    await warmUp(probe, options.root);
    await settle(probe, infrastructure, 'the soak', log, settleThreshold());
    await probe.bank.reset();
    const storageBefore = await probe.storage();
    const postgresBefore = await probe.postgres();

    const interval = 1000 / options.rate;
    const total = Math.round(options.rate * options.minutes * 60);
    const sent: Sent[] = [];
    const inFlight: Promise<void>[] = [];
    const minutes: SoakMinute[] = [];
    log(`soak: ${total} debits at ${options.rate}/s for ${options.minutes} min (${options.rateSource})`);
    const start = performance.now();
    const startedAt = Date.now();
    // Every minute's readings, taken beside the sending: a reading of the services' metrics costs them a
    // few ms, so once a minute (and the backlog every lagSampleMs).
    const readMinutes = async () => {
      let previous = {
        at: performance.now(),
        completed: 0,
        cpu: await probe.cpu(infrastructure),
        services: await servicesMemoryAndCollections(pipeline),
      };
      for (let minute = 1; minute <= options.minutes; minute += 1) {
        const from = startedAt + (minute - 1) * 60_000;
        const to = startedAt + minute * 60_000;
        // The minute's journeys are read back from the bank a part of it at a time, each a little after the
        // part's end (a journey is in `sent` once the ingress answered it), while the bank still keeps
        // their postings (the latest 100,000).
        const followed = Promise.all(
          minuteParts(from, to, followParts, options.sample).map(async (part) => {
            await sleepUntil(start + (part.end - startedAt) + followSeconds * 1000);
            const journeys = sent.filter((entry) => entry.sentAt >= part.start && entry.sentAt < part.end);
            return examine(probe, journeys, part.sample);
          }),
        );
        // Its failure is the minute's follow's, below; not an unhandled rejection meanwhile.
        followed.catch(() => undefined);
        const lagWatch = watchLag(consumerLag(pipeline), lagSampleMs);
        await sleepUntil(start + minute * 60_000);
        const lag = await lagWatch.end();
        const reading = {
          at: performance.now(),
          completed: await probe.completed(),
          cpu: await probe.cpu(infrastructure),
          services: await servicesMemoryAndCollections(pipeline),
        };
        const memoryMb = Object.fromEntries(
          Object.entries(reading.services).map(([service, { residentMb }]) => [service, residentMb]),
        );
        // After the minute's CPU reading: a forced collection's CPU falls in the next minute.
        const collected = collectedAt(minute, options.minutes)
          ? await collectedMemory(pipeline, inspectors)
          : undefined;
        const completed = reading.completed - previous.completed;
        const { machine, processes } = cpuBetween(previous.cpu, reading.cpu);
        const seconds = (reading.at - previous.at) / 1000;
        const perDebit = (cpuSeconds: number) => (completed > 0 ? (1000 * cpuSeconds) / completed : 0);
        const minuteIndex = minutes.length;
        minutes.push({
          minute,
          seconds,
          sent: 0,
          completed,
          busyPercent: machine === undefined ? undefined : (100 * machine.busy) / machine.total,
          cpuMsPerDebit: machine === undefined ? undefined : perDebit(machine.own),
          processMs: Object.fromEntries(processes.map(([name, cpuSeconds]) => [name, perDebit(cpuSeconds)])),
          memoryMb,
          majorGcMs: Object.fromEntries(
            Object.entries(reading.services).map(([service, { majorGcSeconds }]) => [
              service,
              1000 * (majorGcSeconds - (previous.services[service]?.majorGcSeconds ?? 0)),
            ]),
          ),
          ...(collected === undefined ? {} : { collected }),
          lagPeak: busiestGroup(lag),
          toCompleted: summarize([]),
          followed: 0,
          notDone: 0,
          outOfOrder: 0,
        });
        const follow = followed.then((parts) => {
          const entry = minutes[minuteIndex] as SoakMinute;
          minutes[minuteIndex] = {
            ...entry,
            sent: sent.filter((journey) => journey.sentAt >= from && journey.sentAt < to).length,
            toCompleted: summarize(parts.flatMap((part) => part.toCompletedMs)),
            followed: parts.reduce((sum, part) => sum + part.sampled, 0),
            notDone: parts.reduce((sum, part) => sum + part.incomplete, 0),
            outOfOrder: parts.reduce((sum, part) => sum + part.outOfOrder, 0),
          };
        });
        // Its failure is the soak's, awaited at the end; not an unhandled rejection meanwhile.
        follow.catch(() => undefined);
        follows.push(follow);
        log(
          `  minute ${minute}: ${completed} completed, ${machine === undefined ? '' : `${round((100 * machine.busy) / machine.total, 0)}% busy, `}resident MB ${JSON.stringify(memoryMb)}${collected === undefined ? '' : `; after a forced collection ${JSON.stringify(collected)}`}`,
        );
        previous = reading;
      }
    };
    const readings = readMinutes();
    // Its failure is the soak's, awaited once the load is sent; not an unhandled rejection meanwhile.
    readings.catch(() => undefined);
    const heapSample = options.heapSample;
    const heapMinute = heapSampleMinute(options.minutes);
    const heapProfiles =
      heapSample === undefined
        ? Promise.resolve([])
        : sleepUntil(start + (heapMinute - 1) * 60_000 + 5_000)
            .then(() =>
              heapProfileRows(inspectors, heapSample.services, heapMinute, options.rate, heapSample.dir),
            )
            .then(
              (profiled) => {
                log(`  minute ${heapMinute}: heaps sampled (${heapSample.services.join(', ')})`);
                return profiled;
              },
              // A diagnosis: a profile that cannot be taken costs its rows, not the soak.
              (error: unknown) => {
                const reason = error instanceof Error ? error.message : String(error);
                log(`  minute ${heapMinute}: heaps not sampled: ${reason}`);
                return [heapProfilesMissing(heapMinute, reason)];
              },
            );
    for (let index = 0; index < total; index += 1) {
      await sleepUntil(start + index * interval);
      inFlight.push(probe.send(options.root).then((entry) => void sent.push(entry)));
    }
    await Promise.all(inFlight);
    await readings;
    const heapRows = await heapProfiles;
    const loadEnd = Date.now();
    const seconds = (performance.now() - start) / 1000;
    await probe.journeysDone('every journey of the soak done', 0, sent.length, 3_600_000);
    const drainSeconds = (Date.now() - loadEnd) / 1000;
    await Promise.all(follows);
    const stats = await probe.bank.stats();
    const postgresAfter = await probe.postgres();
    const storageAfter = await probe.storage();
    const soak: SoakReading = {
      rate: options.rate,
      rateSource: options.rateSource,
      seconds,
      sent: sent.length,
      completed: await probe.completed(),
      drainSeconds,
      postings: stats.routes.events.accepted,
      duplicates: stats.duplicates,
      signatureFailures: stats.signatureFailures,
      outOfOrder: stats.outOfOrder,
      minutes,
    };
    rows.push(...soakRows(soak), ...heapRows);
    rows.push({
      ...storageRow(storageBefore, storageAfter, sent.length),
      name: 'soak: storage kept per debit: mongodb data and indexes',
    });
    rows.push(
      ...postgresRows(postgresBefore, postgresAfter, sent.length, { noun: 'debit', prefix: 'soak: ' }),
    );
  } finally {
    stopKeeper();
    await Promise.allSettled(follows);
    rows.push(...(await endBenchPipeline(probe, options.memoryLimits, log)));
  }
  return rows;
}
