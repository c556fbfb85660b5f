/**
 * Summaries of V8 CPU profiles (`node --cpu-prof`): where a service's CPU went, by function (self time)
 * and by package. Idle time is left out; garbage collection and the engine's own work stay in.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** A function as a V8 profile (CPU or heap) names it. */
export interface CallFrame {
  readonly functionName: string;
  readonly url: string;
  readonly lineNumber: number;
}

interface ProfileNode {
  readonly id: number;
  readonly callFrame: CallFrame;
}

export interface CpuProfile {
  readonly nodes: readonly ProfileNode[];
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

export interface Share {
  readonly name: string;
  /** Milliseconds of self time. */
  readonly ms: number;
  /** Share of the profile's busy (non-idle) time, in percent. */
  readonly percent: number;
}

export interface ProfileSummary {
  /** Milliseconds sampled, idle left out. */
  readonly busyMs: number;
  readonly functions: readonly Share[];
  readonly packages: readonly Share[];
}

/** Where a script comes from: its npm package, a workspace package, Node's own code, or the engine. */
export function packageOf(url: string): string {
  if (url === '') return '(engine)';
  if (url.startsWith('node:')) return 'node';
  const modules = url.lastIndexOf('/node_modules/');
  if (modules >= 0) {
    const rest = url.slice(modules + '/node_modules/'.length).split('/');
    return rest[0]?.startsWith('@') ? `${rest[0]}/${rest[1]}` : (rest[0] ?? url);
  }
  const workspace = /\/(services|packages)\/([^/]+)\//.exec(url);
  if (workspace) return `${workspace[1]}/${workspace[2]}`;
  return url;
}

function shortUrl(url: string): string {
  const modules = url.lastIndexOf('/node_modules/');
  if (modules >= 0) return url.slice(modules + '/node_modules/'.length);
  const workspace = /\/((?:services|packages)\/.*)$/.exec(url);
  return workspace?.[1] ?? url.replace(/^file:\/\//, '');
}

/** A function by its name and where it is: `encode avsc/lib/types.js:10`. */
export function frameName(frame: CallFrame): string {
  return `${frame.functionName || '(anonymous)'}${frame.url ? ` ${shortUrl(frame.url)}:${frame.lineNumber + 1}` : ''}`;
}

const idle = new Set(['(idle)']);

function top(totals: Map<string, number>, busyMs: number, count: number): Share[] {
  return [...totals]
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(([name, ms]) => ({ name, ms: Math.round(ms), percent: Math.round((1000 * ms) / busyMs) / 10 }));
}

export function summarizeProfile(profile: CpuProfile, count = 10): ProfileSummary {
  const byId = new Map(profile.nodes.map((node) => [node.id, node.callFrame]));
  const functions = new Map<string, number>();
  const packages = new Map<string, number>();
  let busyMicros = 0;
  profile.samples.forEach((id, index) => {
    const frame = byId.get(id);
    const micros = profile.timeDeltas[index] ?? 0;
    if (!frame || idle.has(frame.functionName) || micros <= 0) return;
    busyMicros += micros;
    const name = frameName(frame);
    functions.set(name, (functions.get(name) ?? 0) + micros / 1000);
    const owner = frame.url ? packageOf(frame.url) : frame.functionName;
    packages.set(owner, (packages.get(owner) ?? 0) + micros / 1000);
  });
  const busyMs = busyMicros / 1000;
  return {
    busyMs: Math.round(busyMs),
    functions: top(functions, busyMs, count),
    packages: top(packages, busyMs, count),
  };
}

/** Every profile in `dir`, named `<service>.cpuprofile`, summarised. */
export function summarizeProfiles(dir: string, count = 10): Map<string, ProfileSummary> {
  const result = new Map<string, ProfileSummary>();
  for (const file of readdirSync(dir)) {
    if (!file.endsWith('.cpuprofile')) continue;
    const profile = JSON.parse(readFileSync(join(dir, file), 'utf8')) as CpuProfile;
    result.set(file.replace(/\.cpuprofile$/, ''), summarizeProfile(profile, count));
  }
  return result;
}
