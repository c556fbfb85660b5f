import { chmodSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { type Component, processMarker, type StepContext, type StepTiming } from './components/component.ts';
import { ferretdbComponent } from './components/ferretdb.ts';
import { kafkaComponent } from './components/kafka.ts';
import { postgresComponent } from './components/postgres.ts';
import { registryComponent } from './components/registry.ts';
import {
  type ComponentName,
  componentDataDir,
  componentLogFile,
  componentPidFile,
  resolveStackConfig,
  type StackConfig,
  type StackOptions,
} from './config.ts';
import {
  endpointsFor,
  readEnvFile,
  renderStackEnv,
  type StackEndpoints,
  writeFileAtomically,
} from './env-file.ts';
import { StackError } from './errors.ts';
import { withLock } from './lock.ts';
import {
  type DetachedProcess,
  delay,
  diskUsageKb,
  killProcess,
  portFree,
  processAlive,
  residentKb,
  tailFile,
} from './process.ts';
import { clockTime, formatTable, megabytes, seconds } from './report.ts';

const components: Record<ComponentName, Component> = {
  postgres: postgresComponent,
  ferretdb: ferretdbComponent,
  kafka: kafkaComponent,
  registry: registryComponent,
};

/** Chains that start side by side; inside a chain each one waits for the one before it to answer. */
const startChains: ComponentName[][] = [['postgres', 'ferretdb'], ['kafka'], ['registry']];
const stopChains: ComponentName[][] = startChains.map((chain) => [...chain].reverse());

/**
 * How long a running component may take to answer before it counts as wedged and is restarted. Long
 * enough that a server merely slowed down by a heavily loaded machine (several test runs at once) is not
 * killed under the runs that use it.
 */
const reuseGraceMs = 60_000;
/** A first `up` downloads and builds for several minutes; later callers wait for it. */
const lockWaitMs = 30 * 60_000;

export type ComponentAction = 'reused' | 'started' | 'restarted';

export interface ComponentReport {
  name: ComponentName;
  port: number;
  pid: number;
  action: ComponentAction;
  /** Download, build and start steps, in the order they ran. */
  steps: StepTiming[];
  /** From the start of this component's turn until it answered. */
  seconds: number;
  residentKb: number | undefined;
}

export interface StackUpResult extends StackEndpoints {
  envFile: string;
  components: ComponentReport[];
  seconds: number;
}

export type ComponentState = 'answering' | 'running' | 'dead' | 'stopped';

export interface ComponentStatus {
  name: ComponentName;
  port: number;
  pid: number | undefined;
  /** answering: healthy; running: alive but not answering; dead: its process is gone; stopped: never started. */
  state: ComponentState;
  residentKb: number | undefined;
  /** The disk its data folder takes; undefined when it has none (never started, or reset). */
  dataKb: number | undefined;
  logFile: string;
}

export interface StackStatus {
  healthy: boolean;
  components: ComponentStatus[];
  envFile: string;
}

function defaultLog(line: string): void {
  process.stderr.write(`${line}\n`);
}

function prepareFolders(config: StackConfig): void {
  for (const dir of [config.stackDir, config.dataDir, config.logDir, config.runDir, config.cacheDir]) {
    mkdirSync(dir, { recursive: true });
  }
  // PostgreSQL runs as its own user and must be able to pass through to its data folder.
  chmodSync(config.stackDir, 0o755);
  chmodSync(config.dataDir, 0o755);
  chmodSync(config.logDir, 0o755);
}

async function answersWithin(component: Component, config: StackConfig, graceMs: number): Promise<boolean> {
  const deadline = Date.now() + graceMs;
  for (;;) {
    if (await component.answers(config, Math.min(5_000, graceMs))) return true;
    if (Date.now() >= deadline) return false;
    await delay(500);
  }
}

function failure(component: Component, config: StackConfig, reason: string): StackError {
  const logFile = componentLogFile(config, component.name);
  return new StackError(
    'start_failed',
    `${component.name}: ${reason}\n--- ${logFile} (last lines)\n${tailFile(logFile)}`,
  );
}

async function waitUntilAnswers(component: Component, config: StackConfig, started: DetachedProcess) {
  let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  void started.exited.then((value) => {
    exit = value;
  });
  const deadline = Date.now() + component.startTimeoutMs;
  for (;;) {
    // Our own child: its exit, or its pid gone, says it died. Not the command-line marker: until the
    // child has exec'd the component, its command line is still this process's, and a busy machine
    // makes that window long enough to be seen.
    if (exit !== undefined || !pidExists(started.pid)) {
      const how = exit ? `exit code ${exit.code ?? '-'}, signal ${exit.signal ?? '-'}` : 'process gone';
      throw failure(component, config, `exited while starting (${how})`);
    }
    if (await component.answers(config, 3_000)) return;
    if (Date.now() >= deadline) {
      const hint = component.slowStartHint?.(config);
      await component.stop(config, started.pid, true).catch(() => undefined);
      throw failure(
        component,
        config,
        `did not answer within ${component.startTimeoutMs / 1000} s; stopped it${hint === undefined ? '' : `: ${hint}`}`,
      );
    }
    await delay(250);
  }
}

async function ensureComponent(
  component: Component,
  config: StackConfig,
  log: (line: string) => void,
): Promise<ComponentReport> {
  const { name } = component;
  const began = Date.now();
  const steps: StepTiming[] = [];
  const context: StepContext = {
    config,
    log,
    async time(step, work) {
      const t0 = Date.now();
      log(`${name}: ${step}...`);
      const value = await work();
      steps.push({ step, seconds: (Date.now() - t0) / 1000, cached: false });
      log(`${name}: ${step} done in ${seconds(Date.now() - t0)} s`);
      return value;
    },
    cached(step) {
      steps.push({ step, seconds: 0, cached: true });
    },
  };
  const port = component.ports(config)[0] ?? 0;
  const marker = processMarker(config);
  const previous = component.readPid(config);
  let action: ComponentAction = 'started';

  if (previous !== undefined && processAlive(previous, marker)) {
    if (await answersWithin(component, config, reuseGraceMs)) {
      writeFileSync(componentPidFile(config, name), `${previous}\n`);
      return {
        name,
        port,
        pid: previous,
        action: 'reused',
        steps,
        seconds: (Date.now() - began) / 1000,
        residentKb: residentKb(previous),
      };
    }
    log(`${name}: pid ${previous} is running but has not answered for ${reuseGraceMs / 1000} s; killing it`);
    await component.stop(config, previous, true);
    action = 'restarted';
  } else if (previous !== undefined) {
    log(`${name}: pid ${previous} from an earlier start is gone; starting it again`);
    action = 'restarted';
  }
  rmSync(componentPidFile(config, name), { force: true });

  await component.prepare(context);

  for (const taken of component.ports(config)) {
    if (!(await portFree(taken))) {
      throw new StackError(
        'port_in_use',
        `${name}: port ${taken} is taken by a process that is not this stack's ${name}; stop it or choose other ports (RP_STACK_*_PORT)`,
      );
    }
  }

  log(`${name}: starting at ${clockTime(new Date())}`);
  const started = await context.time('start', async () => {
    const child = await component.start(context);
    writeFileSync(componentPidFile(config, name), `${child.pid}\n`);
    await waitUntilAnswers(component, config, child);
    return child;
  });
  log(`${name}: answering on 127.0.0.1:${port} (pid ${started.pid})`);
  return {
    name,
    port,
    pid: started.pid,
    action,
    steps,
    seconds: (Date.now() - began) / 1000,
    residentKb: residentKb(started.pid),
  };
}

function summary(reports: readonly ComponentReport[], totalMs: number): string {
  const prepared = (report: ComponentReport) =>
    report.steps
      .filter((step) => step.step !== 'start')
      .map((step) => (step.cached ? `${step.step} cached` : `${step.step} ${step.seconds.toFixed(1)} s`))
      .join(', ') || '-';
  const rows = reports.map((report) => [
    report.name,
    String(report.port),
    String(report.pid),
    report.action,
    prepared(report),
    (report.steps.find((step) => step.step === 'start')?.seconds ?? 0).toFixed(1),
    report.seconds.toFixed(1),
    megabytes(report.residentKb),
  ]);
  const table = formatTable(
    ['component', 'port', 'pid', 'action', 'prepare', 'start s', 'total s', 'RSS MB'],
    rows,
  );
  return `${table}\nstack up in ${seconds(totalMs)} s`;
}

async function upLocked(config: StackConfig, log: (line: string) => void): Promise<StackUpResult> {
  const began = Date.now();
  prepareFolders(config);
  const outcomes = await Promise.allSettled(
    startChains.map(async (chain) => {
      const reports: ComponentReport[] = [];
      for (const name of chain) reports.push(await ensureComponent(components[name], config, log));
      return reports;
    }),
  );
  const errors = outcomes.flatMap((outcome) => (outcome.status === 'rejected' ? [outcome.reason] : []));
  if (errors.length > 0) {
    // A file that names endpoints which do not answer would only mislead the next reader.
    rmSync(config.envFile, { force: true });
    const messages = errors.map((error) => (error instanceof Error ? error.message : String(error)));
    const first = errors[0];
    throw new StackError(first instanceof StackError ? first.code : 'start_failed', messages.join('\n\n'), {
      cause: first,
    });
  }
  const byName = new Map(
    outcomes
      .flatMap((outcome) => (outcome.status === 'fulfilled' ? outcome.value : []))
      .map((r) => [r.name, r]),
  );
  const reports = (Object.keys(components) as ComponentName[]).flatMap((name) => byName.get(name) ?? []);
  const endpoints = endpointsFor(config.ports);
  writeFileAtomically(config.envFile, renderStackEnv(endpoints));
  const totalMs = Date.now() - began;
  log(summary(reports, totalMs));
  log(`endpoints in ${config.envFile}`);
  return { ...endpoints, envFile: config.envFile, components: reports, seconds: totalMs / 1000 };
}

/**
 * Starts whatever part of the stack is not already answering and returns its endpoints. Safe to call
 * from several processes at once: they take turns on a lock, and a later caller finds the stack up.
 */
export async function stackUp(options: StackOptions = {}): Promise<StackUpResult> {
  const config = resolveStackConfig(options);
  const log = options.log ?? defaultLog;
  mkdirSync(config.stackDir, { recursive: true });
  return withLock(config.lockFile, () => upLocked(config, log), {
    timeoutMs: lockWaitMs,
    onWait: (owner) =>
      log(`another stack start (pid ${owner?.pid ?? '?'}) holds ${config.lockFile}; waiting`),
  });
}

export interface StopReport {
  name: ComponentName;
  pid: number | undefined;
  outcome: 'not-running' | 'stopped' | 'killed';
}

/** Stops every component, dependents first, and removes the env file. */
export async function stackDown(options: StackOptions = {}): Promise<StopReport[]> {
  return downLocked(options, () => undefined);
}

/**
 * Stops everything, as `stackDown` does, and deletes the stack's data: every topic, database and schema,
 * so that the next `up` starts on empty ones (and Kafka has no partitions to load). Logs are kept.
 */
export async function stackReset(options: StackOptions = {}): Promise<StopReport[]> {
  const config = resolveStackConfig(options);
  return downLocked(options, () => {
    rmSync(config.dataDir, { recursive: true, force: true });
    (options.log ?? defaultLog)(`data: deleted ${config.dataDir}`);
  });
}

/** Stops every component, then runs `after`, both under the stack's lock. */
async function downLocked(options: StackOptions, after: () => void): Promise<StopReport[]> {
  const config = resolveStackConfig(options);
  const log = options.log ?? defaultLog;
  mkdirSync(config.stackDir, { recursive: true });
  return withLock(
    config.lockFile,
    async () => {
      rmSync(config.envFile, { force: true });
      const chains = await Promise.all(
        stopChains.map(async (chain) => {
          const reports: StopReport[] = [];
          for (const name of chain) {
            const component = components[name];
            const pid = component.readPid(config);
            const t0 = Date.now();
            const outcome = pid === undefined ? 'not-running' : await component.stop(config, pid, false);
            rmSync(componentPidFile(config, name), { force: true });
            if (outcome !== 'not-running')
              log(`${name}: ${outcome} (pid ${pid}) in ${seconds(Date.now() - t0)} s`);
            reports.push({ name, pid, outcome });
          }
          return reports;
        }),
      );
      after();
      return chains.flat();
    },
    { timeoutMs: lockWaitMs, onWait: () => log('waiting for a stack start to finish before stopping') },
  );
}

/** Each component's state, found the same way `up` decides whether to reuse it. */
export async function stackStatus(options: StackOptions = {}): Promise<StackStatus> {
  const config = resolveStackConfig(options);
  const marker = processMarker(config);
  const statuses = await Promise.all(
    (Object.keys(components) as ComponentName[]).map(async (name): Promise<ComponentStatus> => {
      const component = components[name];
      const pid = component.readPid(config);
      const alive = pid !== undefined && processAlive(pid, marker);
      let state: ComponentState = pid === undefined ? 'stopped' : 'dead';
      if (alive) state = (await component.answers(config, 5_000)) ? 'answering' : 'running';
      return {
        name,
        port: component.ports(config)[0] ?? 0,
        pid,
        state,
        residentKb: alive ? residentKb(pid) : undefined,
        dataKb: diskUsageKb(componentDataDir(config, name)),
        logFile: componentLogFile(config, name),
      };
    }),
  );
  return {
    healthy: statuses.every((status) => status.state === 'answering'),
    components: statuses,
    envFile: config.envFile,
  };
}

/** The endpoints of a stack that `up` finished starting, or undefined when it is not up. */
export function readStackEnv(options: StackOptions = {}): StackEndpoints | undefined {
  return readEnvFile(resolveStackConfig(options).envFile);
}

/**
 * Kills one component as a crash would; for tests of the restart logic and the fault suite. SIGKILL,
 * except PostgreSQL: a SIGKILL of its postmaster leaves its backends running (and its pid file claimed),
 * so it is stopped in immediate mode instead: every process ends at once, nothing is checkpointed, and
 * the next start runs crash recovery.
 */
export async function killComponent(
  name: ComponentName,
  options: StackOptions = {},
): Promise<number | undefined> {
  const config = resolveStackConfig(options);
  const pid = components[name].readPid(config);
  if (pid === undefined) return undefined;
  if (name === 'postgres') await components.postgres.stop(config, pid, true);
  else await killProcess(pid, processMarker(config));
  // A killed process can look gone (its command line is) while the kernel still holds its listening
  // sockets; a start right away would find the port taken. Wait until they are released.
  const deadline = Date.now() + 15_000;
  for (const port of components[name].ports(config)) {
    while (!(await portFree(port)) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  return pid;
}

export { components as stackComponents };

/** Whether a process with this pid exists (any process: the caller knows it is its own child). */
function pidExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
