import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterEach, describe, expect, it } from 'vitest';
import { memoryLogger } from './memory-logger.ts';
import { createMetrics } from './metrics.ts';
import { classifyStall, type StallReport, type StallWatch, watchEventLoopStalls } from './stalls.ts';

/** Keeps the main thread on the CPU until it has used `ms` of CPU time, allocating nothing. */
function spin(ms: number): void {
  const start = process.threadCpuUsage();
  let used = 0;
  while (used < ms * 1000) {
    const now = process.threadCpuUsage(start);
    used = now.user + now.system;
  }
}

/** Blocks the main thread without using a CPU, as a lock or a synchronous wait does. */
function block(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** Runs full collections one after another until `ms` have passed: a stall that is the collector's. */
function collect(ms: number): void {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  const until = performance.now() + ms;
  while (performance.now() < until) gc();
}

function watch(options: { logEveryMs?: number; thresholdMs?: number } = {}) {
  const metrics = createMetrics({ service: 'stalls', defaultMetrics: false });
  const { logger, lines } = memoryLogger();
  const reports: StallReport[] = [];
  const waiters: (() => void)[] = [];
  const watcher = watchEventLoopStalls({
    metrics,
    logger,
    ...options,
    onStall: (report) => {
      reports.push(report);
      for (const wake of waiters.splice(0)) wake();
    },
  });
  watchers.push(watcher);
  /** Resolves once `count` stalls have been reported. */
  const reported = async (count: number): Promise<StallReport[]> => {
    while (reports.length < count) await new Promise<void>((resolve) => waiters.push(resolve));
    return reports;
  };
  return { metrics, lines, reports, reported };
}

/** The stalls of one cause in the exposition text. */
function stallCount(body: string, cause: string): number | undefined {
  const line = body
    .split('\n')
    .find(
      (entry) => entry.startsWith('rp_event_loop_stall_seconds_count{') && entry.includes(`cause="${cause}"`),
    );
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

const watchers: StallWatch[] = [];
afterEach(() => {
  for (const watcher of watchers.splice(0)) watcher.stop();
});

describe('classifyStall', () => {
  it('puts the collector first, then the thread on the CPU, else the thread off it', () => {
    expect(classifyStall({ stallMs: 200, threadCpuMs: 190, gcMs: 120 })).toBe('collection');
    expect(classifyStall({ stallMs: 200, threadCpuMs: 190, gcMs: 20 })).toBe('work');
    expect(classifyStall({ stallMs: 200, threadCpuMs: 100, gcMs: 0 })).toBe('work');
    expect(classifyStall({ stallMs: 200, threadCpuMs: 99, gcMs: 99 })).toBe('waiting');
    expect(classifyStall({ stallMs: 200, threadCpuMs: 3, gcMs: 0 })).toBe('waiting');
  });
});

describe('watchEventLoopStalls', () => {
  it('tells a thread blocked off the CPU from one busy on it, and counts each by its cause', async () => {
    const { metrics, lines, reported } = watch({ logEveryMs: 0 });
    block(250);
    const [blocked] = await reported(1);
    expect(blocked?.cause).toBe('waiting');
    expect(blocked?.stallMs).toBeGreaterThanOrEqual(200);
    expect(blocked?.threadCpuMs).toBeLessThan(50);

    spin(300);
    const [, busy] = await reported(2);
    // The thread used 300 ms of CPU in the stall; a machine short of cores may have made it longer.
    expect(busy?.threadCpuMs).toBeGreaterThanOrEqual(300);
    expect(busy?.stallMs).toBeGreaterThanOrEqual(250);
    expect(busy?.cause).toBe(classifyStall(busy as StallReport));

    const body = (await metrics.render()).body;
    expect(stallCount(body, 'waiting')).toBe(busy?.cause === 'waiting' ? 2 : 1);
    expect(stallCount(body, 'collection')).toBe(busy?.cause === 'collection' ? 1 : 0);
    expect(lines.map((line) => [line.msg, line.cause])).toEqual([
      ['the event loop stood still', 'waiting'],
      ['the event loop stood still', busy?.cause],
    ]);
    expect(lines[0]?.level).toBe('warn');
  });

  it('tells a stall that is the collector, and the kind of its collection', async () => {
    const { reported } = watch({ logEveryMs: 0 });
    collect(250);
    const [collected] = await reported(1);
    expect(collected?.cause).toBe('collection');
    expect(collected?.collection).toBe('major');
    expect(collected?.gcMs).toBeGreaterThanOrEqual(125);
  });

  it('leaves short delays alone and logs at most one line a period, counting the others', async () => {
    const { metrics, lines, reported } = watch({ logEveryMs: 1_000 });
    block(40);
    // The watch's look is overdue, so it runs before a timer set now: the next stall is one of its own.
    await new Promise((resolve) => setTimeout(resolve, 0));
    block(200);
    await reported(1);
    block(200);
    await reported(2);
    expect(lines).toHaveLength(1);
    // A period after the first line: the next line says how many went unlogged since.
    block(1_000);
    const reports = await reported(3);
    expect(reports.map((report) => report.stallMs >= 150)).toEqual([true, true, true]);
    expect(lines.map((line) => line.stallsNotLogged)).toEqual([0, 1]);
    const body = (await metrics.render()).body;
    expect(stallCount(body, 'waiting')).toBe(3);
    expect(stallCount(body, 'work')).toBe(0);
  });
});
