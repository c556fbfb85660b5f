/**
 * Runs as the tables of BENCHMARKS.md, a column a run: the issue's five targets, met or not; each
 * throughput figure beside the limit measured in the same run, as its share of it; a debit's floor (its
 * traffic at what the limits cost the machine, and the debits a second that allows); what a debit costs
 * (CPU, records, requests, writes) with the latencies at half load; the CPU a debit by process and the
 * cores each would need for 500 debits a second; the limits; the memory with the large queue; and what
 * each service held under its Kubernetes memory limit (a `--k8s-memory` run); and a soak's minutes (an
 * `--only soak` run). Every cell is read from a result file; a figure the run did not measure is a dash. The tables
 * in BENCHMARKS.md are made by this from the runs each names, and a test holds them to it.
 *
 *   npm run summary -w @rp/bench -- [--memory queue-run.json] [result.json ...]
 *                                          (default: bench/results/latest.json)
 *   npm run summary -w @rp/bench -- --docs BENCHMARKS.md [--check]
 *                                          (the document's summary blocks made again from their runs)
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { engineServices } from '@rp/contracts';
import { isEngineProcessName } from './process-names.ts';
import { invokedFrom, runAsProgram } from './program.ts';
import type { Report, Row } from './report.ts';
import { type Drift, drift } from './stats.ts';

/** p50 / p95 / p99, ms. */
export interface Percentiles {
  readonly p50: number;
  readonly p95: number;
  readonly p99: number;
}

/** A throughput figure and whether every posting of it came once and in order (undefined: not said). */
export interface Delivered {
  readonly rate: number;
  readonly inOrder: boolean | undefined;
}

/** A service's resident set with 1,000,000 debits queued against its figure with 100,000, in per cent. */
export interface MemoryChange {
  readonly service: string;
  /** Resident set, MB, with 100,000 and with 1,000,000 queued. */
  readonly at100k: number;
  readonly at1m: number;
  readonly change: number;
  /** The change of the V8 heap in use, in per cent, where the reading was after a forced collection. */
  readonly heapChange?: number;
}

/** What a service held under its Kubernetes memory limit (`--k8s-memory`). */
export interface PodMemory {
  readonly service: string;
  /** MB at most, MiB of the limit, MB of V8's heap limit (undefined: not read). */
  readonly peak: number;
  readonly limit: number;
  readonly heapLimit: number | undefined;
  readonly killed: number;
}

/** A soak (`--only soak`): the rate held for its minutes, each minute, and how its figures moved. */
export interface SoakSummary {
  /** Debits a second offered, and the minutes they were offered for. */
  readonly rate: number;
  readonly minutes: number;
  /** Debits sent that never completed. */
  readonly lost: number;
  readonly inOrder: boolean | undefined;
  readonly perMinute: readonly {
    readonly minute: number;
    readonly rate: number;
    /** 202 to DEBIT_COMPLETED p99 of the minute's followed journeys, ms. */
    readonly p99: number | undefined;
    /** The machine's CPU a debit in the minute, ms. */
    readonly cpu: number | undefined;
  }[];
  /** The late minutes against the early ones (`drift`), from the minutes' own figures. */
  readonly cpuDrift: Drift | undefined;
  readonly p99Drift: Drift | undefined;
  readonly memory: readonly {
    readonly service: string;
    /** Resident set, MB, after the first minute and after the last. */
    readonly first: number;
    readonly last: number;
    readonly change: number;
    /** V8's heap in use right after a forced collection, MB, after the first minute and the last. */
    readonly heap?: { readonly first: number; readonly last: number };
  }[];
}

/** What the tables read of one result file; undefined where the run did not measure it. */
export interface RunSummary {
  readonly name: string;
  readonly commit: string;
  readonly cpuModel: string | undefined;
  /** The services the run's pipeline ran together in one process, the engine's (`--together`); none: a process each. */
  readonly together?: readonly string[];
  /** The highest rate kept up with: every journey of its window completed, nothing lost. */
  readonly debits: number | undefined;
  readonly burst: number | undefined;
  readonly drain: number | undefined;
  readonly journeyPostings: Delivered | undefined;
  readonly eventPath: Delivered | undefined;
  /** The event path's CPU a posting, µs, and in one-thread references. */
  readonly eventPathCpu: number | undefined;
  readonly eventPathReferences: number | undefined;
  readonly schedulerAlone: number | undefined;
  /** Debits a second over the scheduler's own CPU seconds: one instance on a core of its own. */
  readonly schedulerCeiling: number | undefined;
  readonly limits: {
    readonly kafkaProduce: number | undefined;
    readonly kafkaConsume: number | undefined;
    readonly mongoInsert: number | undefined;
    readonly mongoUpdate: number | undefined;
    readonly mongoFind: number | undefined;
    readonly deliveryLog: number | undefined;
    readonly bankHttp: number | undefined;
    readonly bareHttp: number | undefined;
  };
  /**
   * The machine's CPU an operation at the limits, µs (every core's busy time over the operations): what
   * the infrastructure itself costs this machine, the floor of a debit's CPU.
   */
  readonly limitCpu: {
    readonly kafkaProduce: number | undefined;
    readonly kafkaConsume: number | undefined;
    readonly deliveryLog: number | undefined;
    readonly bareHttp: number | undefined;
  };
  readonly cores: number | undefined;
  readonly perDebit: {
    readonly kafkaRecords: number | undefined;
    readonly kafkaRequests: number | undefined;
    readonly httpRequests: number | undefined;
    readonly writeCommands: number | undefined;
    readonly writeStatements: number | undefined;
    /** The machine's CPU a debit, ms, and in one-thread and all-core references. */
    readonly cpu: number | undefined;
    readonly references: number | undefined;
    readonly allCoreReferences: number | undefined;
  };
  /** What a debit keeps, kB: the pipeline's MongoDB database, and Kafka's log where the broker is local. */
  readonly storage: { readonly mongodb: number; readonly kafka: number | undefined } | undefined;
  readonly busy: number | undefined;
  /** The processes' CPU a debit at the sustained rate, most first, the load generator left out. */
  readonly cpuByProcess: readonly { readonly process: string; readonly ms: number }[];
  readonly halfLoad: number | undefined;
  readonly ingress: Percentiles | undefined;
  readonly firstPosting: Percentiles | undefined;
  readonly completed: Percentiles | undefined;
  readonly recovery: { readonly seconds: number; readonly postingsPerSecond: number | undefined } | undefined;
  readonly memory: readonly MemoryChange[];
  /** The commit of the large-queue run the memory figures come from, when not this run's own. */
  readonly memoryFrom?: string;
  readonly pods: readonly PodMemory[];
  readonly soak: SoakSummary | undefined;
}

