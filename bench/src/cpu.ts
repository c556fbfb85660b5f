/**
 * Where the CPU goes: the machine's busy time from /proc/stat, and each process tree's CPU time from
 * /proc/<pid>/stat (a process and every descendant alive at the reading: PostgreSQL's backends under
 * its postmaster, for example). Linux only; elsewhere the readings are empty and the bench says so.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import type { Row } from './report.ts';
import { round } from './stats.ts';

/** Clock ticks per second of /proc's time fields. */
function ticksPerSecond(): number {
  try {
    const value = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());
    return Number.isFinite(value) && value > 0 ? value : 100;
  } catch {
    return 100;
  }
}

let hz: number | undefined;
const tickRate = () => {
  hz ??= ticksPerSecond();
  return hz;
};

export interface MachineCpu {
  /** Seconds some core was busy (user, nice, system, irq, softirq, steal), summed over cores. */
  readonly busySeconds: number;
  /** Seconds of every core, busy or not. */
  readonly totalSeconds: number;
  /**
   * Of the busy seconds, those stolen: a core this machine wanted to run was running another guest of
   * the hypervisor. A slow hour on a shared host shows here, or in the code's own CPU when it does not.
   */
  readonly stealSeconds: number;
  /** Context switches on every core since boot (`ctxt`): each time a core went from one thread to another. */
  readonly contextSwitches: number;
}

/** The first line of /proc/stat: `cpu  user nice system idle iowait irq softirq steal ...` in ticks. */
export function parseMachineCpu(statText: string, ticks: number): MachineCpu {
  const line = statText.split('\n').find((entry) => entry.startsWith('cpu '));
  if (!line) throw new Error('/proc/stat has no cpu line');
  const fields = line.trim().split(/\s+/).slice(1, 9).map(Number);
  const [user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0] = fields;
  const busy = user + nice + system + irq + softirq + steal;
  const switches = /^ctxt (\d+)$/m.exec(statText);
  return {
    busySeconds: busy / ticks,
    totalSeconds: (busy + idle + iowait) / ticks,
    stealSeconds: steal / ticks,
    contextSwitches: Number(switches?.[1] ?? 0),
  };
}

export function machineCpu(): MachineCpu | undefined {
  try {
    return parseMachineCpu(readFileSync('/proc/stat', 'utf8'), tickRate());
  } catch {
    return undefined;
  }
}

/**
 * A limit's cost on the machine: every core's busy time between two readings over the operations done
 * between them, in µs an operation. It takes in both ends of the measurement (the bench's client and the
 * server) and whatever else ran meanwhile (the local stack's idle work), so it is what the operation
 * costs this machine, not one process; the pipeline pays both ends too. Undefined without /proc/stat.
 */
export function machineCpuPer(
  operations: number,
  before: MachineCpu | undefined,
  after: MachineCpu | undefined,
): { micros: number; busyPercent: number } | undefined {
  if (before === undefined || after === undefined || operations <= 0) return undefined;
  const busy = after.busySeconds - before.busySeconds;
  const total = after.totalSeconds - before.totalSeconds;
  if (!(total > 0)) return undefined;
  return { micros: (busy * 1e6) / operations, busyPercent: (100 * busy) / total };
}

/**
 * The row of a limit's machine CPU an operation (`machine CPU per record: kafka produce (...)`), none
 * without /proc/stat. The summary's floor of a debit reads these rows by that name.
 */
export function limitCpuRows(
  limit: string,
  noun: string,
  operations: number,
  before: MachineCpu | undefined,
  after: MachineCpu | undefined,
): Row[] {
  const cost = machineCpuPer(operations, before, after);
  if (cost === undefined) return [];
  return [
    {
      group: 'limit',
      name: `machine CPU per ${noun}: ${limit}`,
      value: round(cost.micros, 1),
      unit: 'µs',
      detail: `every core's busy time while ${operations} were measured, over their number: the machine ${round(cost.busyPercent, 0)}% busy meanwhile, the client, the server and the stack's idle work together`,
    },
  ];
}

export interface ProcessTimes {
  readonly pid: number;
  readonly ppid: number;
  /**
   * User and system time, in ticks, with that of its children that ended and were waited for: a tree's
   * sum then never falls when a child exits (a PostgreSQL backend at the end of its connection).
   */
  readonly ticks: number;
}

/** One /proc/<pid>/stat line. The command name may hold spaces and parentheses: fields follow the last `)`. */
export function parseProcessStat(text: string): ProcessTimes | undefined {
  const close = text.lastIndexOf(')');
  const open = text.indexOf('(');
  if (close < 0 || open < 0) return undefined;
  const pid = Number(text.slice(0, open).trim());
  const rest = text
    .slice(close + 1)
    .trim()
    .split(/\s+/);
  // rest: state ppid pgrp session tty_nr tpgid flags minflt cminflt majflt cmajflt utime stime cutime cstime ...
  const ppid = Number(rest[1]);
  const [utime, stime, cutime, cstime] = [11, 12, 13, 14].map((index) => Number(rest[index]));
  if (![pid, ppid, utime, stime, cutime, cstime].every(Number.isFinite)) return undefined;
  return { pid, ppid, ticks: Number(utime) + Number(stime) + Number(cutime) + Number(cstime) };
}

