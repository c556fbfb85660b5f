import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ComponentName, StackConfig } from '../config.ts';
import { withLock } from '../lock.ts';
import type { DetachedProcess } from '../process.ts';

export interface StepTiming {
  step: string;
  seconds: number;
  /** True when the step's result came from the cache and nothing ran. */
  cached: boolean;
}

export interface StepContext {
  config: StackConfig;
  log: (line: string) => void;
  /** Runs one named step (download, build, start...), prints and records how long it took. */
  time<T>(step: string, work: () => Promise<T>): Promise<T>;
  /** Records a step that the cache made unnecessary. */
  cached(step: string): void;
}

export interface Component {
  name: ComponentName;
  /** Started after this one answers; stopped before it. */
  dependsOn?: ComponentName;
  /** The port users connect to (the first) and any other port it binds. */
  ports(config: StackConfig): number[];
  /** How long a fresh start may take before it counts as failed. */
  startTimeoutMs: number;
  /** What its log says of a start that took longer, and what to do about it (when there is something to say). */
  slowStartHint?(config: StackConfig): string | undefined;
  /** Fetches and builds what the component runs; a no-op once the cache holds it. */
  prepare(context: StepContext): Promise<void>;
  /** Starts the server, detached from this process. */
  start(context: StepContext): Promise<DetachedProcess>;
  /** One health check with the component's own client. */
  answers(config: StackConfig, timeoutMs: number): Promise<boolean>;
  /** The server's pid as its own records say, whether or not it still runs. */
  readPid(config: StackConfig): number | undefined;
  /** Stops it cleanly; `force` when it is wedged and a clean stop would wait in vain. */
  stop(config: StackConfig, pid: number, force: boolean): Promise<'not-running' | 'stopped' | 'killed'>;
}

/**
 * The text every stack process carries on its command line (its data folder is below it). It tells
 * this stack's processes from another stack's and from whatever a recycled pid now belongs to.
 */
export function processMarker(config: StackConfig): string {
  return `${config.stackDir}/`;
}

const completeMarker = '.complete';

/**
 * A download or build into `dir` that runs once per cache. The marker file is written only after the
 * work fully succeeded, so an interrupted run leaves no marker and the next one wipes and redoes the
 * folder instead of trusting half a download. A lock keeps two stacks (two clones) from building the
 * same folder at once.
 */
export async function cachedStep(
  context: StepContext,
  label: string,
  dir: string,
  work: (dir: string) => Promise<void>,
): Promise<void> {
  const marker = join(dir, completeMarker);
  if (existsSync(marker)) {
    context.cached(label);
    return;
  }
  mkdirSync(join(dir, '..'), { recursive: true });
  await withLock(
    `${dir}.lock`,
    async () => {
      if (existsSync(marker)) {
        context.cached(label);
        return;
      }
      rmSync(dir, { recursive: true, force: true });
      mkdirSync(dir, { recursive: true });
      await work(dir);
      writeFileSync(marker, `${new Date().toISOString()}\n`);
    },
    {
      timeoutMs: 30 * 60_000,
      onWait: (owner) => context.log(`waiting for pid ${owner?.pid ?? '?'} to finish preparing ${dir}`),
    },
  );
}

/** Maven's local repository is not safe for two concurrent writers; every mvn run takes this lock. */
export function withMavenLock<T>(config: StackConfig, work: () => Promise<T>): Promise<T> {
  return withLock(join(config.cacheDir, 'maven.lock'), work, { timeoutMs: 30 * 60_000 });
}

export function mavenRepository(config: StackConfig): string {
  return join(config.cacheDir, 'maven');
}
