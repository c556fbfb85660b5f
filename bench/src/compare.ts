/**
 * Runs side by side: what each result file says of the hour (the CPU reference's readings, the time the
 * hypervisor stole) and of the code (the rates, and the CPU a debit and a posting in each reference's
 * units), and how far each figure spread over the runs. The figure that spreads least over runs of the
 * same code is the one that takes the hour out best.
 *
 *   npm run compare -w @rp/bench -- [result.json ...]    (default: the ten newest runs in bench/results)
 */
import { readdirSync, readFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { invokedFrom, runAsProgram } from './program.ts';
import type { Report, Row } from './report.ts';

/** A phase's figures of one run (undefined: not measured): the rate, the CPU an item, the references. */
export interface PhaseFigures {
  readonly rate: number | undefined;
  /** The pipeline's processes' own CPU an item (ms a debit, µs a posting), the load generator left out. */
  readonly cpu: number | undefined;
  /** The CPU reference beside the phase, µs a pass: one thread, every core at once, the thread's CPU time. */
  readonly oneThread: number | undefined;
  readonly allCores: number | undefined;
  readonly oneThreadCpu: number | undefined;
  /** Of the machine's busy core-seconds in the phase, the share stolen by the hypervisor (0 when none said). */
  readonly stolenShare: number | undefined;
}

export interface RunFigures {
  readonly name: string;
  readonly commit: string;
  readonly window: PhaseFigures;
  readonly eventPath: PhaseFigures;
}

interface PhaseNames {
  readonly prefix: string;
  readonly rate: string;
  readonly busy: string;
  readonly perItem: string;
  readonly beside: string;
}

const windowNames: PhaseNames = {
  prefix: '',
  rate: 'on-us debits sustained through the whole journey',
  busy: 'machine CPU busy at the sustained rate',
  perItem: 'CPU per debit: ',
  beside: 'the sustained window',
};

const eventPathNames: PhaseNames = {
  prefix: 'event path alone: ',
  rate: 'event path alone: postings delivered from a backlog, in order (both classes)',
  busy: 'event path alone: machine CPU busy',
  perItem: 'event path alone: CPU per posting: ',
  beside: 'the phase',
};

const loadGenerator = 'bench (load generator)';

/** "121 of 127 core-seconds (22.2 of them stolen: ...)": the stolen share of the busy seconds. */
function stolenShare(row: Row | undefined): number | undefined {
  if (row?.detail === undefined) return undefined;
  const busy = /^([\d.]+) of [\d.]+ core-seconds/.exec(row.detail);
  if (!busy) return undefined;
  const stolen = /\(([\d.]+) of them stolen/.exec(row.detail);
  const seconds = Number(busy[1]);
  return stolen && seconds > 0 ? Number(stolen[1]) / seconds : 0;
}

function phaseFigures(rows: readonly Row[], names: PhaseNames): PhaseFigures {
  const byName = new Map(rows.map((row) => [row.name, row]));
  const value = (name: string) => byName.get(name)?.value;
  const processes = rows.filter(
    (row) => row.name.startsWith(names.perItem) && row.name !== `${names.perItem}${loadGenerator}`,
  );
  const reference = `${names.prefix}CPU reference`;
  return {
    rate: value(names.rate),
    cpu: processes.length === 0 ? undefined : processes.reduce((sum, row) => sum + row.value, 0),
    oneThread:
      value(`${reference} beside ${names.beside} (fixed work on a journey's example messages)`) ??
      value(`${reference} beside ${names.beside}`),
    allCores: value(`${reference} on every core at once beside ${names.beside}`),
    oneThreadCpu: value(`${reference} in its thread's CPU time beside ${names.beside}`),
    stolenShare: stolenShare(byName.get(names.busy)),
  };
}

/** What `compare` reads of one result file. */
export function runFigures(name: string, report: Pick<Report, 'machine' | 'rows'>): RunFigures {
  const versions = (report.machine as { versions?: Record<string, string> }).versions ?? {};
  return {
    name,
    commit: versions.commit ?? '?',
    window: phaseFigures(report.rows, windowNames),
    eventPath: phaseFigures(report.rows, eventPathNames),
  };
}

/** The figures compared: a name, and how to read it of a run (undefined: the run did not measure it). */
interface Column {
  readonly title: string;
  readonly read: (run: RunFigures) => number | undefined;
  readonly digits: number;
  /** A figure of the hour rather than of the code: no spread is given for it. */
  readonly ofTheHour?: boolean;
}

/** A posting's CPU (µs) in units of a reading of the reference (µs a pass). */
const inUnits = (cpu: number | undefined, reference: number | undefined) =>
  cpu === undefined || reference === undefined || reference <= 0 ? undefined : cpu / reference;

const columns: readonly Column[] = [
  {
    title: 'ref µs',
    read: (run) => run.eventPath.oneThread ?? run.window.oneThread,
    digits: 1,
    ofTheHour: true,
  },
  {
    title: 'stolen %',
    read: (run) => {
      const share = run.eventPath.stolenShare ?? run.window.stolenShare;
      return share === undefined ? undefined : 100 * share;
    },
    digits: 0,
    ofTheHour: true,
  },
  { title: 'debits/s', read: (run) => run.window.rate, digits: 1 },
  { title: 'ms/debit', read: (run) => run.window.cpu, digits: 1 },
  { title: 'postings/s', read: (run) => run.eventPath.rate, digits: 0 },
  { title: 'µs/posting', read: (run) => run.eventPath.cpu, digits: 0 },
  { title: 'refs', read: (run) => inUnits(run.eventPath.cpu, run.eventPath.oneThread), digits: 2 },
  { title: 'all-core refs', read: (run) => inUnits(run.eventPath.cpu, run.eventPath.allCores), digits: 2 },
  {
    title: 'CPU-time refs',
    read: (run) => inUnits(run.eventPath.cpu, run.eventPath.oneThreadCpu),
    digits: 2,
  },
];

/** How far a figure spread over the runs that have it: its least, its most, and most over least. */
export interface Spread {
  readonly runs: number;
  readonly least: number;
  readonly most: number;
  readonly ratio: number;
}

export function spreadOf(values: readonly (number | undefined)[]): Spread | undefined {
  const known = values.filter((value): value is number => value !== undefined && Number.isFinite(value));
  if (known.length < 2) return undefined;
  const least = Math.min(...known);
  const most = Math.max(...known);
  return { runs: known.length, least, most, ratio: least > 0 ? most / least : Number.POSITIVE_INFINITY };
}

const figure = (value: number | undefined, digits: number) =>
  value === undefined ? '-' : value.toLocaleString('en-US', { maximumFractionDigits: digits });

/**
 * The runs as a table, a line each (the event path's figures where a run has it, the sustained window's
 * rate and CPU a debit), then each figure of the code's spread over the runs.
 */
export function formatComparison(runs: readonly RunFigures[]): string {
  const header = ['run', 'commit', ...columns.map((column) => column.title)];
  const lines = runs.map((run) => [
    run.name,
    run.commit,
    ...columns.map((column) => figure(column.read(run), column.digits)),
  ]);
  const spreads = columns.map((column) =>
    column.ofTheHour ? undefined : spreadOf(runs.map((run) => column.read(run))),
  );
  const spreadLine = [
    'most / least',
    '',
    ...spreads.map((spread) => (spread ? `${figure(spread.ratio, 2)}×` : '')),
  ];
  const widths = header.map((title, index) =>
    Math.max(title.length, ...[...lines, spreadLine].map((line) => (line[index] ?? '').length)),
  );
  const format = (line: readonly string[]) =>
    line
      .map((cell, index) => (index < 2 ? cell.padEnd(widths[index] ?? 0) : cell.padStart(widths[index] ?? 0)))
      .join('  ')
      .trimEnd();
  return [
    format(header),
    format(widths.map((width) => '-'.repeat(width))),
    ...lines.map(format),
    format(spreadLine),
  ].join('\n');
}

const usage = `Usage: npm run compare -w @rp/bench -- [result.json ...]

Puts runs side by side: the one-thread CPU reference beside the event path (or the sustained window)
and the share of the busy time stolen by the hypervisor (the hour); the sustained rate and the
pipeline's CPU a debit; the event path's rate and its CPU a posting, in µs and in units of each
reading of the CPU reference (the code with the hour taken out, as far as each reading takes it out).
The pipeline's CPU is its processes' own, the load generator left out. The last line gives how far
each figure of the code spread: over runs of the same code, the figure that spreads least is the one
that takes the hour out best. Without files, the ten newest runs in bench/results.`;

function newestRuns(dir: string, count: number): string[] {
  return readdirSync(dir)
    .filter((file) => /^\d{4}-\d{2}-\d{2}T.*\.json$/.test(file))
    .sort()
    .slice(-count)
    .map((file) => join(dir, file));
}

function main(argv: readonly string[]): void {
  const { values, positionals } = parseArgs({
    args: [...argv],
    options: { help: { type: 'boolean' } },
    allowPositionals: true,
  });
  if (values.help) {
    console.log(usage);
    return;
  }
  const dir = fileURLToPath(new URL('../results', import.meta.url));
  const from = invokedFrom();
  const files = positionals.length > 0 ? positionals.map((file) => resolve(from, file)) : newestRuns(dir, 10);
  if (files.length === 0) throw new Error(`no results to compare in ${dir}`);
  const runs = files.map((file) =>
    runFigures(basename(file, '.json'), JSON.parse(readFileSync(file, 'utf8')) as Report),
  );
  console.log(formatComparison(runs));
}

runAsProgram(import.meta.url, main);
