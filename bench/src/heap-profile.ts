/**
 * Sampling heap profiles of a running service, over its inspector (V8's sampling heap profiler): what it
 * allocates a second, by package and by function, and what of that a scavenge did not collect: the
 * objects that outlive the young generation's collections and go on to fill the old one, each mark-compact
 * collecting them. Light enough to take under load (one sample every 32 KiB allocated, on average).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { inspectorSession } from './inspector.ts';
import { type CallFrame, frameName, packageOf } from './profile.ts';
import type { Row } from './report.ts';

export interface HeapProfileNode {
  readonly callFrame: CallFrame;
  /** Bytes allocated at this frame itself, as V8 estimates them from its samples. */
  readonly selfSize: number;
  readonly children: readonly HeapProfileNode[];
}

/** `HeapProfiler.stopSampling`'s profile (Chrome's DevTools open it saved as `.heapprofile`). */
export interface HeapProfile {
  readonly head: HeapProfileNode;
}

/**
 * What a profile keeps: `allocated`, every sampled allocation of the window, whether it died young or
 * not; `outlived-scavenges`, only those no scavenge collected (the ones a mark-compact collected, and those
 * still alive at the end), so what the young generation passed on to the old one, and what a mark-compact
 * found dead in the young generation.
 */
export type HeapProfileKind = 'allocated' | 'outlived-scavenges';

export interface HeapShare {
  readonly name: string;
  readonly mb: number;
  /** Share of the profile's bytes, in percent. */
  readonly percent: number;
}

export interface HeapSummary {
  readonly kind: HeapProfileKind;
  readonly seconds: number;
  /** MB the profile accounts for (V8's estimate from its samples). */
  readonly mb: number;
  readonly mbPerSecond: number;
  readonly packages: readonly HeapShare[];
  readonly functions: readonly HeapShare[];
}

/** Samples `seconds` of the heap of the process whose inspector listens on `port`. */
export async function sampleHeap(
  port: number,
  kind: HeapProfileKind,
  seconds: number,
  intervalBytes = 32 * 1024,
): Promise<HeapProfile> {
  const session = await inspectorSession(port);
  try {
    await session.call('HeapProfiler.enable');
    await session.call('HeapProfiler.startSampling', {
      samplingInterval: intervalBytes,
      includeObjectsCollectedByMajorGC: true,
      includeObjectsCollectedByMinorGC: kind === 'allocated',
    });
    await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
    const { profile } = (await session.call('HeapProfiler.stopSampling')) as { profile: HeapProfile };
    return profile;
  } finally {
    session.close();
  }
}

/** A frame of the engine's built-ins (`Map.set`, `RegExp.exec`) or of Node's own modules. */
const isRuntime = (frame: CallFrame) => frame.url === '' || frame.url.startsWith('node:');

function top(totals: Map<string, number>, bytes: number, count: number): HeapShare[] {
  return [...totals]
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(([name, size]) => ({
      name,
      mb: Math.round(size / 1e4) / 100,
      percent: bytes > 0 ? Math.round((1000 * size) / bytes) / 10 : 0,
    }));
}

/**
 * Where a profile's bytes were allocated. A built-in's or Node's own allocation counts for the nearest
 * caller of an application's or a library's script (what asked for it: a `Map.set` in kafkajs is
 * kafkajs's), and is named with it; only what no such script called counts for `node` or the engine.
 */
export function summarizeHeapProfile(
  profile: HeapProfile,
  kind: HeapProfileKind,
  seconds: number,
  count = 10,
): HeapSummary {
  const functions = new Map<string, number>();
  const packages = new Map<string, number>();
  let bytes = 0;
  const add = (totals: Map<string, number>, name: string, size: number) =>
    totals.set(name, (totals.get(name) ?? 0) + size);
  const stack: { node: HeapProfileNode; caller: CallFrame | undefined }[] = [
    { node: profile.head, caller: undefined },
  ];
  for (let entry = stack.pop(); entry !== undefined; entry = stack.pop()) {
    const { node, caller } = entry;
    const frame = node.callFrame;
    const own = isRuntime(frame) ? caller : frame;
    if (node.selfSize > 0) {
      bytes += node.selfSize;
      add(
        functions,
        own === frame || own === undefined
          ? frameName(frame)
          : `${frame.functionName || '(anonymous)'} from ${frameName(own)}`,
        node.selfSize,
      );
      add(packages, own === undefined ? packageOf(frame.url) : packageOf(own.url), node.selfSize);
    }
    for (const child of node.children) stack.push({ node: child, caller: own });
  }
  const mb = bytes / 1e6;
  return {
    kind,
    seconds,
    mb: Math.round(mb * 10) / 10,
    mbPerSecond: seconds > 0 ? Math.round((mb / seconds) * 100) / 100 : 0,
    packages: top(packages, bytes, count),
    functions: top(functions, bytes, count),
  };
}