/**
 * Every process's times now: one reading of /proc for both `processTreeSeconds` and
 * `processTreeSwitches` of the same moment. Empty where there is no /proc.
 */
export function processTable(): ProcessTimes[] {
  const table: ProcessTimes[] = [];
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return table;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const parsed = parseProcessStat(readFileSync(`/proc/${entry}/stat`, 'utf8'));
      if (parsed) table.push(parsed);
    } catch {
      // exited between the listing and the read
    }
  }
  return table;
}

/** The process ids of each root and all of its descendants, from one reading of the table. */
export function treePids(
  table: readonly ProcessTimes[],
  roots: ReadonlyMap<string, number>,
): Map<string, ProcessTimes[]> {
  const children = new Map<number, ProcessTimes[]>();
  const byPid = new Map<number, ProcessTimes>();
  for (const entry of table) {
    byPid.set(entry.pid, entry);
    const list = children.get(entry.ppid);
    if (list) list.push(entry);
    else children.set(entry.ppid, [entry]);
  }
  const result = new Map<string, ProcessTimes[]>();
  for (const [name, root] of roots) {
    const top = byPid.get(root);
    if (!top) continue;
    const members: ProcessTimes[] = [];
    const stack = [top];
    while (stack.length > 0) {
      const entry = stack.pop() as ProcessTimes;
      members.push(entry);
      stack.push(...(children.get(entry.pid) ?? []));
    }
    result.set(name, members);
  }
  return result;
}

/** Ticks of each root and all of its descendants, from one reading of the table. */
export function treeTicks(table: readonly ProcessTimes[], roots: ReadonlyMap<string, number>) {
  return new Map(
    [...treePids(table, roots)].map(([name, members]) => [
      name,
      members.reduce((sum, entry) => sum + entry.ticks, 0),
    ]),
  );
}

/** CPU seconds of each named process tree now. Trees whose root is gone are left out. */
export function processTreeSeconds(
  roots: ReadonlyMap<string, number>,
  table: readonly ProcessTimes[] = processTable(),
): Map<string, number> {
  if (roots.size === 0) return new Map();
  const ticks = treeTicks(table, roots);
  return new Map([...ticks].map(([name, value]) => [name, value / tickRate()]));
}

/** A thread's context switches: `voluntary` when it waited (for a message, a timer, a lock), `involuntary` when the kernel took its core. */
export interface Switches {
  readonly voluntary: number;
  readonly involuntary: number;
}

/** The two counts of a /proc/<pid>/task/<tid>/status text. */
export function parseSwitches(statusText: string): Switches | undefined {
  const voluntary = /^voluntary_ctxt_switches:\s+(\d+)$/m.exec(statusText);
  const involuntary = /^nonvoluntary_ctxt_switches:\s+(\d+)$/m.exec(statusText);
  if (!voluntary || !involuntary) return undefined;
  return { voluntary: Number(voluntary[1]), involuntary: Number(involuntary[1]) };
}

/** Each thread's switches of a process tree at one reading, by thread id. */
export type ThreadSwitches = ReadonlyMap<number, Switches>;

/** Every thread's switches of one process now, into `into` by thread id; none when it is gone. */
function readThreads(pid: number, into: Map<number, Switches>): void {
  let threads: string[];
  try {
    threads = readdirSync(`/proc/${pid}/task`);
  } catch {
    return;
  }
  for (const thread of threads) {
    try {
      const counts = parseSwitches(readFileSync(`/proc/${pid}/task/${thread}/status`, 'utf8'));
      if (counts) into.set(Number(thread), counts);
    } catch {
      // ended between the listing and the read
    }
  }
}

/**
 * Context switches of each named process tree now: every thread of the root and of its descendants
 * alive at the reading, by thread id (see `switchesBetween`). Trees whose root is gone are left out.
 */
export function processTreeSwitches(
  roots: ReadonlyMap<string, number>,
  table: readonly ProcessTimes[] = processTable(),
): Map<string, ThreadSwitches> {
  return new Map(
    [...treePids(table, roots)].map(([name, members]) => {
      const threads = new Map<number, Switches>();
      for (const entry of members) readThreads(entry.pid, threads);
      return [name, threads];
    }),
  );
}

/**
 * Context switches of each named process alone now (every thread of it, none of its children's): the
 * bench's own process, whose children are the services it launched, and the services.
 */
export function processSwitches(pids: ReadonlyMap<string, number>): Map<string, ThreadSwitches> {
  const result = new Map<string, ThreadSwitches>();
  for (const [name, pid] of pids) {
    const threads = new Map<number, Switches>();
    readThreads(pid, threads);
    if (threads.size > 0) result.set(name, threads);
  }
  return result;
}

/**
 * A tree's switches between two readings: each thread's difference, a thread started since the first
 * reading counted whole. The kernel keeps no count of a thread that ended, so the switches of a thread
 * that ended between the readings are left out (a tree's figure is then low, never negative).
 */
export function switchesBetween(before: ThreadSwitches, after: ThreadSwitches): Switches {
  let voluntary = 0;
  let involuntary = 0;
  for (const [thread, counts] of after) {
    const earlier = before.get(thread);
    voluntary += counts.voluntary - (earlier?.voluntary ?? 0);
    involuntary += counts.involuntary - (earlier?.involuntary ?? 0);
  }
  return { voluntary, involuntary };
}
