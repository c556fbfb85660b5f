import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { exampleTexts, microseconds } from './codec.ts';
import { referencePass, referenceWarmUp } from './reference-pass.ts';

/**
 * The machine's speed at the moment, as one thread sees it: the microseconds of one pass of
 * `referencePass`, the best of `rounds` rounds of `passes` passes. A machine shared with others can be
 * several times slower in one hour than in another, the same code and all; a pipeline figure taken beside
 * this one (the CPU a debit costs) and divided by it compares across runs where the figure alone does not.
 * None of the engine's code or its libraries is in it, so making them faster does not move the yardstick (a
 * first reference, the journey's messages encoded and decoded by the engine's codec, did move when the
 * codec got faster).
 */
export function cpuReference(root: string): (passes?: number, rounds?: number) => number {
  const reference = oneThreadReference(exampleTexts(root));
  return (passes, rounds) => reference(passes, rounds).best;
}

/** The one-thread reading by the clock (the best round) and in the thread's own CPU time (every round). */
interface OneThreadReading {
  readonly best: number;
  readonly cpu: number;
}

function oneThreadReference(
  texts: readonly string[],
): (passes?: number, rounds?: number) => OneThreadReading {
  const pass = referencePass(texts);
  for (let warm = 0; warm < referenceWarmUp; warm += 1) pass();
  return (passes = 500, rounds = 5) => {
    const started = process.threadCpuUsage();
    const best = microseconds(pass, passes, rounds);
    const used = process.threadCpuUsage(started);
    // `microseconds` runs a first round it does not time, and then `rounds` rounds: all in the CPU time.
    const cpu = (used.user + used.system) / (passes * (rounds + 1));
    return { best, cpu: Math.round(cpu * 10) / 10 };
  };
}

/** The CPU reference read three ways at one moment (µs a pass). */
export interface CpuReference {
  /** One thread, the best of its rounds: the speed of a core when nothing else runs on it. */
  readonly oneThread: number;
  /**
   * The same thread's rounds, all of them, in its own CPU time: what a pass costs the core while it runs,
   * without the time it waited for a core or the hypervisor gave that core to another guest (the kernel
   * leaves stolen time out of a thread's). The unit for the machine's own CPU a debit, which leaves both
   * out too. The kernel counts a thread's CPU time in ticks (4 ms here), so the reading is of at least a
   * few hundred milliseconds of passes, the default's 3,000.
   */
  readonly oneThreadCpu: number;
  /**
   * A thread on every core at once, the median of their rounds: the speed of the machine as a whole, as
   * the pipeline's many processes use it. Slower than `oneThread` by what the cores take from each other
   * (a shared cache, memory, a hypervisor that gives the guest less than all its cores at once).
   */
  readonly allCores: number;
}

/** Reads the CPU reference every way; `close` ends its threads. */
export interface CpuReferences {
  readonly threads: number;
  /**
   * The three readings: `passes` passes a round (default 500), the one-thread reading the best of
   * `rounds` (default 5) and its CPU time over all of them, the all-cores one the median of
   * `allCoresRounds` (default 9).
   */
  read(options?: { passes?: number; rounds?: number; allCoresRounds?: number }): Promise<CpuReference>;
  close(): Promise<void>;
}

/** What a reference thread is told: time `passes` passes once all `threads` have arrived at the gate. */
export interface RoundRequest {
  readonly passes: number;
  readonly threads: number;
}

/**
 * Starts a reference thread on each of `threads` cores (default: every core), each warmed up as the
 * one-thread reference is, and gives the readings. A round of the all-cores reading starts every thread
 * at once (they meet at a gate in shared memory), each times `passes` passes, and the round's figure is
 * their mean; the reading is the median round, so one interrupted round does not make it, yet a machine
 * that is slower with all its cores at work reads slower.
 */
export async function startCpuReferences(
  root: string,
  threads = availableParallelism(),
): Promise<CpuReferences> {
  if (!Number.isInteger(threads) || threads < 1) {
    throw new RangeError(`the CPU reference needs at least one thread a core, not ${threads}`);
  }
  const texts = exampleTexts(root);
  const oneThread = oneThreadReference(texts);
  const gate = new Int32Array(new SharedArrayBuffer(4));
  const workers = Array.from(
    { length: threads },
    () =>
      new Worker(new URL('./reference-worker.ts', import.meta.url), {
        workerData: { texts, gate: gate.buffer },
      }),
  );
  // A thread that has ended takes no more messages and ends no more: a reading asks it nothing.
  const ended = new Set<Worker>();
  for (const worker of workers) worker.once('exit', () => ended.add(worker));
  const reply = (worker: Worker) =>
    new Promise<number>((resolve, reject) => {
      if (ended.has(worker)) {
        reject(new Error('a CPU reference thread ended before the reading'));
        return;
      }
      const settle = () => {
        worker.off('message', onMessage);
        worker.off('error', onError);
        worker.off('exit', onExit);
      };
      const onMessage = (value: number) => {
        settle();
        resolve(value);
      };
      const onError = (error: Error) => {
        settle();
        reject(error);
      };
      // A thread that ends without an error (terminated, or its code exited) would leave the reading waiting.
      const onExit = (code: number) => {
        settle();
        reject(new Error(`a CPU reference thread ended (exit code ${code}) before it answered`));
      };
      worker.once('message', onMessage);
      worker.once('error', onError);
      worker.once('exit', onExit);
    });
  try {
    // Each thread says it is warm: its first message.
    await Promise.all(workers.map(reply));
  } catch (error) {
    await Promise.all(workers.map((worker) => worker.terminate()));
    throw error;
  }
  for (const worker of workers) worker.unref();
  return {
    threads,
    async read({ passes = 500, rounds = 5, allCoresRounds = 9 } = {}) {
      const one = oneThread(passes, rounds);
      const figures: number[] = [];
      for (const worker of workers) worker.ref();
      try {
        for (let round = 0; round < allCoresRounds; round += 1) {
          Atomics.store(gate, 0, 0);
          const replies = workers.map(reply);
          const request: RoundRequest = { passes, threads };
          for (const worker of workers) worker.postMessage(request);
          const each = await Promise.all(replies);
          figures.push(each.reduce((sum, value) => sum + value, 0) / each.length);
        }
      } finally {
        for (const worker of workers) worker.unref();
      }
      figures.sort((a, b) => a - b);
      const median = figures[Math.floor(figures.length / 2)] ?? Number.NaN;
      return { oneThread: one.best, oneThreadCpu: one.cpu, allCores: Math.round(median * 10) / 10 };
    },
    async close() {
      await Promise.all(workers.map((worker) => worker.terminate()));
    },
  };
}