/**
 * The soak's minute whose heap is sampled: the middle one (past the start-up of the first minutes), so
 * that the profile shows the steady load, and not one right after a forced collection.
 */
export function heapSampleMinute(minutes: number): number {
  return Math.max(1, Math.min(minutes, Math.max(3, Math.ceil(minutes / 2))));
}

const shares = (list: readonly HeapShare[]) =>
  list.map((share) => `${share.name} ${share.percent}%`).join(', ');

const kindWords: Record<HeapProfileKind, string> = {
  allocated: 'allocated',
  'outlived-scavenges':
    'no scavenge collected (passed to the old generation, or found dead by a mark-compact)',
};

/**
 * A row for a heap profile of one service taken in the soak: MB a second, with the kB a debit at the soak's
 * rate, by package and by function.
 */
export function heapProfileRow(service: string, minute: number, summary: HeapSummary, rate: number): Row {
  const perDebit = rate > 0 ? Math.round((summary.mbPerSecond * 1000) / rate) : 0;
  return {
    group: 'profile',
    name: `soak: heap ${summary.kind === 'allocated' ? 'allocated' : 'that outlived the scavenges'} a second in minute ${minute}: ${service}`,
    value: summary.mbPerSecond,
    unit: 'MB/s',
    detail: `what the ${service} ${kindWords[summary.kind]}: ${summary.mb} MB in ${summary.seconds} s, about ${perDebit} kB a debit at ${rate}/s (V8's sampling heap profiler, an estimate from one sample every 32 KiB); by package: ${shares(summary.packages)}; by function: ${shares(summary.functions)}`,
  };
}

/** The row in place of a soak's heap profiles that could not be taken, saying why. */
export function heapProfilesMissing(minute: number, reason: string): Row {
  return {
    group: 'profile',
    name: `soak: heap profiles in minute ${minute}`,
    value: 0,
    unit: 'profiles',
    detail: `none taken: ${reason}`,
  };
}

/** Seconds each profile of `heapProfileRows` takes, one after the other: 50 s of a minute in all. */
export const heapProfileSeconds: Readonly<Record<HeapProfileKind, number>> = {
  allocated: 20,
  'outlived-scavenges': 30,
};

/**
 * Samples the heaps of `services` (inspector ports in `ports`) side by side: first what each allocates,
 * then what outlives its scavenges (`heapProfileSeconds`); a row for each, and each profile written to
 * `dir` as `<service>-<kind>.heapprofile` when it is given.
 */
export async function heapProfileRows(
  ports: Readonly<Record<string, number>>,
  services: readonly string[],
  minute: number,
  rate: number,
  dir?: string,
): Promise<Row[]> {
  const kinds = Object.keys(heapProfileSeconds) as HeapProfileKind[];
  const each = await Promise.all(
    services.map(async (service) => {
      const port = ports[service];
      if (port === undefined) throw new Error(`no inspector of the ${service} to sample`);
      const rows: Row[] = [];
      for (const kind of kinds) {
        const seconds = heapProfileSeconds[kind];
        const profile = await sampleHeap(port, kind, seconds);
        if (dir !== undefined) {
          writeFileSync(join(dir, `${service}-${kind}.heapprofile`), JSON.stringify(profile));
        }
        rows.push(heapProfileRow(service, minute, summarizeHeapProfile(profile, kind, seconds), rate));
      }
      return rows;
    }),
  );
  return each.flat();
}
