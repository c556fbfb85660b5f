import { type ChildProcess, spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { createWriteStream, existsSync, mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { type EngineService, serviceStartOrder } from '@rp/contracts';
import { type Dropped, dropOwned } from '@rp/local-stack';
import type { Participant } from '@rp/pipeline';
import { clientCredentialsTokens, type OperatorRole, serviceScope } from '@rp/runtime';

/**
 * Every service of the pipeline, in start order: the bank simulator first (it plays the banks the others
 * call), then the engine's in their start order, the ingress last.
 */
export const pipelineServices = ['bank-simulator', ...serviceStartOrder] as const;
export type PipelineService = (typeof pipelineServices)[number];
/** The services the engine can run together in one process: all but the bank simulator. */
export type { EngineService };

/** Where the infrastructure lives (the local stack's, a test run's or an operator's own). */
export interface PipelineEndpoints {
  readonly kafkaBrokers: readonly string[];
  readonly schemaRegistryUrl: string;
  readonly mongodbUri: string;
}

/** A participating bank played by the bank simulator. */
export interface SimulatedBank {
  readonly memberId: string;
  readonly name?: string;
  /** Event classes it subscribes to; `[]` gives it no events URL at all. Default: both classes. */
  readonly eventClasses?: readonly string[];
  readonly debitLimits?: Readonly<Record<string, string>>;
}

export interface LaunchOptions {
  /** The repository root: each service runs from `services/<name>/dist/main.js`. */
  readonly root: string;
  readonly endpoints: PipelineEndpoints;
  /** Topic namespace and database name of this pipeline; default: a fresh `pl-<time><random>`. */
  readonly run?: string;
  /** One log file per service; default `<root>/.local/pipeline/<run>`. */
  readonly logDir?: string;
  /** Fixed ports; any service left out gets a free port. */
  readonly ports?: Partial<Record<PipelineService, number>>;
  /** The banks the simulator plays; default: Baobab Bank (synthetic), 250655. */
  readonly banks?: readonly SimulatedBank[];
  /** Extra environment for every service (for example `CLOCK_FACTOR`, `RESPONSE_DELAY`). */
  readonly env?: Readonly<Record<string, string>>;
  /** Extra environment for one service, applied after `env`. */
  readonly serviceEnv?: Partial<Record<PipelineService, Readonly<Record<string, string>>>>;
  /**
   * The command a service starts under, its `node main.js` appended: for example a shell that joins a
   * cgroup and `exec`s what follows. It must exec the service, so that the process the launcher signals
   * and waits for is the service's own. Undefined (or for a service it gives none): started directly.
   */
  readonly wrap?: (service: PipelineService) => readonly string[] | undefined;
  /** Which services to start now (default: all); the others can be started later with `start`. */
  readonly services?: readonly PipelineService[];
  /**
   * Services run together in one process, the engine's (`services/engine/dist/main.js`), each on its own
   * port as alone, their lines in `engine.log`. Starting one of them starts them all, and stopping,
   * killing or signalling one of them does it to them all; `serviceEnv` reaches each as its own scoped
   * variables (`<SERVICE>__<NAME>`), and `wrap` does not apply. Default: none, each service in a process
   * of its own.
   */
  readonly together?: readonly EngineService[];
  readonly readyTimeoutMs?: number;
  /** Told when each service answers ready, with the time it took. */
  readonly onReady?: (service: PipelineService, port: number, ms: number) => void;
}

/** Another process of a pipeline service, next to the pipeline's own (see `Pipeline.startInstance`). */
export interface ServiceInstance {
  readonly service: PipelineService;
  readonly name: string;
  readonly port: number;
  /** `http://127.0.0.1:<port>`. */
  readonly url: string;
  readonly logFile: string;
  readonly pid: number | undefined;
  isRunning(): boolean;
  /**
   * Sends a signal without waiting. `SIGSTOP` freezes the process: the kernel still accepts connections
   * but nothing is answered (no HTTP response at all); `SIGCONT` lets it go on where it stopped.
   */
  signal(signal: NodeJS.Signals): void;
  /** Ends the process (default SIGTERM; a frozen one is continued first) and waits until it exited. */
  stop(signal?: NodeJS.Signals): Promise<void>;
}

export interface InstanceOptions {
  /** Names the instance and its log file (`<name>.log`); default `<service>-2`, `<service>-3`, ... */
  readonly name?: string;
  /** Environment applied after the pipeline's (for example another `MONGODB_URI`). */
  readonly env?: Readonly<Record<string, string>>;
  /** Default: a free port. */
  readonly port?: number;
}

export interface Pipeline {
  readonly run: string;
  readonly logDir: string;
  readonly database: string;
  readonly participants: readonly Participant[];
  /** Each bank's signing secrets, as the event publisher and the simulator share them. */
  readonly signingSecrets: Readonly<Record<string, readonly string[]>>;
  /**
   * The clearing house's credentials on the scheme-facing routes (the ingress holds only the token's
   * SHA-256): send `Authorization: Bearer <token>`.
   */
  readonly scheme: { readonly id: string; readonly token: string };
  /** Each bank's OAuth2 client secret at the simulated identity provider (client id: the member id). */
  readonly bankClients: Readonly<Record<string, string>>;
  /** The identity provider's token endpoint (client credentials). */
  readonly tokenUrl: string;
  /** `Bearer <token>` for a bank's calls on the ingress, from the token endpoint; renewed before it expires. */
  bankAuthorization(memberId: string): Promise<string>;
  /**
   * The operators' OAuth2 clients at the same identity provider: `reader` holds `operator.read`, `admin`
   * `operator.replay` too, `console` is the console's own client (`operator.read`).
   */
  readonly operatorClients: Readonly<
    Record<OperatorClient, { readonly id: string; readonly secret: string }>
  >;
  /** The `aud` of operator tokens: the admin API's (`ADMIN_AUTH_AUDIENCE`). */
  readonly adminAudience: string;
  /**
   * `Bearer <token>` of an operator for the admin API: `operator.read` from the reader's client,
   * `operator.replay` from the admin's; renewed before it expires.
   */
  operatorAuthorization(role: OperatorRole): Promise<string>;
  /**
   * The environment of an operations console beside this pipeline: each service's URL, operators'
   * tokens checked as the admin APIs check them, sign-in at the same token endpoint, and the console's
   * own client for its reads.
   */
  consoleEnv(): Record<string, string>;
  readonly ports: Readonly<Record<PipelineService, number>>;
  /**
   * The launching process's variables that every service inherits as they are (the launcher sets none
   * of them): with the services' own defaults, what decides their settings besides the launcher.
   */
  readonly inheritedEnv: Readonly<Record<string, string>>;
  /** The flags each service's node was started with, before its main module (`serviceNodeFlags`). */
  readonly nodeFlags: readonly string[];
  /** `http://127.0.0.1:<port>` of a service. */
  url(service: PipelineService): string;
  /** The ingress's bank-facing API base (`.../api/v1`). */
  readonly apiUrl: string;
  isRunning(service: PipelineService): boolean;
  /** The process id of a running service (for what the kernel counts of it); undefined when it is not running. */
  pid(service: PipelineService): number | undefined;
  /** Starts a service that is not running and waits until it answers ready. */
  start(service: PipelineService): Promise<void>;
  /** Sends a signal (default SIGKILL) and waits for the process to end. */
  kill(service: PipelineService, signal?: NodeJS.Signals): Promise<void>;
  /**
   * Sends a signal to a running service without waiting, as `ServiceInstance.signal` does: `SIGSTOP`
   * freezes it (nothing is answered, nothing is consumed), `SIGCONT` lets it go on where it stopped.
   */
  signal(service: PipelineService, signal: NodeJS.Signals): void;
  /**
   * Starts one more process of a service on the same topics and database, with its own port, log file
   * and extra environment, and waits until it answers ready: a second ingress for a bank to fail over
   * to, or one whose dependencies a test breaks. `stop()` of the pipeline ends it too.
   */
  startInstance(service: PipelineService, options?: InstanceOptions): Promise<ServiceInstance>;
  /** Stops every service and extra instance (SIGTERM, in reverse start order) and waits for them to end. */
  stop(): Promise<void>;
  /**
   * Deletes the run's topics (its namespace's, and the retry and dead-letter topics named after it), the
   * schema subjects named after them, and its database: for after `stop()`, by a test or a benchmark
   * done with them. Left behind, every run's partitions are more for a local broker to load at its next
   * start.
   */
  dropData(): Promise<Dropped>;
}

/**
 * Stops a pipeline and drops its data (`Pipeline.dropData`). A drop that fails is passed to `warn`, not
 * thrown: what it leaves costs disk and start time, not the outcome of what ran.
 */
export async function stopAndDrop(
  pipeline: Pipeline | undefined,
  warn: (line: string) => void = console.warn,
): Promise<void> {
  if (pipeline === undefined) return;
  await pipeline.stop();
  try {
    await pipeline.dropData();
  } catch (error) {
    warn(`pipeline ${pipeline.run}: what it made was not all dropped: ${String(error)}`);
  }
}

/** Whether a topic, schema subject or database is the pipeline's of this run (namespace) and database. */
export function ownedByRun(name: string, run: string, database: string): boolean {
  return name === database || name.startsWith(`${run}.`) || name.includes(`.${run}.`);
}

/**
 * Windows for a pipeline that may run at any hour on any day (tests, benchmarks): every day a business
 * day, today's debit window spanning the whole day (a debit collected today waits for today's window),
 * opened only by the admin trigger that declares credits final (not by the credits themselves); the day's
 * debit and reconciliation windows close when the day ends (24:00 in Johannesburg), so only a journey in
 * flight at midnight there is reconciled, and the next day's window opens by the trigger again (see
 * `DebitWindowKeeper`).
 */
export const anyTimeWindows: Readonly<Record<string, string>> = {
  BUSINESS_DAYS: 'MON,TUE,WED,THU,FRI,SAT,SUN',
  CREDITS_GATE: 'operator',
  DEBIT_WINDOW_OPEN: '00:00',
  DEBIT_WINDOW_CLOSE: '24:00',
  RECONCILIATION_WINDOW_CLOSE: '24:00',
  WINDOW_TICK: '200ms',
};

export const defaultBank: SimulatedBank = {
  memberId: '250655',
  name: 'Baobab Bank (synthetic)',
  eventClasses: ['TRANSACTION_STATE', 'ESM_STATE'],
  debitLimits: { ZAR: '500000' },
};

/** How long a stopped service may take to drain before it is killed. */
const stopGraceMs = 20_000;

/** Every service process this process started; none outlives it (see below). */
const spawned = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of spawned) child.kill('SIGKILL');
});