const loadGenerator = 'bench (load generator)';

/** "9 / 81 / 227 ms over 2181" */
export function percentiles(detail: string | undefined): Percentiles | undefined {
  const match = /^([\d.]+) \/ ([\d.]+) \/ ([\d.]+) ms/.exec(detail ?? '');
  return match ? { p50: Number(match[1]), p95: Number(match[2]), p99: Number(match[3]) } : undefined;
}

/**
 * Whether a delivery row's detail says every posting came once and in order: each "N duplicates" and
 * "N out of order" it gives is 0, and "N incomplete" too; undefined when it gives none of them.
 */
export function inOrder(detail: string | undefined): boolean | undefined {
  const counts = [...(detail ?? '').matchAll(/(\d[\d,]*) (duplicates|out of order|incomplete)/g)].map(
    (match) => Number((match[1] ?? '').replaceAll(',', '')),
  );
  return counts.length === 0 ? undefined : counts.every((count) => count === 0);
}

/**
 * A large-queue run's row: "120 MB with 100,000 (+1.7%); heap in use 28.7 MB against 29.5 MB (-2.7%)",
 * its value the resident set with 1,000,000.
 */
function memoryChange(service: string, row: Row): MemoryChange | undefined {
  const rss = /(\d+(?:\.\d+)?) MB with 100,000 \(([+-]?[\d.]+)%\)/.exec(row.detail ?? '');
  if (!rss) return undefined;
  const heap = /heap in use [\d.]+ MB against [\d.]+ MB \(([+-]?[\d.]+)%\)/.exec(row.detail ?? '');
  return {
    service,
    at100k: Number(rss[1]),
    at1m: row.value,
    change: Number(rss[2]),
    ...(heap ? { heapChange: Number(heap[1]) } : {}),
  };
}

/** The memory rows of a large-queue run: after a forced collection where the run has them. */
function memoryChanges(rows: readonly Row[]): MemoryChange[] {
  const read = (prefix: string) =>
    rows
      .filter((row) => row.name.startsWith(prefix))
      .map((row) => memoryChange(row.name.slice(prefix.length), row))
      .filter((entry): entry is MemoryChange => entry !== undefined);
  const forced = read('memory after a forced collection, 1,000,000 queued: ');
  return forced.length > 0 ? forced : read('memory with 1,000,000 debits queued: ');
}

const commitOf = (report: Pick<Report, 'machine'>) =>
  (report.machine as { versions?: Record<string, string> }).versions?.commit ?? '?';

const podPrefix = 'memory under its Kubernetes limit, the whole run: ';

/** "of its manifest's 768 MiB limit (40%), ...; V8's heap limit from it 432 MB; 0 killed for want of memory" */
function podMemory(rows: readonly Row[]): PodMemory[] {
  return rows.flatMap((row) => {
    if (!row.name.startsWith(podPrefix) || !Number.isFinite(row.value)) return [];
    const limit = Number(/manifest's ([\d.]+) MiB limit/.exec(row.detail ?? '')?.[1]);
    const heapLimit = Number(/heap limit from it ([\d.]+) MB/.exec(row.detail ?? '')?.[1]);
    const killed = Number(/(\d+) killed for want of memory/.exec(row.detail ?? '')?.[1]);
    if (!Number.isFinite(limit) || !Number.isFinite(killed)) return [];
    return [
      {
        service: row.name.slice(podPrefix.length),
        peak: row.value,
        limit,
        heapLimit: Number.isFinite(heapLimit) ? heapLimit : undefined,
        killed,
      },
    ];
  });
}

const soakMemoryPrefix = 'soak: resident memory, the last minute against the first: ';
const soakHeapPrefix = 'soak: V8 heap in use after a forced collection, the last minute against the first: ';
/** "202 MB after the first minute, 433 MB after the last" */
const firstAndLast = /^([\d.]+) MB after the first minute, ([\d.]+) MB after the last/;

/** A soak's figures, from its rows (`soak.ts`); undefined for a run without one. */
function soakOf(rows: readonly Row[]): SoakSummary | undefined {
  const whole = rows.find(
    (row) => row.name === 'soak: on-us debits offered steadily through the whole journey',
  );
  if (whole === undefined) return undefined;
  const found = (pattern: RegExp, detail: string | undefined) => {
    const match = pattern.exec(detail ?? '');
    return match === null ? undefined : Number(match[1]);
  };
  const perMinute = rows.flatMap((row) => {
    const minute = /^soak minute (\d+): debits completed$/.exec(row.name);
    if (minute === null) return [];
    return [
      {
        minute: Number(minute[1]),
        rate: row.value,
        p99: found(/p50 \/ p95 \/ p99 \d+ \/ \d+ \/ (\d+) ms/, row.detail),
        cpu: found(/, ([\d.]+) ms of its CPU a debit/, row.detail),
      },
    ];
  });
  const offered = /sent evenly over ([\d.]+) min at ([\d.]+)\/s/.exec(whole.detail ?? '');
  return {
    rate: Number(offered?.[2] ?? whole.value),
    minutes: Number(offered?.[1] ?? 0),
    lost: found(/, (\d+) missing\)/, whole.detail) ?? 0,
    inOrder: inOrder(whole.detail),
    perMinute,
    cpuDrift: drift(perMinute.map((entry) => ({ minute: entry.minute, value: entry.cpu }))),
    p99Drift: drift(perMinute.map((entry) => ({ minute: entry.minute, value: entry.p99 }))),
    memory: rows.flatMap((row) => {
      if (!row.name.startsWith(soakMemoryPrefix)) return [];
      const service = row.name.slice(soakMemoryPrefix.length);
      const mb = firstAndLast.exec(row.detail ?? '');
      const heap = firstAndLast.exec(
        rows.find((other) => other.name === `${soakHeapPrefix}${service}`)?.detail ?? '',
      );
      return mb === null
        ? []
        : [
            {
              service,
              first: Number(mb[1]),
              last: Number(mb[2]),
              change: row.value,
              ...(heap === null ? {} : { heap: { first: Number(heap[1]), last: Number(heap[2]) } }),
            },
          ];
    }),
  };
}

