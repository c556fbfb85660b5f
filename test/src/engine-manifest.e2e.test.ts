import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { configMapObject, operatorExampleObjects } from '@rp/deploy/operator-examples';
import { overlayDir, repoRoot } from '@rp/deploy/paths';
import {
  type Container,
  containerEnvironment,
  imageEnvironment,
  type PodSpec,
  probeTarget,
  writeVolumes,
} from '@rp/deploy/pod';
import { type K8sObject, kustomizeBuild, parseObjects } from '@rp/deploy/render';
import { ensureKustomize } from '@rp/deploy/tools';
import { freePort, ownedByRun, serviceNodeFlags } from '@rp/launcher';
import { dropOwned, lastLines } from '@rp/local-stack';
import { type InfraEndpoints, infra, uniqueName } from '@rp/testkit';
import { syntheticCdvTables } from '@rp/validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runningLogDirs } from './failure-report.ts';

/**
 * The engine started as the production-engine overlay starts it, on the local stack: its Deployment
 * rendered by kustomize, its container's environment resolved as the kubelet resolves it (the image's
 * ENV, envFrom, values, ConfigMap and Secret keys), its volumes written out as files, its entry run as the
 * image runs it, its probes asked on the ports they name and SIGTERM given the grace period it sets. Only
 * what cannot be the cluster's on this machine is replaced (its endpoints, its volumes' paths, its ports,
 * and the names that keep this run apart), and that set is held to the list below: a manifest change that
 * breaks the engine's start, or that adds a cluster-only variable, fails here rather than in a cluster.
 * The variables Kubernetes adds by itself (HOSTNAME, KUBERNETES_SERVICE_HOST; the pod turns the Services'
 * links off) are not made: no service reads them.
 */

const overlay = 'production-engine';
const deploymentName = 'engine';

type Json = Record<string, unknown>;

// ---------------------------------------------------------------------------------------------------------
// What the operator provides.

/**
 * What the operator creates in the namespace and the repository never holds, with the README's example
 * values (`@rp/deploy/operator-examples`): what a cluster would hold, cluster addresses included, which are
 * replaced below like the rendered ones. The participants are the demo overlay's example with their banks
 * at the local stand-in (no bank answers at a cluster's address here); the CDV tables are the synthetic
 * ones without the rows that name an exception code, since the operator's files are loaded with no
 * exception rules registered (the validator refuses a code it has no rule for).
 */
function operatorObjects(standIn: string): K8sObject[] {
  const participants = (
    JSON.parse(readFileSync(join(overlayDir('demo'), 'participants.json'), 'utf8')) as Json[]
  ).map((bank) => ({
    ...bank,
    baseUrl: new URL(new URL(String(bank.baseUrl)).pathname, standIn).href,
    ...(bank.eventsUrl === undefined
      ? {}
      : { eventsUrl: new URL(new URL(String(bank.eventsUrl)).pathname, standIn).href }),
  }));
  const tables = syntheticCdvTables();
  const withoutExceptionCodes = readFileSync(tables.parameterFile, 'utf8')
    .split('\n')
    .filter(
      (line) =>
        line.startsWith('#') ||
        line.startsWith('branch_from,') ||
        line.trim() === '' ||
        line.split(',').at(-1)?.trim() === '',
    )
    .join('\n');
  return [
    ...operatorExampleObjects(),
    configMapObject('rp-participants', { 'participants.json': JSON.stringify(participants, null, 2) }),
    configMapObject('rp-cdv-tables', {
      parameters: withoutExceptionCodes,
      branches: readFileSync(tables.branchFile, 'utf8'),
    }),
  ];
}

// ---------------------------------------------------------------------------------------------------------
// What only the cluster has, and what stands for it here.

type Replacement = 'endpoint' | 'file' | 'port' | 'isolation';

/** Where the engine runs on this machine: what stands for the cluster's endpoints, volumes and ports. */
interface Here {
  readonly endpoints: InfraEndpoints;
  /** The local HTTP server standing for the identity providers, the trace collector and the banks. */
  readonly standIn: string;
  /** The topic namespace of this run. */
  readonly run: string;
  readonly database: string;
  /** A path in one of the pod's volumes, as written on this machine. */
  file(podPath: string): string;
  /** The free port standing for one of the pod's. */
  port(podPort: string): string;
}

