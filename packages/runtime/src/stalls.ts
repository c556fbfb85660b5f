import { constants, type EntryType, PerformanceObserver, performance } from 'node:perf_hooks';
import type { Logger } from './logging.ts';
import { eventLoopSampleMs, onEventLoopLook } from './loop-looks.ts';
import type { Metrics } from './metrics.ts';

/**
 * Why the event loop stood still, told apart by what the process did meanwhile:
 * - `collection`: the garbage collector's pauses cover at least half of it;
 * - `work`: the main thread was on a CPU for at least half of it (a long task: handlers, parsing,
 *   encoding, a run of callbacks one after another);
 * - `waiting`: neither. The thread was off the CPU: descheduled on a machine busier than its cores, or
 *   blocked in a call that does not spin (a synchronous file or lock wait).
 */
export const stallCauses = ['collection', 'work', 'waiting'] as const;
export type StallCause = (typeof stallCauses)[number];

export interface StallFigures {
  /** How late the loop came back: the time it stood still (ms). */
  readonly stallMs: number;
  /** The main thread's CPU time over the same span (user and system, ms). */
  readonly threadCpuMs: number;
  /** The collector's pauses that overlap the span (ms). */
  readonly gcMs: number;
}

/** The cause of a stall from what the process did during it (see `stallCauses`). */
export function classifyStall(figures: StallFigures): StallCause {
  if (figures.gcMs * 2 >= figures.stallMs) return 'collection';
  if (figures.threadCpuMs * 2 >= figures.stallMs) return 'work';
  return 'waiting';
}

/** A collection's kind, as V8 reports it: a scavenge of the young generation, a full mark-compact, ... */
export type CollectionKind = 'minor' | 'minor-mark-sweep' | 'major' | 'incremental' | 'weakcb' | 'other';

const collectionKinds = new Map<number, CollectionKind>([
  [constants.NODE_PERFORMANCE_GC_MINOR, 'minor'],
  [constants.NODE_PERFORMANCE_GC_MINOR_MARK_SWEEP, 'minor-mark-sweep'],
  [constants.NODE_PERFORMANCE_GC_MAJOR, 'major'],
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL, 'incremental'],
  [constants.NODE_PERFORMANCE_GC_WEAKCB, 'weakcb'],
]);

export interface StallReport extends StallFigures {
  readonly cause: StallCause;
  /** The kind of the collection that took the most of the stall; undefined when none overlapped it. */
  readonly collection?: CollectionKind;
  /** The process's involuntary context switches over the span (every thread's): the kernel's preemptions. */
  readonly preemptions: number;
}

export interface StallWatchOptions {
  readonly metrics: Metrics;
  readonly logger: Logger;
  /** A stall this long or longer is counted and may be logged (ms). Default 100. */
  readonly thresholdMs?: number;
  /** At most one log line this often (ms); the stalls between are counted in the next line. Default 10 s. */
  readonly logEveryMs?: number;
  /** Told of every stall at or past the threshold, once its cause is known. */
  readonly onStall?: (report: StallReport) => void;
}

export interface StallWatch {
  stop(): void;
}

interface Span {
  readonly start: number;
  readonly end: number;
}

interface Pause extends Span {
  readonly kind: CollectionKind;
}

interface PendingStall extends Span {
  readonly stallMs: number;
  readonly threadCpuMs: number;
  readonly preemptions: number;
}

const threadCpuMs = (): number => {
  const usage = process.threadCpuUsage();
  return (usage.user + usage.system) / 1000;
};

/**
 * Watches the event loop for stalls and says what each was: `rp_event_loop_stall_seconds{cause}` (a
 * histogram from 100 ms) and a warning line at most every `logEveryMs`. It is told of the process's look
 * at the loop every `eventLoopSampleMs` (`onEventLoopLook`, the timer the lag figures share); a look
 * that comes `thresholdMs` or more late is a stall, and the main thread's CPU time,
 * the collector's pauses and the kernel's preemptions over it say why. Whether a service's tail is its
 * own work, its collector or a machine without a core for it is what an operator needs to know to act
 * (split the work, size the heap, give it a core); the loop's delay alone does not say.
 *
 * A collection's entry reaches the observer after the pause it reports, so a stall is classified at
 * the next look, once the pauses that overlap it are in.
 */