/**
 * Ports below the kernel's ephemeral range (32768-60999 on Linux): a port the kernel picks for
 * `listen(0)` can be taken, before the service binds it, as the local port of any outgoing connection
 * (Kafka, MongoDB, HTTP clients all make them); one below the range cannot.
 */
const portRange = { from: 20_000, to: 32_000 } as const;
/** Ports this process handed out already: never twice, though the first taker may not have bound yet. */
const handedOut = new Set<number>();

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    // Where the services listen: every interface.
    server.listen({ port, exclusive: true }, () => server.close(() => resolve(true)));
  });
}

/** A port nobody listens on right now, below the ephemeral range, not handed out before by this process. */
export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 500; attempt += 1) {
    const port = portRange.from + Math.floor(Math.random() * (portRange.to - portRange.from));
    if (handedOut.has(port)) continue;
    if (await canListen(port)) {
      handedOut.add(port);
      return port;
    }
  }
  throw new Error(`no free port between ${portRange.from} and ${portRange.to}`);
}

async function waitReady(
  url: string,
  deadline: number,
  alive: () => boolean,
  name: string,
  log: string,
): Promise<void> {
  while (Date.now() < deadline) {
    const ok = await fetch(url, { signal: AbortSignal.timeout(2_000) }).then(
      (response) => response.ok,
      () => false,
    );
    if (ok) return;
    if (!alive()) throw new Error(`${name} exited before it was ready; see ${log}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`${name} was not ready in time; see ${log}`);
}

/**
 * The young generation every service's V8 starts with and keeps: 16 MB a semi-space. Left to itself V8
 * starts at 1 MB and grows it only while much of it survives, which a service's traffic (short-lived
 * objects a request or a record) never makes it do, and under a pod's memory limit it also lowers the
 * ceiling: the dispatcher, the scheduler and the ingress then scavenged 15-20 times a second and promoted
 * what was still in flight, which later mark-compacts collected. A higher ceiling (V8's 64 MB on a large
 * machine) left the old generation less of a pod's heap and was worse (bench/FINDINGS.md, "The young
 * generation"). NODE_OPTIONS refuses these flags, so they go on node's command line: here, and in the
 * image's entry point (infra/docker/rp-service.sh), both replaced by `RP_NODE_FLAGS` when it is set (""
 * for none).
 */
export const defaultServiceNodeFlags: readonly string[] = [
  '--min-semi-space-size=16',
  '--max-semi-space-size=16',
];

/** The flags each service's node starts with: `RP_NODE_FLAGS` split on spaces when set, else the defaults. */
export function serviceNodeFlags(
  parent: Readonly<Record<string, string | undefined>> = process.env,
): string[] {
  const flags = parent.RP_NODE_FLAGS;
  if (flags === undefined) return [...defaultServiceNodeFlags];
  return flags.split(/\s+/).filter((flag) => flag !== '');
}

/**
 * The variables of `parent` (the launching process's environment) that reach every service as they
 * are: those that none of `set` (the launcher's own settings, the caller's, a service's own) sets.
 */
export function inheritedEnvironment(
  parent: Readonly<Record<string, string | undefined>>,
  set: readonly Readonly<Record<string, unknown>>[],
): Record<string, string> {
  const inherited: Record<string, string> = {};
  for (const [name, value] of Object.entries(parent)) {
    if (value === undefined || set.some((env) => Object.hasOwn(env, name))) continue;
    inherited[name] = value;
  }
  return inherited;
}

/**
 * Runs the whole pipeline as processes, the way it runs in production (one process per service), on
 * one topic namespace and one database of its own, with the bank simulator playing every bank. Each
 * service's output goes to its own log file. Used by `rp demo`, the end-to-end tests and the benchmarks.
 */
export async function launchPipeline(options: LaunchOptions): Promise<Pipeline> {
  const run = options.run ?? `pl-${Date.now().toString(36)}${randomBytes(3).toString('hex')}`;
  const database = run.replace(/[^A-Za-z0-9_]/g, '_');
  const logDir = options.logDir ?? join(options.root, '.local', 'pipeline', run);
  mkdirSync(logDir, { recursive: true });
  const ports = {} as Record<PipelineService, number>;
  for (const service of pipelineServices) ports[service] = options.ports?.[service] ?? (await freePort());
  const url = (service: PipelineService) => `http://127.0.0.1:${ports[service]}`;
  const simulator = url('bank-simulator');

  const banks = options.banks ?? [defaultBank];
  const participants: Participant[] = banks.map((bank) => {
    const classes = [...(bank.eventClasses ?? ['TRANSACTION_STATE', 'ESM_STATE'])];
    return {
      memberId: bank.memberId,
      name: bank.name ?? `Bank ${bank.memberId} (synthetic)`,
      baseUrl: `${simulator}/banks/${bank.memberId}`,
      ...(classes.length > 0 ? { eventsUrl: `${simulator}/banks/${bank.memberId}` } : {}),
      eventClasses: classes,
      debitLimits: { ...(bank.debitLimits ?? { ZAR: '500000' }) },
    };
  });
  const signingSecrets: Record<string, string[]> = Object.fromEntries(
    banks.map((bank) => [bank.memberId, [`whsec_${randomBytes(32).toString('base64')}`]]),
  );

  const scheme = { id: 'za-clearing-house', token: randomBytes(32).toString('base64url') };
  // The banks' OAuth2 clients at the identity provider the simulator plays (client id: the member id).
  const bankClients: Record<string, string> = Object.fromEntries(
    banks.map((bank) => [bank.memberId, randomBytes(24).toString('base64url')]),
  );
  const issuer = `${simulator}/oauth2`;
  // The operators' clients: a read-only operator, one who may replay and retry, and the console's own.
  const operatorClients: Record<OperatorClient, { id: string; secret: string }> = {
    reader: { id: 'ops-reader', secret: randomBytes(24).toString('base64url') },
    admin: { id: 'ops-admin', secret: randomBytes(24).toString('base64url') },
    console: { id: 'ops-console', secret: randomBytes(24).toString('base64url') },
  };
  const adminAudience = 'regulated-payments-admin';

  /** What the launcher sets for every service, over the launching process's environment. */
  const own: Record<string, string> = {
    KAFKA_BROKERS: options.endpoints.kafkaBrokers.join(','),
    SCHEMA_REGISTRY_URL: options.endpoints.schemaRegistryUrl,
    MONGODB_URI: options.endpoints.mongodbUri,
    MONGODB_DATABASE: database,
    TOPIC_NAMESPACE: run,
    TOPIC_PARTITIONS: '3',
    PARTICIPANTS: JSON.stringify(participants),
    SIGNING_SECRETS: JSON.stringify(signingSecrets),
    // The dispatcher signs its calls on banks with the same secrets; the simulator checks credits with them.
    BANK_SIGNING_SECRETS: JSON.stringify(signingSecrets),
    SCHEME_CLIENTS: JSON.stringify([
      { id: scheme.id, tokenSha256: createHash('sha256').update(scheme.token).digest('hex') },
    ]),
    RP_ALLOW_SYNTHETIC_CDV: 'true',
    OAUTH_ISSUER: issuer,
    OAUTH_CLIENTS: JSON.stringify({
      ...bankClients,
      ...Object.fromEntries(Object.values(operatorClients).map((client) => [client.id, client.secret])),
    }),
    OAUTH_CLIENT_SCOPES: JSON.stringify({
      [operatorClients.reader.id]: 'operator.read',
      [operatorClients.admin.id]: 'operator.read operator.replay',
      [operatorClients.console.id]: 'operator.read',
    }),
    BANK_AUTH: 'oauth2',
    BANK_AUTH_ISSUER: issuer,
    BANK_AUTH_JWKS_URL: `${issuer}/jwks`,
    ADMIN_AUTH: 'oauth2',
    ADMIN_AUTH_ISSUER: issuer,
    ADMIN_AUTH_JWKS_URL: `${issuer}/jwks`,
    ADMIN_AUTH_AUDIENCE: adminAudience,
    ENGINE_URL: url('ingress'),
    LOG_LEVEL: 'info',
    ...options.env,
  };
  const common: NodeJS.ProcessEnv = { ...process.env, ...own };
  const nodeFlags = serviceNodeFlags();
  // PORT is each service's own.
  const inheritedEnv = inheritedEnvironment(process.env, [
    own,
    { PORT: '' },
    ...Object.values(options.serviceEnv ?? {}),
  ]);

  const children = new Map<PipelineService, ChildProcess>();
  const alive = (child: ChildProcess | undefined) =>
    child !== undefined && child.exitCode === null && child.signalCode === null;
  const running = (service: PipelineService) => alive(children.get(service));
  const readyTimeoutMs = options.readyTimeoutMs ?? 120_000;

  const together = new Set<PipelineService>(options.together ?? []);
  const logFileOf = (service: PipelineService) =>
    join(logDir, together.has(service) ? 'engine.log' : `${service}.log`);
  /** The engine's process, running every service of `together`, while it runs. */
  let engine: ChildProcess | undefined;
  const spawnEngine = (): ChildProcess => {
    if (engine !== undefined && alive(engine)) return engine;
    const main = join(options.root, 'services', 'engine', 'dist', 'main.js');
    if (!existsSync(main)) throw new Error(`the engine is not built (${main} missing); run the build first`);
    const scoped: Record<string, string> = {};
    for (const service of options.together ?? []) {
      const scope = serviceScope(service);
      scoped[`${scope}PORT`] = String(ports[service]);
      for (const [name, value] of Object.entries(options.serviceEnv?.[service] ?? {})) {
        scoped[`${scope}${name}`] = value;
      }
    }
    const { PORT: _port, ...shared } = common;
    const log = createWriteStream(join(logDir, 'engine.log'), { flags: 'a' });
    const child = spawn(process.execPath, [...nodeFlags, main], {
      // The engine's own probes on a port of the system's choosing (its log line 'starting the services in one process' names it).
      env: { ENGINE_PORT: '0', ...shared, ...scoped, RP_SERVICES: [...together].join(',') },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout?.pipe(log);
    child.stderr?.pipe(log);
    spawned.add(child);
    child.once('exit', () => spawned.delete(child));
    engine = child;
    return child;
  };

  const spawnService = (
    service: PipelineService,
    port: number,
    logFile: string,
    env: Readonly<Record<string, string>> | undefined,
  ): ChildProcess => {
    const main = join(options.root, 'services', service, 'dist', 'main.js');
    if (!existsSync(main)) throw new Error(`${service} is not built (${main} missing); run the build first`);
    const log = createWriteStream(logFile, { flags: 'a' });
    const [command = process.execPath, ...prefix] = [...(options.wrap?.(service) ?? []), process.execPath];
    const child = spawn(command, [...prefix, ...nodeFlags, main], {
      env: { ...common, ...options.serviceEnv?.[service], ...env, PORT: String(port) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout?.pipe(log);
    child.stderr?.pipe(log);
    spawned.add(child);
    child.once('exit', () => spawned.delete(child));
    return child;
  };
  const ended = async (child: ChildProcess, signal: NodeJS.Signals) => {
    if (!alive(child)) return;
    const exit = new Promise((resolve) => child.once('exit', resolve));
    // A frozen process (SIGSTOP) acts on no signal but SIGKILL until it is continued.
    if (signal !== 'SIGKILL') child.kill('SIGCONT');
    child.kill(signal);
    // A service that has not drained within the grace (a loaded machine, a stuck dependency) is killed,
    // so that stopping a pipeline always ends.
    const grace =
      signal === 'SIGKILL' ? undefined : setTimeout(() => alive(child) && child.kill('SIGKILL'), stopGraceMs);
    await exit;
    clearTimeout(grace);
  };
  const readyPath = (service: PipelineService) => (service === 'bank-simulator' ? 'live' : 'ready');

  const start = async (service: PipelineService) => {
    if (running(service)) return;
    const logFile = logFileOf(service);
    // A service run together starts with the engine, and with it every service it runs, each waited for
    // in the engine's order (another instance of one of them is a process of its own).
    const child = together.has(service)
      ? spawnEngine()
      : spawnService(service, ports[service], logFile, undefined);
    const started = together.has(service)
      ? pipelineServices.filter((member) => together.has(member))
      : [service];
    for (const member of started) children.set(member, child);
    const t0 = Date.now();
    for (const member of started) {
      await waitReady(
        `${url(member)}/health/${readyPath(member)}`,
        Date.now() + readyTimeoutMs,
        () => running(member),
        member,
        logFile,
      );
      options.onReady?.(member, ports[member], Date.now() - t0);
    }
  };

  const kill = async (service: PipelineService, signal: NodeJS.Signals = 'SIGKILL') => {
    const child = children.get(service);
    if (!child || !running(service)) return;
    await ended(child, signal);
  };

  const signal = (service: PipelineService, sent: NodeJS.Signals) => {
    const child = children.get(service);
    if (child && running(service)) child.kill(sent);
  };

  const instances: ServiceInstance[] = [];
  const startInstance = async (
    service: PipelineService,
    instanceOptions: InstanceOptions = {},
  ): Promise<ServiceInstance> => {
    const name =
      instanceOptions.name ??
      `${service}-${instances.filter((instance) => instance.service === service).length + 2}`;
    const port = instanceOptions.port ?? (await freePort());
    const logFile = join(logDir, `${name}.log`);
    const child = spawnService(service, port, logFile, instanceOptions.env);
    const instanceUrl = `http://127.0.0.1:${port}`;
    const instance: ServiceInstance = {
      service,
      name,
      port,
      url: instanceUrl,
      logFile,
      pid: child.pid,
      isRunning: () => alive(child),
      signal: (signal) => {
        if (alive(child)) child.kill(signal);
      },
      stop: (signal = 'SIGTERM') => ended(child, signal),
    };
    instances.push(instance);
    try {
      await waitReady(
        `${instanceUrl}/health/${readyPath(service)}`,
        Date.now() + readyTimeoutMs,
        () => alive(child),
        name,
        logFile,
      );
    } catch (error) {
      await instance.stop('SIGKILL');
      throw error;
    }
    return instance;
  };

  const stop = async () => {
    await Promise.all(instances.map((instance) => instance.stop()));
    const order = [...pipelineServices].reverse();
    await Promise.all(order.filter(running).map((service) => kill(service, 'SIGTERM')));
  };

  try {
    // Started one after the other: each waits for its topics and schemas, which the first one creates.
    for (const service of options.services ?? pipelineServices) await start(service);
  } catch (error) {
    await stop();
    throw error;
  }

  return {
    run,
    logDir,
    database,
    dropData: () => dropOwned(options.endpoints, (name) => ownedByRun(name, run, database)),
    participants,
    signingSecrets,
    scheme,
    bankClients,
    tokenUrl: `${issuer}/token`,
    bankAuthorization: bankTokens(`${issuer}/token`, bankClients),
    operatorClients,
    adminAudience,
    operatorAuthorization: operatorTokens(`${issuer}/token`, operatorClients, adminAudience),
    consoleEnv: () => ({
      INGRESS_URL: url('ingress'),
      VALIDATOR_URL: url('validator'),
      SCHEDULER_URL: url('scheduler'),
      DISPATCHER_URL: url('dispatcher'),
      TRACKER_URL: url('tracker'),
      EVENT_PUBLISHER_URL: url('event-publisher'),
      ADMIN_AUTH: 'oauth2',
      ADMIN_AUTH_ISSUER: issuer,
      ADMIN_AUTH_JWKS_URL: `${issuer}/jwks`,
      ADMIN_AUTH_AUDIENCE: adminAudience,
      ADMIN_AUTH_TOKEN_URL: `${issuer}/token`,
      ADMIN_CLIENT_ID: operatorClients.console.id,
      ADMIN_CLIENT_SECRET: operatorClients.console.secret,
    }),
    ports,
    inheritedEnv,
    nodeFlags,
    url,
    apiUrl: `${url('ingress')}/api/v1`,
    isRunning: running,
    pid: (service) => (running(service) ? children.get(service)?.pid : undefined),
    start,
    kill,
    signal,
    startInstance,
    stop,
  };
}

/**
 * A bank's bearer token the way a bank gets one: OAuth2 client credentials at the token endpoint (HTTP
 * Basic client authentication), kept until a minute before it expires.
 */
export function bankTokens(
  tokenUrl: string,
  clients: Readonly<Record<string, string>>,
): (memberId: string) => Promise<string> {
  const held = new Map<string, () => Promise<string>>();
  return async (memberId) => {
    let tokens = held.get(memberId);
    if (!tokens) {
      const secret = clients[memberId];
      if (secret === undefined) throw new Error(`bank ${memberId} has no OAuth2 client in this pipeline`);
      tokens = clientCredentialsTokens({ tokenUrl, clientId: memberId, clientSecret: secret });
      held.set(memberId, tokens);
    }
    return tokens();
  };
}

/** The operators' clients of a pipeline. */
export type OperatorClient = 'reader' | 'admin' | 'console';

/** An operator's bearer token for the admin API, from the client that holds the role. */
export function operatorTokens(
  tokenUrl: string,
  clients: Readonly<Record<OperatorClient, { readonly id: string; readonly secret: string }>>,
  audience: string,
): (role: OperatorRole) => Promise<string> {
  const client = (name: OperatorClient, scope: string) =>
    clientCredentialsTokens({
      tokenUrl,
      clientId: clients[name].id,
      clientSecret: clients[name].secret,
      scope,
      audience,
    });
  const byRole: Record<OperatorRole, () => Promise<string>> = {
    'operator.read': client('reader', 'operator.read'),
    'operator.replay': client('admin', 'operator.read operator.replay'),
  };
  return (role) => byRole[role]();
}