/**
 * Every variable of the engine's pod the test replaces, and why: what names a host of the cluster (or of
 * the operator's identity providers), a file of the pod's volumes or one of the pod's ports, and the
 * names that keep this run apart from every other on the same stack. The first three kinds are found in
 * the pod's environment by `clusterOnly`; the test fails when they are not exactly the ones listed here.
 */
interface Replaced {
  readonly kind: Replacement;
  readonly why: string;
  here(value: string, at: Here): string;
}
/** A path in one of the pod's volumes: the same file, written here. */
const volumeFile = (volume: string): Replaced => ({
  kind: 'file',
  why: `a file of the ${volume} volume; the same file, written here`,
  here: (value, at) => at.file(value),
});
/** One of the pod's ports: a free port here. */
const podPort = (why: string): Replaced => ({
  kind: 'port',
  why: `${why}; a free port`,
  here: (value, at) => at.port(value),
});
const replaced: Readonly<Record<string, Replaced>> = {
  KAFKA_BROKERS: {
    kind: 'endpoint',
    why: "rp-config: the cluster's Kafka (the rp-kafka bootstrap); the local stack's brokers",
    here: (_, at) => at.endpoints.kafkaBrokers.join(','),
  },
  SCHEMA_REGISTRY_URL: {
    kind: 'endpoint',
    why: "rp-config: the cluster's schema registry; the local stack's",
    here: (_, at) => at.endpoints.schemaRegistryUrl,
  },
  MONGODB_URI: {
    kind: 'endpoint',
    why: "rp-secrets' mongodb-uri: the cluster's MongoDB; the local stack's",
    here: (_, at) => at.endpoints.mongodbUri,
  },
  OTEL_EXPORTER_OTLP_ENDPOINT: {
    kind: 'endpoint',
    why: "rp-config: the cluster's OpenTelemetry collector; the stand-in, which takes the spans",
    here: (_, at) => at.standIn,
  },
  BANK_AUTH_ISSUER: {
    kind: 'endpoint',
    why: "rp-bank-auth (the operator's): the banks' identity provider; the stand-in",
    here: (_, at) => `${at.standIn}/banks-idp`,
  },
  BANK_AUTH_JWKS_URL: {
    kind: 'endpoint',
    why: "rp-bank-auth (the operator's): the banks' identity provider's keys; the stand-in's",
    here: (_, at) => `${at.standIn}/banks-idp/jwks`,
  },
  ADMIN_AUTH_ISSUER: {
    kind: 'endpoint',
    why: "rp-admin-auth (the operator's): the operators' identity provider; the stand-in",
    here: (_, at) => `${at.standIn}/operators-idp`,
  },
  ADMIN_AUTH_JWKS_URL: {
    kind: 'endpoint',
    why: "rp-admin-auth (the operator's): the operators' identity provider's keys; the stand-in's",
    here: (_, at) => `${at.standIn}/operators-idp/jwks`,
  },
  PARTICIPANTS: volumeFile('rp-participants'),
  CDV_PARAMETER_FILE: volumeFile('rp-cdv-tables'),
  CDV_BRANCH_FILE: volumeFile('rp-cdv-tables'),
  ENGINE_PORT: podPort("the engine's own probes, the pod's http port"),
  INGRESS__PORT: podPort("the ingress's port in the pod"),
  VALIDATOR__PORT: podPort("the validator's port in the pod"),
  DISPATCHER__PORT: podPort("the dispatcher's port in the pod"),
  TRACKER__PORT: podPort("the tracker's port in the pod"),
  MONGODB_DATABASE: {
    kind: 'isolation',
    why: "rp-store: the cluster's database; a fresh one, as every end-to-end test has, dropped after",
    here: (_, at) => at.database,
  },
  TOPIC_NAMESPACE: {
    kind: 'isolation',
    why: "unset in the pod (the cluster's topics carry no prefix); a fresh one, so that the topics are this run's alone, dropped after",
    here: (_, at) => at.run,
  },
};

const loopback = (host: string) => host === 'localhost' || host === '::1' || /^127\./.test(host);