export function watchEventLoopStalls(options: StallWatchOptions): StallWatch {
  const thresholdMs = options.thresholdMs ?? 100;
  const logEveryMs = options.logEveryMs ?? 10_000;
  const histogram = options.metrics.histogram(
    'rp_event_loop_stall_seconds',
    `Times the event loop stood still for ${thresholdMs} ms or more, by cause: collection (the garbage collector), work (the main thread busy) or waiting (the thread off the CPU)`,
    ['cause'],
    { buckets: [0.1, 0.25, 0.5, 1, 2.5, 5, 10] },
  );
  // Each cause's series exists from the start, at zero, so that a reader's difference of two readings
  // counts the first stall of a cause too.
  for (const cause of stallCauses) histogram.zero({ cause });

  const pauses: Pause[] = [];
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const kind = (entry as { detail?: { kind?: number } }).detail?.kind;
      pauses.push({
        start: entry.startTime,
        end: entry.startTime + entry.duration,
        kind: (kind === undefined ? undefined : collectionKinds.get(kind)) ?? 'other',
      });
    }
  });
  observer.observe({ entryTypes: ['gc' as EntryType] });

  let pending: PendingStall[] = [];
  let lastLook = performance.now();
  let lastCpu = threadCpuMs();
  let lastPreemptions = process.resourceUsage().involuntaryContextSwitches;
  let lastLogAt = Number.NEGATIVE_INFINITY;
  let unlogged = 0;

  /** The collectors' pauses over a span, and the kind of the one that took the most of it. */
  const overlap = (span: Span): { gcMs: number; collection?: CollectionKind } => {
    let gcMs = 0;
    let longest: Pause | undefined;
    let longestMs = 0;
    for (const pause of pauses) {
      const ms = Math.min(pause.end, span.end) - Math.max(pause.start, span.start);
      if (ms <= 0) continue;
      gcMs += ms;
      if (ms > longestMs) {
        longest = pause;
        longestMs = ms;
      }
    }
    return longest === undefined ? { gcMs } : { gcMs, collection: longest.kind };
  };

  const report = (stall: PendingStall): void => {
    const { gcMs, collection } = overlap(stall);
    const figures = { stallMs: stall.stallMs, threadCpuMs: stall.threadCpuMs, gcMs };
    const full: StallReport = {
      ...figures,
      cause: classifyStall(figures),
      preemptions: stall.preemptions,
      ...(collection === undefined ? {} : { collection }),
    };
    histogram.observe({ cause: full.cause }, full.stallMs / 1000);
    options.onStall?.(full);
    const now = performance.now();
    if (now - lastLogAt < logEveryMs) {
      unlogged += 1;
      return;
    }
    lastLogAt = now;
    options.logger.warn(
      {
        stallMs: Math.round(full.stallMs),
        threadCpuMs: Math.round(full.threadCpuMs),
        gcMs: Math.round(full.gcMs),
        ...(full.collection === undefined ? {} : { collection: full.collection }),
        preemptions: full.preemptions,
        cause: full.cause,
        stallsNotLogged: unlogged,
      },
      'the event loop stood still',
    );
    unlogged = 0;
  };

  const look = (now: number): void => {
    const cpu = threadCpuMs();
    const preemptions = process.resourceUsage().involuntaryContextSwitches;
    // The stalls found at the last look: their collections' entries are in by now.
    const ready = pending;
    pending = [];
    for (const stall of ready) report(stall);
    const lateMs = now - lastLook - eventLoopSampleMs;
    if (lateMs >= thresholdMs) {
      pending.push({
        start: lastLook,
        end: now,
        stallMs: lateMs,
        threadCpuMs: cpu - lastCpu,
        preemptions: preemptions - lastPreemptions,
      });
    }
    // Pauses that ended before the oldest span still to be classified are of no further use.
    const keepFrom = pending[0]?.start ?? now;
    while (pauses.length > 0 && (pauses[0] as Pause).end < keepFrom) pauses.shift();
    lastLook = now;
    lastCpu = cpu;
    lastPreemptions = preemptions;
  };

  const stopLooking = onEventLoopLook(look);
  return {
    stop() {
      stopLooking();
      observer.disconnect();
    },
  };
}
