import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  limitCpuRows,
  machineCpuPer,
  parseMachineCpu,
  parseProcessStat,
  parseSwitches,
  processSwitches,
  processTreeSwitches,
  switchesBetween,
  treeTicks,
} from './cpu.ts';

describe('CPU accounting from /proc', () => {
  it('reads the machine line of /proc/stat: busy without idle and iowait, steal among the busy', () => {
    const text =
      'cpu  100 5 40 800 20 3 2 30 0 0\ncpu0 50 2 20 400 10 1 1 15 0 0\nintr 1\nctxt 98765\nbtime 1\n';
    expect(parseMachineCpu(text, 100)).toEqual({
      busySeconds: 1.8,
      totalSeconds: 10,
      stealSeconds: 0.3,
      contextSwitches: 98765,
    });
  });

  it("costs a limit's operation as every core's busy time over the operations, with the machine's share busy", () => {
    const reading = (busySeconds: number, totalSeconds: number) => ({
      busySeconds,
      totalSeconds,
      stealSeconds: 0,
      contextSwitches: 0,
    });
    // 3 core-seconds busy of 4 (two cores for 2 s) over 60,000 records: 50 µs a record, 75% busy.
    expect(machineCpuPer(60_000, reading(10, 100), reading(13, 104))).toEqual({
      micros: 50,
      busyPercent: 75,
    });
    expect(machineCpuPer(60_000, undefined, reading(13, 104))).toBeUndefined();
    expect(machineCpuPer(0, reading(10, 100), reading(13, 104))).toBeUndefined();
    const [row, ...rest] = limitCpuRows(
      'kafka consume (eachBatch)',
      'record',
      60_000,
      reading(10, 100),
      reading(13, 104),
    );
    expect(rest).toEqual([]);
    expect(row).toMatchObject({
      group: 'limit',
      name: 'machine CPU per record: kafka consume (eachBatch)',
      value: 50,
      unit: 'µs',
    });
    expect(row?.detail).toContain('the machine 75% busy meanwhile');
    expect(limitCpuRows('kafka consume (eachBatch)', 'record', 60_000, undefined, undefined)).toEqual([]);
  });

  it('reads a process line whose command holds spaces and parentheses', () => {
    const text =
      '4242 (postgres: x (y) idle) S 4000 4242 4242 0 -1 4194560 1200 0 3 0 250 75 0 0 20 0 1 0 99 1000 50';
    expect(parseProcessStat(text)).toEqual({ pid: 4242, ppid: 4000, ticks: 325 });
    expect(parseProcessStat('garbage')).toBeUndefined();
  });

  it('counts the time of the children a process waited for, so that a tree does not lose a child that ended', () => {
    const text = '4000 (postgres) S 1 4000 4000 0 -1 4194560 1200 0 3 0 250 75 40 12 20 0 1 0 99 1000 50';
    expect(parseProcessStat(text)).toEqual({ pid: 4000, ppid: 1, ticks: 377 });
  });

  it('sums a process with all of its descendants, and leaves out a root that is gone', () => {
    const table = [
      { pid: 10, ppid: 1, ticks: 5 },
      { pid: 11, ppid: 10, ticks: 7 },
      { pid: 12, ppid: 11, ticks: 3 },
      { pid: 20, ppid: 1, ticks: 100 },
    ];
    const result = treeTicks(
      table,
      new Map([
        ['postgres', 10],
        ['kafka', 20],
        ['gone', 99],
      ]),
    );
    expect(result).toEqual(
      new Map([
        ['postgres', 15],
        ['kafka', 100],
      ]),
    );
  });

  it("reads a thread's waits and preemptions from its status", () => {
    const text =
      'Name:\tnode\nState:\tS (sleeping)\nvoluntary_ctxt_switches:\t1234\nnonvoluntary_ctxt_switches:\t56\n';
    expect(parseSwitches(text)).toEqual({ voluntary: 1234, involuntary: 56 });
    expect(parseSwitches('Name:\tnode\n')).toBeUndefined();
  });

  it('counts the switches of every thread of a live process, and leaves out a root that is gone', async () => {
    const linux = existsSync(`/proc/${process.pid}/task`);
    const before = processTreeSwitches(new Map([['this', process.pid]])).get('this');
    for (let turn = 0; turn < 5; turn += 1) await new Promise((resolve) => setTimeout(resolve, 5));
    const after = processTreeSwitches(
      new Map([
        ['this', process.pid],
        ['gone', 2 ** 22 + 1],
      ]),
    );
    if (!linux) {
      expect(after.size).toBe(0);
      return;
    }
    expect([...after.keys()]).toEqual(['this']);
    // Five waits for a timer, each a voluntary switch of the main thread at least.
    const between = switchesBetween(before ?? new Map(), after.get('this') ?? new Map());
    expect(between.voluntary).toBeGreaterThanOrEqual(5);
  });

  it("counts a process alone without its children's threads, and a tree with them", async () => {
    const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
    try {
      await new Promise((resolve) => child.once('spawn', resolve));
      const pid = child.pid as number;
      const roots = new Map([['this', process.pid]]);
      const alone = processSwitches(roots).get('this');
      const tree = processTreeSwitches(roots).get('this');
      if (!existsSync(`/proc/${process.pid}/task`)) {
        expect(alone).toBeUndefined();
        return;
      }
      // A process's main thread's id is its process id.
      expect(alone?.has(process.pid)).toBe(true);
      expect(alone?.has(pid)).toBe(false);
      expect(tree?.has(pid)).toBe(true);
    } finally {
      child.kill('SIGKILL');
    }
  });

  it("counts each thread's difference, a new thread whole, and leaves out one that ended", () => {
    const before = new Map([
      [1, { voluntary: 100, involuntary: 10 }],
      [2, { voluntary: 500, involuntary: 50 }],
    ]);
    const after = new Map([
      [1, { voluntary: 130, involuntary: 12 }],
      [3, { voluntary: 7, involuntary: 1 }],
    ]);
    expect(switchesBetween(before, after)).toEqual({ voluntary: 37, involuntary: 3 });
  });
});