/**
 * What the tables read of one result file. A full run has no large queue (`--only queue-memory` takes
 * some 40 minutes alone): `memoryRun`, such a run, gives the memory target's figures where it has none.
 */
export function summaryOf(
  name: string,
  report: Pick<Report, 'machine' | 'rows'> & { readonly settings?: Report['settings'] },
  memoryRun?: Pick<Report, 'machine' | 'rows'>,
): RunSummary {
  const rows = report.rows;
  const ownMemory = memoryChanges(rows);
  const otherMemory = ownMemory.length === 0 && memoryRun !== undefined ? memoryChanges(memoryRun.rows) : [];
  const byName = new Map(rows.map((row) => [row.name, row]));
  const value = (name: string) => byName.get(name)?.value;
  const startingWith = (prefix: string) => rows.find((row) => row.name.startsWith(prefix));
  const delivered = (row: Row | undefined): Delivered | undefined =>
    row === undefined ? undefined : { rate: row.value, inOrder: inOrder(row.detail) };
  const machine = report.machine as { cpuModel?: string; cores?: number };
  const together = report.settings?.together as readonly string[] | undefined;
  const ingress = startingWith('latency ingress 202 at ');
  const recovery = byName.get('recovery after a 60 s bank outage') ?? startingWith('recovery after a ');
  const busy = byName.get('machine CPU busy at the sustained rate');
  const storage = byName.get('storage kept per debit: mongodb data and indexes');
  return {
    name,
    commit: commitOf(report),
    cpuModel: machine.cpuModel,
    ...(together === undefined ? {} : { together }),
    debits: value('on-us debits sustained through the whole journey'),
    burst: value('burst: on-us debits through the whole journey, closed loop'),
    drain: startingWith('drain of ')?.value,
    journeyPostings: delivered(byName.get('event postings delivered at the sustained rate (both classes)')),
    eventPath: delivered(
      byName.get('event path alone: postings delivered from a backlog, in order (both classes)'),
    ),
    eventPathCpu:
      Number(
        /([\d.]+) µs per posting/.exec(byName.get('event path alone: machine CPU busy')?.detail ?? '')?.[1],
      ) || undefined,
    eventPathReferences: value('event path alone: machine CPU per posting in CPU references'),
    schedulerAlone: value('scheduler alone: debits made ready and released from a backlog'),
    schedulerCeiling: value("scheduler alone: one instance's ceiling, debits a second of its own CPU"),
    limits: {
      kafkaProduce: startingWith('kafka produce (idempotent')?.value,
      kafkaConsume: startingWith('kafka consume')?.value,
      mongoInsert: startingWith('mongodb insertOne')?.value,
      mongoUpdate: startingWith('mongodb updateOne')?.value,
      mongoFind: startingWith('mongodb findOne')?.value,
      deliveryLog: startingWith('mongodb delivery log first attempts')?.value,
      bankHttp: startingWith('http POST /events to the bank simulator')?.value,
      bareHttp: startingWith("http POST /events to the services' HTTP stack")?.value,
    },
    limitCpu: {
      kafkaProduce: startingWith('machine CPU per record: kafka produce (idempotent')?.value,
      kafkaConsume: startingWith('machine CPU per record: kafka consume')?.value,
      deliveryLog: startingWith('machine CPU per entry: mongodb delivery log first attempts')?.value,
      bareHttp: startingWith("machine CPU per request: http POST /events to the services' HTTP stack")?.value,
    },
    cores: machine.cores,
    perDebit: {
      kafkaRecords: value('kafka records written per debit'),
      kafkaRequests: value('kafka requests per debit'),
      httpRequests: value('http requests per debit'),
      writeCommands: value('mongodb write commands per debit'),
      writeStatements: value('mongodb write statements per debit'),
      // The references' row gives it to a tenth of a ms; the busy row, rounded.
      cpu:
        Number(
          /^([\d.]+) ms a debit/.exec(
            byName.get('machine CPU per debit in CPU references')?.detail ?? '',
          )?.[1],
        ) ||
        Number(/; ([\d.]+) ms per debit/.exec(busy?.detail ?? '')?.[1]) ||
        undefined,
      references: value('machine CPU per debit in CPU references'),
      allCoreReferences: value('machine CPU per debit in all-core CPU references'),
    },
    storage:
      storage === undefined
        ? undefined
        : {
            mongodb: storage.value,
            kafka: Number(/Kafka's log ([\d.]+) kB/.exec(storage.detail ?? '')?.[1]) || undefined,
          },
    busy: busy?.value,
    cpuByProcess: rows
      .filter(
        (row) => row.name.startsWith('CPU per debit: ') && row.name !== `CPU per debit: ${loadGenerator}`,
      )
      .map((row) => ({ process: row.name.slice('CPU per debit: '.length), ms: row.value }))
      .filter((entry) => entry.ms > 0)
      .sort((a, b) => b.ms - a.ms),
    halfLoad:
      Number(/^latency ingress 202 at ([\d.]+) debits\/s/.exec(ingress?.name ?? '')?.[1]) || undefined,
    ingress: percentiles(ingress?.detail),
    firstPosting: percentiles(byName.get('202 to the first posting at the bank, p50 / p95 / p99')?.detail),
    completed: percentiles(byName.get('202 to DEBIT_COMPLETED at the bank, p50 / p95 / p99')?.detail),
    recovery:
      recovery === undefined
        ? undefined
        : {
            seconds: recovery.value,
            postingsPerSecond:
              Number(/([\d.]+) postings\/s while catching up/.exec(recovery.detail ?? '')?.[1]) || undefined,
          },
    memory: ownMemory.length > 0 ? ownMemory : otherMemory,
    pods: podMemory(rows),
    soak: soakOf(rows),
    ...(otherMemory.length > 0 && memoryRun !== undefined ? { memoryFrom: commitOf(memoryRun) } : {}),
  };
}

/**
 * A debit's traffic at what each kind costs the machine at its limit, where it is cheapest (the largest
 * batches, nothing parsed or checked): the HTTP requests at the bare stack's cost (client and server), the
 * Kafka records written at the batched produce's and read once each at eachBatch's (every topic of the
 * journey has a consumer in the pipeline), the MongoDB documents at the delivery log's batched inserts.
 * A debit can cost no less while it makes this traffic: whatever the services do around it comes on top.
 */
const floorKinds: readonly {
  readonly title: string;
  readonly count: (run: RunSummary) => number | undefined;
  readonly micros: (run: RunSummary) => number | undefined;
}[] = [
  {
    title: "HTTP requests × the bare HTTP stack's, client and server",
    count: (run) => run.perDebit.httpRequests,
    micros: (run) => run.limitCpu.bareHttp,
  },
  {
    title: "Kafka records written × the batched produce's, client and broker",
    count: (run) => run.perDebit.kafkaRecords,
    micros: (run) => run.limitCpu.kafkaProduce,
  },
  {
    title: "the same records read (each by one service at least) × eachBatch's",
    count: (run) => run.perDebit.kafkaRecords,
    micros: (run) => run.limitCpu.kafkaConsume,
  },
  {
    title: "MongoDB documents written × the delivery log's, 1,000 a call",
    count: (run) => run.perDebit.writeStatements,
    micros: (run) => run.limitCpu.deliveryLog,
  },
];

/** The floor of a debit's machine CPU, ms; undefined unless the run measured every part of it. */
export function floorMs(run: RunSummary): number | undefined {
  let micros = 0;
  for (const kind of floorKinds) {
    const count = kind.count(run);
    const each = kind.micros(run);
    if (count === undefined || each === undefined) return undefined;
    micros += count * each;
  }
  return micros / 1000;
}

/**
 * The engine's own services, as the bench names their processes (the bank simulator and the stack apart):
 * a service in its own process by its name, services together in one by `engineProcessName`.
 */
const isEngineService = (process: string) =>
  (engineServices as readonly string[]).includes(process) || isEngineProcessName(process);

/** The issue's targets on the reference machine. */
export const targets = {
  debitsPerSecond: 500,
  postingsPerSecond: 3_000,
  firstPostingP99Ms: 250,
  writesPerDebit: 2,
  memoryChangePercent: 10,
} as const;

const number = (value: number, digits = 1) =>
  value.toLocaleString('en-US', { maximumFractionDigits: digits });
const dash = '-';
/** "0.8 cores", "1 core", "2.1 cores". */
const coresOf = (value: number, digits = 1) => {
  const text = number(value, digits);
  return `${text} ${text === '1' ? 'core' : 'cores'}`;
};
/** A change in per cent with its sign: "+1.7%", "0%", "-2.7%". */
const signed = (value: number) => `${value > 0 ? '+' : ''}${number(value)}%`;

/** "1,295.5/s, 21.9% of 5,913": a rate and its share of the limit beside it. */
export function share(rate: number | undefined, limit: number | undefined, unit = '/s'): string {
  if (rate === undefined) return dash;
  if (limit === undefined || limit <= 0) return `${number(rate)}${unit}`;
  return `${number(rate)}${unit}, ${number((100 * rate) / limit)}% of ${number(limit, 0)}`;
}

const times = (value: Percentiles | undefined) =>
  value === undefined
    ? dash
    : `${number(value.p50, 0)} / ${number(value.p95, 0)} / ${number(value.p99, 0)} ms`;

const held = (met: boolean) => (met ? 'met' : 'not met');

function debitsTarget(run: RunSummary): string {
  if (run.debits === undefined) return dash;
  return `${number(run.debits)}/s: ${held(run.debits >= targets.debitsPerSecond)}`;
}

function postingsTarget(run: RunSummary): string {
  const journey = run.journeyPostings;
  const alone = run.eventPath;
  if (journey === undefined && alone === undefined) return dash;
  const ok = (delivered: Delivered | undefined) =>
    delivered !== undefined && delivered.inOrder !== false && delivered.rate >= targets.postingsPerSecond;
  const order = (delivered: Delivered) => (delivered.inOrder === false ? ', not all once and in order' : '');
  const parts = [
    journey === undefined ? undefined : `${number(journey.rate)}/s in the whole journey${order(journey)}`,
    alone === undefined ? undefined : `${number(alone.rate)}/s on the event path alone${order(alone)}`,
  ].filter((part) => part !== undefined);
  const verdict = ok(journey) ? 'met' : ok(alone) ? 'met by the event path alone' : 'not met';
  return `${parts.join(', ')}: ${verdict}`;
}

function latencyTarget(run: RunSummary): string {
  if (run.firstPosting === undefined) return dash;
  const at = run.halfLoad === undefined ? '' : ` at ${number(run.halfLoad)}/s`;
  return `${number(run.firstPosting.p99, 0)} ms${at}: ${held(run.firstPosting.p99 < targets.firstPostingP99Ms)}`;
}

function writesTarget(run: RunSummary): string {
  const { writeCommands: commands, writeStatements: statements } = run.perDebit;
  if (commands === undefined) return dash;
  const documents = statements === undefined ? '' : `, ${number(statements)} documents`;
  const verdict =
    statements !== undefined && statements <= targets.writesPerDebit
      ? 'met'
      : commands <= targets.writesPerDebit
        ? 'met as commands'
        : 'not met';
  return `${number(commands)} commands${documents}: ${verdict}`;
}

function memoryTarget(run: RunSummary): string {
  if (run.memory.length === 0) return dash;
  const changes = run.memory.map((entry) => entry.change);
  const least = Math.min(...changes);
  const most = Math.max(...changes);
  const range = `${signed(least)} to ${signed(most)}`;
  const met = changes.every((change) => Math.abs(change) <= targets.memoryChangePercent);
  const from = run.memoryFrom === undefined ? '' : ` (at \`${run.memoryFrom}\`)`;
  return `every service ${range}${from}: ${held(met)}`;
}

/** A Markdown table: a header and its rows, the first column left, the rest right-aligned. */
export function markdownTable(header: readonly string[], lines: readonly (readonly string[])[]): string {
  const escaped = (cell: string) => cell.replaceAll('|', '\\|');
  const cells = [header, ...lines].map((line) => line.map(escaped));
  const widths = header.map((_, index) => Math.max(3, ...cells.map((line) => (line[index] ?? '').length)));
  const format = (line: readonly string[]) =>
    `| ${line.map((cell, index) => (index === 0 ? cell.padEnd(widths[index] ?? 0) : cell.padStart(widths[index] ?? 0))).join(' | ')} |`;
  const rule = `| ${widths.map((width, index) => (index === 0 ? '-'.repeat(width) : `${'-'.repeat(width - 1)}:`)).join(' | ')} |`;
  return [format(cells[0] ?? []), rule, ...cells.slice(1).map(format)].join('\n');
}

const heading = (run: RunSummary) =>
  (run.cpuModel === undefined ? `\`${run.commit}\`` : `\`${run.commit}\`, ${run.cpuModel}`) +
  (run.together === undefined ? '' : `, ${run.together.length} services in one process`);

/** The tables the summary makes, each a column a run. */
export const tableNames = [
  'targets',
  'beside',
  'floor',
  'costs',
  'cpu',
  'sizing',
  'yardstick',
  'memory',
  'pods',
  'soak',
] as const;
export type TableName = (typeof tableNames)[number];

const isTableName = (name: string): name is TableName => (tableNames as readonly string[]).includes(name);

const optional = <T>(value: T | undefined, format: (value: T) => string) =>
  value === undefined ? dash : format(value);

type Line = readonly string[];
type Table = (runs: readonly RunSummary[]) => { readonly title: string; readonly lines: readonly Line[] };

const lineOf = (runs: readonly RunSummary[]) => (title: string, cell: (run: RunSummary) => string) => [
  title,
  ...runs.map(cell),
];

/** A line a service any run names (in the first run's order), a run's cell from its entry, else a dash. */
function perService<T extends { readonly service: string }>(
  runs: readonly RunSummary[],
  title: string,
  entries: (run: RunSummary) => readonly T[],
  cell: (entry: T) => string,
): ReturnType<Table> {
  const services = [...new Set(runs.flatMap((run) => entries(run).map((entry) => entry.service)))];
  const row = lineOf(runs);
  return {
    title,
    lines: services.map((service) =>
      row(service, (run) => {
        const entry = entries(run).find((candidate) => candidate.service === service);
        return entry === undefined ? dash : cell(entry);
      }),
    ),
  };
}

const tables: Readonly<Record<TableName, Table>> = {
  targets: (runs) => {
    const row = lineOf(runs);
    return {
      title: 'target (reference machine)',
      lines: [
        row('at least 500 on-us debits/s through the whole journey', debitsTarget),
        row('at least 3,000 event postings/s delivered in order', postingsTarget),
        row('p99 from the 202 to the first posting < 250 ms at half load', latencyTarget),
        row('at most 2 MongoDB writes a debit journey', writesTarget),
        row('resident memory with 1,000,000 queued within 10% of 100,000', memoryTarget),
      ],
    };
  },

  beside: (runs) => {
    const row = lineOf(runs);
    const perDebitShare =
      (perDebit: (run: RunSummary) => number | undefined, limit: (run: RunSummary) => number | undefined) =>
      (run: RunSummary) => {
        const each = perDebit(run);
        return run.debits === undefined || each === undefined ? dash : share(run.debits * each, limit(run));
      };
    return {
      title: 'figure, and the limit measured beside it',
      lines: [
        row('on-us debits sustained 60 s, nothing lost', (run) =>
          optional(run.debits, (v) => `${number(v)}/s`),
        ),
        row(
          'at that rate: its Kafka records, of the batched produce limit',
          perDebitShare(
            (run) => run.perDebit.kafkaRecords,
            (run) => run.limits.kafkaProduce,
          ),
        ),
        row(
          'at that rate: its MongoDB write commands, of the insertOne limit',
          perDebitShare(
            (run) => run.perDebit.writeCommands,
            (run) => run.limits.mongoInsert,
          ),
        ),
        row("at that rate: its postings, of the bank simulator's HTTP limit", (run) =>
          share(run.journeyPostings?.rate, run.limits.bankHttp),
        ),
        row('at that rate: the machine busy', (run) => optional(run.busy, (v) => `${number(v, 0)}%`)),
        row('event path alone: postings from a backlog, in order', (run) =>
          share(run.eventPath?.rate, run.limits.bankHttp),
        ),
        row("event path alone: its delivery log entries, of the log's own limit", (run) =>
          share(run.eventPath?.rate, run.limits.deliveryLog),
        ),
        row('burst, 32 in flight', (run) => optional(run.burst, (v) => `${number(v)}/s`)),
        row('a queue of 10,000 drained when the window opens', (run) =>
          optional(run.drain, (v) => `${number(v)}/s`),
        ),
        row("scheduler alone, from a backlog (one instance's ceiling)", (run) =>
          run.schedulerAlone === undefined
            ? dash
            : `${number(run.schedulerAlone)}/s${run.schedulerCeiling === undefined ? '' : ` (${number(run.schedulerCeiling, 0)}/s)`}`,
        ),
        row('recovery after a 60 s bank outage: backlog delivered in', (run) =>
          run.recovery === undefined
            ? dash
            : `${number(run.recovery.seconds)} s${run.recovery.postingsPerSecond === undefined ? '' : `, ${number(run.recovery.postingsPerSecond, 0)} postings/s`}`,
        ),
      ],
    };
  },

  floor: (runs) => {
    const row = lineOf(runs);
    return {
      title: "a debit's floor: its traffic at the machine CPU the limits cost",
      lines: [
        ...floorKinds.map((kind) =>
          row(kind.title, (run) => {
            const count = kind.count(run);
            const each = kind.micros(run);
            return count === undefined || each === undefined
              ? dash
              : `${number(count)} × ${number(each, 0)} µs = ${number((count * each) / 1000, 2)} ms`;
          }),
        ),
        row('the floor a debit', (run) => optional(floorMs(run), (v) => `${number(v, 2)} ms`)),
        row('debits a second the floor allows on the machine', (run) => {
          const floor = floorMs(run);
          return floor === undefined || run.cores === undefined
            ? dash
            : `${number((run.cores * 1000) / floor, 0)}/s on ${run.cores} cores`;
        }),
        row('500 debits a second at the floor', (run) =>
          optional(floorMs(run), (v) => coresOf((targets.debitsPerSecond * v) / 1000, 2)),
        ),
        row("the pipeline's CPU a debit, over its floor", (run) => {
          const floor = floorMs(run);
          return floor === undefined || run.perDebit.cpu === undefined
            ? dash
            : `${number(run.perDebit.cpu)} ms, ${number(run.perDebit.cpu / floor)} × the floor`;
        }),
      ],
    };
  },

  costs: (runs) => {
    const row = lineOf(runs);
    return {
      title: 'a debit, and the latency at half load',
      lines: [
        row('machine CPU a debit (one-thread / all-core references)', (run) =>
          run.perDebit.cpu === undefined
            ? dash
            : `${number(run.perDebit.cpu)} ms${run.perDebit.references === undefined ? '' : ` (${number(run.perDebit.references, 0)} / ${optional(run.perDebit.allCoreReferences, (v) => number(v, 0))})`}`,
        ),
        row('event path alone: machine CPU a posting (references)', (run) =>
          run.eventPathCpu === undefined
            ? dash
            : `${number(run.eventPathCpu, 0)} µs${run.eventPathReferences === undefined ? '' : ` (${number(run.eventPathReferences, 2)})`}`,
        ),
        row('Kafka records / requests', (run) =>
          run.perDebit.kafkaRecords === undefined
            ? dash
            : `${number(run.perDebit.kafkaRecords)} / ${optional(run.perDebit.kafkaRequests, (v) => number(v))}`,
        ),
        row('HTTP requests', (run) => optional(run.perDebit.httpRequests, (v) => number(v))),
        row('MongoDB write commands / documents', (run) =>
          run.perDebit.writeCommands === undefined
            ? dash
            : `${number(run.perDebit.writeCommands)} / ${optional(run.perDebit.writeStatements, (v) => number(v))}`,
        ),
        row("storage kept: MongoDB / Kafka's log", (run) =>
          run.storage === undefined
            ? dash
            : `${number(run.storage.mongodb)} kB / ${optional(run.storage.kafka, (v) => `${number(v)} kB`)}`,
        ),
        row('half load', (run) => optional(run.halfLoad, (v) => `${number(v)}/s`)),
        row('ingress 202, p50 / p95 / p99', (run) => times(run.ingress)),
        row('202 to the first posting', (run) => times(run.firstPosting)),
        row('202 to DEBIT_COMPLETED', (run) => times(run.completed)),
      ],
    };
  },

  cpu: (runs) => {
    // Every process any run names, in the first run's order (most first), then the others'.
    const processes = [...new Set(runs.flatMap((run) => run.cpuByProcess.map((entry) => entry.process)))];
    const ms = (run: RunSummary, name: string) =>
      run.cpuByProcess.find((entry) => entry.process === name)?.ms;
    const row = lineOf(runs);
    return {
      title: 'CPU a debit at the sustained rate, by process',
      lines: [
        ...processes.map((name) => row(name, (run) => optional(ms(run, name), (v) => `${number(v)} ms`))),
        row('all of them', (run) =>
          run.cpuByProcess.length === 0
            ? dash
            : `${number(run.cpuByProcess.reduce((sum, entry) => sum + entry.ms, 0))} ms`,
        ),
      ],
    };
  },

  sizing: (runs) => {
    // Every process any run names, in the first run's order (most first), then the others'.
    const processes = [...new Set(runs.flatMap((run) => run.cpuByProcess.map((entry) => entry.process)))];
    const cores = (ms: number) => coresOf((ms * targets.debitsPerSecond) / 1000);
    const ms = (run: RunSummary, name: string) =>
      run.cpuByProcess.find((entry) => entry.process === name)?.ms;
    const sum = (run: RunSummary, which: (process: string) => boolean) => {
      const entries = run.cpuByProcess.filter((entry) => which(entry.process));
      return entries.length === 0 ? undefined : entries.reduce((total, entry) => total + entry.ms, 0);
    };
    const row = lineOf(runs);
    return {
      title: `cores for ${number(targets.debitsPerSecond, 0)} debits a second at the run's CPU a debit`,
      lines: [
        ...processes.map((name) => row(name, (run) => optional(ms(run, name), cores))),
        row("the engine's services", (run) => optional(sum(run, isEngineService), cores)),
        row('all of them', (run) =>
          optional(
            sum(run, () => true),
            cores,
          ),
        ),
      ],
    };
  },

  yardstick: (runs) => {
    const row = lineOf(runs);
    const rate = (value: number | undefined, unit: string) =>
      optional(value, (v) => `${number(v, 0)} ${unit}`);
    return {
      title: 'limit, measured in the same run',
      lines: [
        row('Kafka produce, idempotent, acks=all, 1,000 × 1 KiB a send', (run) =>
          rate(run.limits.kafkaProduce, 'records/s'),
        ),
        row('Kafka consume, eachBatch', (run) => rate(run.limits.kafkaConsume, 'records/s')),
        row('MongoDB insertOne, 16 in flight', (run) => rate(run.limits.mongoInsert, 'ops/s')),
        row('MongoDB updateOne by _id, 16 in flight', (run) => rate(run.limits.mongoUpdate, 'ops/s')),
        row('MongoDB findOne by _id, 16 in flight', (run) => rate(run.limits.mongoFind, 'ops/s')),
        row('the delivery log written through the store, 1,000 a call', (run) =>
          rate(run.limits.deliveryLog, 'entries/s'),
        ),
        row('HTTP postings into the bank simulator, 32 keep-alive connections', (run) =>
          rate(run.limits.bankHttp, 'requests/s'),
        ),
        row("HTTP postings into the services' bare HTTP stack", (run) =>
          rate(run.limits.bareHttp, 'requests/s'),
        ),
      ],
    };
  },

  memory: (runs) =>
    perService(
      runs,
      'resident set, 100,000 queued → 1,000,000 (heap in use)',
      (run) => run.memory,
      (entry) => {
        const heap = entry.heapChange === undefined ? '' : ` (heap ${signed(entry.heapChange)})`;
        return `${number(entry.at100k, 0)} → ${number(entry.at1m, 0)} MB, ${signed(entry.change)}${heap}`;
      },
    ),

  pods: (runs) =>
    perService(
      runs,
      'under its Kubernetes memory limit: the most it held (V8 heap limit)',
      (run) => run.pods,
      (entry) => {
        const heap = entry.heapLimit === undefined ? '' : ` (heap ${number(entry.heapLimit, 0)} MB)`;
        return `${number(entry.peak, 0)} MB of ${number(entry.limit, 0)} MiB, ${number((100 * entry.peak) / entry.limit, 0)}%${heap}, ${entry.killed} killed`;
      },
    ),

  soak: (runs) => {
    const row = lineOf(runs);
    const driftLabel =
      'the late minutes against the early (medians of the first and last third, minute 1 out)';
    const movedBy = (moved: Drift, unit: string, digits?: number) =>
      `${signed(moved.change)} (${number(moved.early, digits)} → ${number(moved.late, digits)} ${unit})`;
    // The first minute, every fifth and each run's last: a line a minute of a long soak is its JSON's.
    const lasts = new Set(runs.map((run) => run.soak?.perMinute.at(-1)?.minute));
    const minutes = [
      ...new Set(runs.flatMap((run) => run.soak?.perMinute.map((entry) => entry.minute) ?? [])),
    ]
      .filter((minute) => minute === 1 || minute % 5 === 0 || lasts.has(minute))
      .sort((a, b) => a - b);
    const memory = perService(
      runs,
      '',
      (run) => run.soak?.memory ?? [],
      (entry) =>
        `${number(entry.first, 0)} → ${number(entry.last, 0)} MB, ${signed(entry.change)}${entry.heap === undefined ? '' : ` (heap ${number(entry.heap.first)} → ${number(entry.heap.last)} MB)`}`,
    );
    const title = 'a soak: one rate held for many minutes';
    // Like the pods' table: nothing for runs without one (a full run has none).
    if (runs.every((run) => run.soak === undefined)) return { title, lines: [] };
    return {
      title,
      lines: [
        row('debits offered steadily, every journey through', (run) =>
          run.soak === undefined
            ? dash
            : `${number(run.soak.rate)}/s for ${number(run.soak.minutes)} min: ${run.soak.lost === 0 ? 'nothing lost' : `${number(run.soak.lost, 0)} lost`}${run.soak.inOrder === true ? ', in order' : run.soak.inOrder === false ? ', out of order' : ''}`,
        ),
        ...minutes.map((minute) =>
          row(`minute ${minute}: debits/s, p99 202 to DEBIT_COMPLETED, machine CPU a debit`, (run) => {
            const entry = run.soak?.perMinute.find((candidate) => candidate.minute === minute);
            return entry === undefined
              ? dash
              : `${number(entry.rate)}/s, ${optional(entry.p99, (p99) => `${number(p99, 0)} ms`)}, ${optional(entry.cpu, (cpu) => `${number(cpu)} ms`)}`;
          }),
        ),
        row(`machine CPU a debit, ${driftLabel}`, (run) =>
          optional(run.soak?.cpuDrift, (moved) => movedBy(moved, 'ms')),
        ),
        row(`p99 202 to DEBIT_COMPLETED, ${driftLabel}`, (run) =>
          optional(run.soak?.p99Drift, (moved) => movedBy(moved, 'ms', 0)),
        ),
        ...memory.lines.map(([service, ...cells]) => [
          `resident memory (heap after a forced collection), the first minute → the last: ${service}`,
          ...cells,
        ]),
      ],
    };
  },
};

/** The tables named (all of them by default), a column a run, as Markdown. */
export function formatSummary(runs: readonly RunSummary[], names: readonly TableName[] = tableNames): string {
  return names
    .map((name) => {
      const { title, lines } = tables[name](runs);
      return markdownTable([title, ...runs.map(heading)], lines);
    })
    .join('\n\n');
}

/**
 * A document's summary blocks made again from the runs they name. A block is
 *
 *   <!-- summary TABLE [TABLE ...]: [--memory queue-run.json] result.json ... -->
 *   ...
 *   <!-- /summary -->
 *
 * with the files named from the document's directory; what lies between the two comments is replaced.
 */
export function renderDocument(
  text: string,
  read: (file: string) => Pick<Report, 'machine' | 'rows'>,
): string {
  return text.replace(
    /(<!-- summary ([a-z ]+): ([^>]*?) -->\n)[\s\S]*?(<!-- \/summary -->)/g,
    (_block, open: string, names: string, args: string, close: string) => {
      const wanted = names.trim().split(/\s+/);
      const unknown = wanted.filter((name) => !isTableName(name));
      if (unknown.length > 0)
        throw new Error(`unknown summary table ${unknown.join(', ')} (${tableNames.join(', ')})`);
      // The block names its runs as the command line does.
      const { values, positionals: files } = parseArgs({
        args: args.trim().split(/\s+/),
        options: { memory: { type: 'string' } },
        allowPositionals: true,
      });
      const memoryRun = values.memory === undefined ? undefined : read(values.memory);
      const runs = files.map((file) => summaryOf(basename(file, '.json'), read(file), memoryRun));
      return `${open}\n${formatSummary(runs, wanted.filter(isTableName))}\n\n${close}`;
    },
  );
}

const usage = `Usage: npm run summary -w @rp/bench -- [--memory queue-run.json] [result.json ...]
       npm run summary -w @rp/bench -- --docs BENCHMARKS.md [--check]

Prints, as Markdown tables with a column a run, the five targets (met or not), each throughput figure
beside the limit measured in the same run, a debit's floor (its requests, records and documents at the
machine CPU each cost at its limit, and the debits a second that leaves room for), what a debit costs
with the latencies at half load, the CPU a debit by process and the cores each would need for 500 a
second, the limits themselves, the memory with the large queue, and what each service held under its
Kubernetes memory limit in a --k8s-memory run, and a soak's minutes (--only soak). --memory names a large-queue run (--only queue-memory)
whose figures stand for the memory target in the runs that have none of their own. Without files,
bench/results/latest.json.

--docs makes a document's summary blocks again from the runs each names, files named from the
document's directory:

  <!-- summary targets beside: --memory bench/results/<queue run>.json bench/results/latest.json -->
  <!-- /summary -->

and writes it; with --check it writes nothing and fails when a block is not what its runs make.`;

function main(argv: readonly string[]): void {
  const { values, positionals } = parseArgs({
    args: [...argv],
    options: {
      help: { type: 'boolean' },
      memory: { type: 'string' },
      docs: { type: 'string' },
      check: { type: 'boolean' },
    },
    allowPositionals: true,
  });
  if (values.help) {
    console.log(usage);
    return;
  }
  const from = invokedFrom();
  const read = (file: string) => JSON.parse(readFileSync(file, 'utf8')) as Report;
  if (values.docs !== undefined) {
    const document = resolve(from, values.docs);
    const text = readFileSync(document, 'utf8');
    const made = renderDocument(text, (file) => read(resolve(dirname(document), file)));
    if (values.check) {
      if (made !== text)
        throw new Error(`${values.docs}: its summary tables are not what the runs they name make`);
      console.log(`${values.docs}: its summary tables are what the runs they name make`);
    } else if (made !== text) {
      writeFileSync(document, made);
      console.log(`${values.docs}: summary tables made again`);
    }
    return;
  }
  const memoryRun = values.memory === undefined ? undefined : read(resolve(from, values.memory));
  const files =
    positionals.length > 0
      ? positionals.map((file) => resolve(from, file))
      : [fileURLToPath(new URL('../results/latest.json', import.meta.url))];
  const runs = files.map((file) => summaryOf(basename(file, '.json'), read(file), memoryRun));
  console.log(formatSummary(runs));
}

runAsProgram(import.meta.url, main);