/** The hosts a value names: in URLs (anywhere in it, JSON included) and as a `host:port,...` list. */
function hostsNamed(value: string): string[] {
  const hosts = new Set<string>();
  const hostOf = (hostPort: string) =>
    (hostPort.startsWith('[')
      ? hostPort.slice(1, hostPort.indexOf(']'))
      : (hostPort.split(':')[0] ?? '')
    ).toLowerCase();
  for (const match of value.matchAll(/[a-z][a-z0-9+.-]*:\/\/(?:[^@/\s"',]*@)?([^/\s"'?#]+)/gi)) {
    for (const hostPort of (match[1] ?? '').split(',')) hosts.add(hostOf(hostPort));
  }
  for (const item of value.split(',')) {
    const match = /^\s*([A-Za-z0-9.-]+):([1-9]\d{0,4})\s*$/.exec(item);
    // A host has a letter or is an IPv4 address: "08:00" is a time of day.
    if (match && /[a-z]|^\d{1,3}(\.\d{1,3}){3}$/i.test(match[1] ?? '')) hosts.add(hostOf(match[1] ?? ''));
  }
  return [...hosts].filter((host) => host !== '');
}

/**
 * The variables that cannot be the cluster's on this machine, each with its kind and what it names: a
 * host other than this machine's loopback, a path in one of the pod's volumes, a port the process listens
 * on (a `PORT` variable).
 */
function clusterOnly(
  env: Readonly<Record<string, string>>,
  mountPaths: readonly string[],
): Map<string, { kind: Exclude<Replacement, 'isolation'>; what: string }> {
  const found = new Map<string, { kind: Exclude<Replacement, 'isolation'>; what: string }>();
  for (const [name, value] of Object.entries(env)) {
    const hosts = hostsNamed(value).filter((host) => !loopback(host));
    const mount = mountPaths.find((path) => value === path || value.startsWith(`${path}/`));
    if (hosts.length > 0) found.set(name, { kind: 'endpoint', what: `names ${hosts.join(', ')}` });
    else if (mount !== undefined) found.set(name, { kind: 'file', what: `is in the volume at ${mount}` });
    else if (/(^|_)PORT$/.test(name) && /^\d+$/.test(value))
      found.set(name, { kind: 'port', what: `is the pod's port ${value}` });
  }
  return found;
}

/** What the test replaced that it should not have, and what it should have replaced but did not. */
function replacementProblems(
  podEnv: Readonly<Record<string, string>>,
  found: ReadonlyMap<string, { kind: Replacement; what: string }>,
): string[] {
  const problems: string[] = [];
  for (const [name, { kind, what }] of found) {
    const listed = replaced[name];
    if (listed === undefined) {
      problems.push(
        `${name}=${podEnv[name]} ${what}: only the cluster has it; add it to \`replaced\` with what stands for it here`,
      );
    } else if (listed.kind !== kind) {
      problems.push(`${name} ${what} (${kind}), but \`replaced\` lists it as ${listed.kind}`);
    }
  }
  for (const [name, { kind }] of Object.entries(replaced)) {
    if (kind === 'isolation' || found.has(name)) continue;
    problems.push(
      `${name} is listed in \`replaced\` (${kind}), but the pod ${podEnv[name] === undefined ? 'does not set it' : `sets it to ${podEnv[name]}, which needs nothing in its place here`}: take it off the list`,
    );
  }
  return problems;
}

// ---------------------------------------------------------------------------------------------------------
// The engine's process.

/** A local HTTP server answering as the identity providers (empty key sets), the trace collector and banks. */
async function startStandIn(): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      if (request.url === '/v1/traces' && request.method === 'POST') {
        response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      } else if (request.url?.endsWith('/jwks')) {
        response.writeHead(200, { 'content-type': 'application/json' }).end('{"keys":[]}');
      } else response.writeHead(404).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

interface Exit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

interface Started {
  readonly child: ChildProcess;
  readonly exit: Promise<Exit>;
  readonly logFile: string;
}

/** The engine's last warnings and errors (clipped), for a failure's message, and where its whole log is. */
function logSummary(logFile: string): string {
  const serious = (existsSync(logFile) ? lastLines(logFile, 256 * 1024) : [])
    .filter((line) => /"level":"(warn|error|fatal)"/.test(line))
    .slice(-6)
    .map((line) => (line.length > 600 ? `${line.slice(0, 600)}…` : line));
  return `${serious.length > 0 ? serious.join('\n') : '(no warnings or errors)'}\nsee ${logFile}`;
}

/** The engine's JSON log lines, in order. */
function logLines(logFile: string): Json[] {
  return readFileSync(logFile, 'utf8')
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Json);
}

interface Plan {
  readonly pod: PodSpec;
  readonly container: Container;
  /** The environment the pod's container starts with: the image's ENV and its own variables. */
  readonly podEnv: Readonly<Record<string, string>>;
  /** The same with what only the cluster has replaced. */
  readonly localEnv: Readonly<Record<string, string>>;
  readonly found: ReadonlyMap<string, { kind: Replacement; what: string }>;
  readonly problems: readonly string[];
  readonly mountPaths: readonly string[];
  /** The pod's port to the free one standing for it. */
  readonly ports: ReadonlyMap<number, number>;
  readonly services: readonly string[];
  readonly main: string;
}

let plan: Plan;
let here: Omit<Here, 'file' | 'port'> & { logDir: string };
let standIn: Awaited<ReturnType<typeof startStandIn>> | undefined;
let engine: Started | undefined;

beforeAll(async () => {
  const endpoints = await infra();
  const run = uniqueName('em');
  const logDir = join(repoRoot, '.local', 'pipeline', run);
  mkdirSync(logDir, { recursive: true });
  runningLogDirs.add(logDir);
  standIn = await startStandIn();
  here = { endpoints, standIn: standIn.url, run, database: run.replace(/[^A-Za-z0-9_]/g, '_'), logDir };

  const kustomize = await ensureKustomize((line) => console.log(`deploy: ${line}`));
  const rendered = parseObjects(await kustomizeBuild({ kustomize }, overlayDir(overlay)));
  const objects = [...rendered, ...operatorObjects(standIn.url)];
  const deployment = rendered.find((o) => o.kind === 'Deployment' && o.metadata.name === deploymentName);
  if (deployment === undefined) throw new Error(`${overlay} renders no Deployment ${deploymentName}`);
  const pod = (deployment.spec as { template: { spec: PodSpec } }).template.spec;
  const container = pod.containers.find((c) => c.name === deploymentName);
  if (container === undefined || pod.containers.length !== 1 || (pod.initContainers ?? []).length > 0) {
    throw new Error(`the ${deploymentName} pod should run its one container, ${deploymentName}, alone`);
  }

  const podEnv = { ...imageEnvironment(), ...containerEnvironment(container, objects) };
  const mounts = writeVolumes(pod, container, objects, join(logDir, 'volumes'));
  const mountPaths = [...mounts.keys()];
  const found = clusterOnly(podEnv, mountPaths);
  const ports = new Map<number, number>();
  for (const port of container.ports ?? []) ports.set(port.containerPort, await freePort());
  for (const [name, { kind }] of found) {
    const value = Number(podEnv[name]);
    if (kind === 'port' && !ports.has(value)) ports.set(value, await freePort());
  }
  const at: Here = {
    ...here,
    file(podPath) {
      const mount = mountPaths.find((path) => podPath === path || podPath.startsWith(`${path}/`));
      if (mount === undefined) throw new Error(`${podPath} is in none of the pod's volumes`);
      return `${mounts.get(mount)}${podPath.slice(mount.length)}`;
    },
    port: (podPort) => String(ports.get(Number(podPort))),
  };
  const localEnv = { ...podEnv };
  for (const [name, replacement] of Object.entries(replaced)) {
    const value = podEnv[name];
    if (replacement.kind === 'isolation' || (value !== undefined && found.has(name)))
      localEnv[name] = replacement.here(value ?? '', at);
  }

  // The image's entry point (infra/docker/rp-service.sh) runs `node <flags> services/<args[0]>/dist/main.js`.
  if (container.command !== undefined || container.args?.length !== 1) {
    throw new Error(
      `the ${deploymentName} container should run the image's entry point with one argument, the service`,
    );
  }
  plan = {
    pod,
    container,
    podEnv,
    localEnv,
    found,
    problems: replacementProblems(podEnv, found),
    mountPaths,
    ports,
    services: (podEnv.RP_SERVICES ?? '')
      .split(',')
      .map((name) => name.trim())
      .filter((name) => name !== ''),
    main: join(repoRoot, 'services', container.args[0] ?? '', 'dist', 'main.js'),
  };
});

afterAll(async () => {
  if (engine && engine.child.exitCode === null && engine.child.signalCode === null) {
    engine.child.kill('SIGKILL');
    await engine.exit;
  }
  await standIn?.close();
  if (here) {
    try {
      await dropOwned(here.endpoints, (name) => ownedByRun(name, here.run, here.database));
    } catch (error) {
      console.warn(`${here.run}: what the engine made was not all dropped: ${String(error)}`);
    }
    runningLogDirs.delete(here.logDir);
  }
});

/** The engine's pod port on this machine: `http://127.0.0.1:<the free port standing for it>`. */
function local(podPort: number): string {
  const port = plan.ports.get(podPort);
  if (port === undefined) throw new Error(`the pod's port ${podPort} has no stand-in`);
  return `http://127.0.0.1:${port}`;
}

/** The pod's port of one of the engine's services: the container port named after it. */
function servicePort(service: string): number {
  const port = plan.container.ports?.find((p) => p.name === service)?.containerPort;
  if (port === undefined) throw new Error(`the ${deploymentName} container names no port ${service}`);
  return port;
}

describe(`the engine as overlays/${overlay} starts it, on the local stack`, () => {
  it('replaces exactly the listed variables: the cluster endpoints, volume paths and ports, and the run names', () => {
    expect(plan.problems, 'the variables that only the cluster has differ from `replaced`').toEqual([]);
    const kinds = Object.fromEntries([...plan.found].map(([name, { kind }]) => [name, kind]));
    const isolation = Object.keys(replaced).filter((name) => replaced[name]?.kind === 'isolation');
    expect({ ...kinds, ...Object.fromEntries(isolation.map((name) => [name, 'isolation'])) }).toEqual(
      Object.fromEntries(Object.entries(replaced).map(([name, { kind }]) => [name, kind])),
    );
    // What changed between the pod's environment and the one the engine gets is that list, no more.
    const changed = Object.keys(plan.localEnv).filter((name) => plan.localEnv[name] !== plan.podEnv[name]);
    expect(changed.sort()).toEqual(Object.keys(replaced).sort());
    // And nothing the engine gets names a host of the cluster or a path of the pod's volumes.
    const left = [...clusterOnly(plan.localEnv, plan.mountPaths)]
      .filter(([, { kind }]) => kind !== 'port')
      .map(([name, { what }]) => `${name} ${what}`);
    expect(left).toEqual([]);
    const ports = new Set(plan.ports.values());
    for (const [name, { kind }] of plan.found) {
      if (kind === 'port') expect(ports.has(Number(plan.localEnv[name])), name).toBe(true);
    }
  });

  it("starts from the image's entry as the pod does and answers its probes, each service on its own port", async () => {
    expect(
      plan.problems,
      'not started: the replaced variables differ from the list (see the test above)',
    ).toEqual([]);
    expect(existsSync(plan.main), `${plan.main} is not built; run the build first`).toBe(true);
    expect(plan.services.length, 'the pod names the services it runs in RP_SERVICES').toBeGreaterThan(0);

    const logFile = join(here.logDir, 'engine.log');
    const out = openSync(logFile, 'a');
    const child = spawn(process.execPath, [...serviceNodeFlags(plan.localEnv), plan.main], {
      cwd: repoRoot,
      env: { ...plan.localEnv, PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' },
      stdio: ['ignore', out, out],
    });
    closeSync(out);
    const exit = new Promise<Exit>((resolve) =>
      child.once('exit', (code, signal) => resolve({ code, signal })),
    );
    process.once('exit', () => child.kill('SIGKILL'));
    engine = { child, exit, logFile };

    // Polled until the readiness probe answers 200, for as long as the startup probe gives the process.
    const readiness = probeTarget(plan.container.readinessProbe, plan.container, 'readiness');
    const startup = plan.container.startupProbe;
    const startupMs =
      ((startup?.initialDelaySeconds ?? 0) +
        (startup?.periodSeconds ?? 10) * (startup?.failureThreshold ?? 3)) *
      1000;
    const readyUrl = `${local(readiness.podPort)}${readiness.path}`;
    const spawned = Date.now();
    const deadline = spawned + startupMs;
    let report: { state?: string; checks?: { name: string; ok: boolean; error?: string }[] } | undefined;
    let last = 'no answer yet';
    while (report === undefined) {
      if (child.exitCode !== null || child.signalCode !== null) {
        throw new Error(
          `the engine exited (${child.exitCode ?? child.signalCode}) before it was ready:\n${logSummary(logFile)}`,
        );
      }
      if (Date.now() > deadline) {
        throw new Error(
          `${readyUrl} did not answer 200 within ${startupMs} ms (last: ${last}):\n${logSummary(logFile)}`,
        );
      }
      try {
        const response = await fetch(readyUrl, { signal: AbortSignal.timeout(readiness.timeoutMs) });
        const body = await response.text();
        if (response.status === 200) report = JSON.parse(body) as typeof report;
        else last = `${response.status} ${body}`;
      } catch (error) {
        last = String(error);
      }
      if (report === undefined) await delay(250);
    }
    console.log(`engine ready in ${Date.now() - spawned} ms`);

    expect(report?.state).toBe('ready');
    expect(report?.checks?.map((check) => check.name).sort()).toEqual([...plan.services].sort());
    for (const check of report?.checks ?? []) expect(check.ok, `${check.name}: ${check.error}`).toBe(true);

    for (const service of plan.services) {
      const base = local(servicePort(service));
      const ready = await fetch(`${base}/health/ready`);
      expect(ready.status, `${service} /health/ready: ${await ready.text()}`).toBe(200);
      const metrics = await (await fetch(`${base}/metrics`)).text();
      expect(metrics, `${service} /metrics`).toContain(`service="${service}"`);
    }

    const liveness = probeTarget(plan.container.livenessProbe, plan.container, 'liveness');
    const live = await fetch(`${local(liveness.podPort)}${liveness.path}`, {
      signal: AbortSignal.timeout(liveness.timeoutMs),
    });
    expect(live.status, await live.text()).toBe(200);

    const started = logLines(logFile).findLast((line) => line.msg === 'all services started');
    expect((started?.services as string[] | undefined)?.slice().sort()).toEqual([...plan.services].sort());
  }, 300_000);

  it('stops on SIGTERM with exit code 0 within the grace period, each service shut down whole', async () => {
    if (engine === undefined) throw new Error('the engine was not started (see the test above)');
    const { child, exit, logFile } = engine;
    expect(child.exitCode, 'the engine exited before SIGTERM').toBeNull();
    // The kubelet runs the preStop hook first, then sends SIGTERM; the grace period counts from the start.
    const graceSeconds = plan.pod.terminationGracePeriodSeconds ?? 30;
    const preStopSeconds = plan.container.lifecycle?.preStop?.sleep?.seconds ?? 0;
    const budgetMs = (graceSeconds - preStopSeconds) * 1000;
    const sent = Date.now();
    child.kill('SIGTERM');
    let timer: NodeJS.Timeout | undefined;
    const outcome = await Promise.race([
      exit,
      new Promise<'killed'>((resolve) => {
        timer = setTimeout(() => resolve('killed'), budgetMs);
      }),
    ]);
    clearTimeout(timer);
    if (outcome === 'killed') {
      child.kill('SIGKILL');
      await exit;
    }
    const tookMs = Date.now() - sent;
    console.log(
      `engine stopped ${tookMs} ms after SIGTERM (grace ${graceSeconds} s, preStop ${preStopSeconds} s)`,
    );
    expect(
      outcome,
      `the engine was still running ${budgetMs} ms after SIGTERM (the grace period less the preStop pause): the kubelet would kill it\n${logSummary(logFile)}`,
    ).not.toBe('killed');
    expect(outcome, logSummary(logFile)).toEqual({ code: 0, signal: null });

    const lines = logLines(logFile);
    const completed = lines.filter((line) => line.msg === 'shutdown complete').map((line) => line.service);
    expect(completed.slice().sort()).toEqual([...plan.services].sort());
    expect(lines.filter((line) => line.msg === 'shutdown finished with failures')).toEqual([]);
  }, 180_000);
});
