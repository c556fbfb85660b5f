import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import {
  type CustomResourceDefinition,
  crdSchemaFiles,
  kubernetesSchemaFiles,
  type SchemaFiles,
  type Swagger,
  strimziSchemaFiles,
} from './schemas.ts';

/**
 * Everything the offline checks fetch, pinned. Each comes from a package registry through its own client:
 * kustomize, kubeconform and promtool are built from their Go modules, the Kubernetes OpenAPI document is
 * the one in the k8s.io/kubernetes module, the ServiceMonitor and PrometheusRule CRDs the ones in the
 * prometheus-operator module (both via the Go module proxy), and the KafkaTopic schema is derived from
 * Strimzi's API model (io.strimzi:api, from Maven Central). Nothing is fetched from GitHub.
 */
export const toolVersions = {
  /** Oldest Kubernetes the manifests are validated against (and so must work on). */
  kubernetes: '1.33.13',
  kustomize: 'v5.8.1',
  kubeconform: 'v0.8.0',
  prometheusOperator: 'v0.85.0',
  /**
   * The Go module version of Prometheus 3.16: its promtool checks and unit-tests the alerting rules, its
   * server runs them and the dashboard's queries against a live pipeline (the end-to-end tests).
   */
  prometheus: 'v0.316.0',
  strimzi: '0.48.0',
} as const;

/** Bumped whenever the schema conversion changes, so that cached schemas are rebuilt. */
const schemaGeneratorVersion = 2;

export interface Tools {
  readonly kustomize: string;
  readonly kubeconform: string;
  /** Prometheus's rule checker and unit tester. */
  readonly promtool: string;
  /** Root of the generated JSON schemas, laid out as kubeconform's default location expects. */
  readonly schemaDir: string;
  readonly kubernetesVersion: string;
}

export type Log = (line: string) => void;

/** ~/.cache/regulated-payments (or RP_CACHE_DIR), as the rp entry point uses. */
export function cacheRoot(): string {
  const explicit = process.env.RP_CACHE_DIR;
  if (explicit) return explicit;
  return join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'regulated-payments');
}

function deployCache(): string {
  return join(cacheRoot(), 'deploy');
}

export interface RunResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs a command to completion, collecting its output; `input` is written to its standard input. */
export function run(
  command: string,
  args: readonly string[],
  options: { input?: string; env?: NodeJS.ProcessEnv; cwd?: string } = {},
): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: options.env ?? process.env,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
    child.on('error', reject);
    child.on('close', (code, signal) =>
      resolve({
        code: code ?? (signal ? 128 : 1),
        stdout: Buffer.concat(stdout).toString('utf8'),
        stderr: Buffer.concat(stderr).toString('utf8'),
      }),
    );
    child.stdin.on('error', () => {});
    child.stdin.end(options.input ?? '');
  });
}

async function runOrThrow(
  command: string,
  args: readonly string[],
  options: { env?: NodeJS.ProcessEnv; cwd?: string } = {},
): Promise<string> {
  const result = await run(command, args, options);
  if (result.code !== 0) {
    const output = `${result.stderr}\n${result.stdout}`.trim().split('\n').slice(-20).join('\n');
    throw new Error(`${command} ${args.join(' ')} failed (exit ${result.code}):\n${output}`);
  }
  return result.stdout;
}

/** The first candidate that exists as a file, searching PATH for bare names. */
export function findExecutable(candidates: readonly (string | undefined)[]): string | undefined {
  const path = (process.env.PATH ?? '').split(delimiter).filter(Boolean);
  for (const candidate of candidates) {
    if (!candidate) continue;
    if (candidate.includes('/')) {
      if (existsSync(candidate)) return candidate;
      continue;
    }
    for (const dir of path) {
      const full = join(dir, candidate);
      if (existsSync(full)) return full;
    }
  }
  return undefined;
}

function need(name: string, candidates: readonly (string | undefined)[], why: string): string {
  const found = findExecutable(candidates);
  if (!found)
    throw new Error(`${name} was not found (looked for ${candidates.filter(Boolean).join(', ')}): ${why}`);
  return found;
}

function goCommand(): string {
  return need(
    'Go',
    [process.env.GOROOT ? join(process.env.GOROOT, 'bin', 'go') : undefined, 'go', '/usr/local/go/bin/go'],
    'it builds kustomize, kubeconform and promtool and fetches modules from the Go module proxy',
  );
}

function goEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return {
    ...process.env,
    // Modules are kept with the rest of the project's downloads; -modcacherw keeps them deletable.
    GOMODCACHE: join(deployCache(), 'go-mod'),
    GOFLAGS: '-mod=mod -modcacherw',
    CGO_ENABLED: '0',
    ...extra,
  };
}

/** Writes into a fresh temporary folder beside `target`, then moves it into place (safe if two race). */
function publishDir(target: string, fill: (dir: string) => void | Promise<void>): Promise<void> {
  const parent = join(target, '..');
  mkdirSync(parent, { recursive: true });
  const temp = mkdtempSync(join(parent, '.tmp-'));
  return Promise.resolve(fill(temp)).then(
    () => {
      try {
        renameSync(temp, target);
      } catch (error) {
        rmSync(temp, { recursive: true, force: true });
        if (!existsSync(target)) throw error;
      }
    },
    (error: unknown) => {
      rmSync(temp, { recursive: true, force: true });
      throw error;
    },
  );
}

/** Builds a Go command with `go install module@version` once; returns the cached binary. */
async function ensureGoTool(name: string, pkg: string, version: string, log: Log): Promise<string> {
  const dir = join(deployCache(), 'bin', `${name}-${version}`);
  const binary = join(dir, name);
  if (existsSync(binary)) return binary;
  const started = Date.now();
  log(`building ${name} ${version} from the Go module proxy (once)`);
  await publishDir(dir, async (temp) => {
    await runOrThrow(goCommand(), ['install', `${pkg}@${version}`], { env: goEnv({ GOBIN: temp }) });
    if (!existsSync(join(temp, name))) throw new Error(`go install ${pkg} made no ${name} binary`);
  });
  log(`built ${name} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return binary;
}

/** Downloads one module through the Go module proxy (cached) and returns its extracted folder. */
export async function goModuleDir(module: string, version: string): Promise<string> {
  const out = await runOrThrow(goCommand(), ['mod', 'download', '-json', `${module}@${version}`], {
    env: goEnv(),
    cwd: deployCache(),
  });
  const info = JSON.parse(out) as { Dir?: string; Error?: string };
  if (!info.Dir) throw new Error(`go mod download ${module}@${version}: ${info.Error ?? 'no folder'}`);
  return info.Dir;
}

/** Fetches a jar from Maven Central with Maven (cached in the project's cache) and returns its path. */
export async function mavenJar(group: string, artifact: string, version: string): Promise<string> {
  const repository = join(deployCache(), 'm2');
  const jar = join(repository, ...group.split('.'), artifact, version, `${artifact}-${version}.jar`);
  if (existsSync(jar)) return jar;
  const mvn = need('Maven', ['mvn'], `it fetches ${group}:${artifact} from Maven Central`);
  await runOrThrow(mvn, [
    '-q',
    '-B',
    `-Dmaven.repo.local=${repository}`,
    'dependency:get',
    `-Dartifact=${group}:${artifact}:${version}`,
    '-Dtransitive=false',
  ]);
  if (!existsSync(jar))
    throw new Error(`Maven fetched ${group}:${artifact}:${version} but ${jar} is missing`);
  return jar;
}

/** The text `javap -v` prints for one class of a jar. */
export async function javap(jar: string, className: string): Promise<string> {
  const javaHome = process.env.JAVA_HOME;
  const command = need(
    'javap (a JDK)',
    [javaHome ? join(javaHome, 'bin', 'javap') : undefined, 'javap'],
    "it reads Strimzi's API model",
  );
  return runOrThrow(command, ['-v', '-cp', jar, className]);
}

/** The strict JSON schemas for kubeconform, generated once per set of versions. */
async function ensureSchemas(log: Log): Promise<string> {
  const v = toolVersions;
  const key = `k8s-${v.kubernetes}_po-${v.prometheusOperator}_strimzi-${v.strimzi}_g${schemaGeneratorVersion}`;
  const root = join(deployCache(), 'schemas', key);
  const folder = `v${v.kubernetes}-standalone-strict`;
  if (existsSync(join(root, folder, 'deployment-apps-v1.json'))) return root;
  const started = Date.now();
  log(`generating the Kubernetes ${v.kubernetes} JSON schemas (once)`);
  const files: SchemaFiles = new Map();

  const kubernetes = await goModuleDir('k8s.io/kubernetes', `v${v.kubernetes}`);
  const swagger = JSON.parse(
    readFileSync(join(kubernetes, 'api', 'openapi-spec', 'swagger.json'), 'utf8'),
  ) as Swagger;
  for (const [name, schema] of kubernetesSchemaFiles(swagger)) files.set(name, schema);

  const operator = await goModuleDir(
    'github.com/prometheus-operator/prometheus-operator',
    v.prometheusOperator,
  );
  for (const kind of ['servicemonitors', 'prometheusrules']) {
    const crdFile = join(
      operator,
      'example',
      'prometheus-operator-crd',
      `monitoring.coreos.com_${kind}.yaml`,
    );
    const crd = parseYaml(readFileSync(crdFile, 'utf8')) as CustomResourceDefinition;
    for (const [name, schema] of crdSchemaFiles(crd, swagger)) files.set(name, schema);
  }

  const strimzi = await mavenJar('io.strimzi', 'api', v.strimzi);
  const topicClass = await javap(strimzi, 'io.strimzi.api.kafka.model.topic.KafkaTopic');
  const topicSpecClass = await javap(strimzi, 'io.strimzi.api.kafka.model.topic.KafkaTopicSpec');
  for (const [name, schema] of strimziSchemaFiles(topicClass, topicSpecClass, ['v1beta2'], swagger)) {
    files.set(name, schema);
  }

  await publishDir(root, (temp) => {
    mkdirSync(join(temp, folder));
    for (const [name, schema] of files) writeFileSync(join(temp, folder, name), JSON.stringify(schema));
  });
  log(`generated ${files.size} schemas in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return root;
}

/**
 * Prometheus's server, of the same release as promtool (the two share their modules, so the second
 * build takes about a minute): the end-to-end tests scrape a running pipeline with it and ask it every
 * dashboard query and alerting rule.
 */
export function ensurePrometheus(log: Log = () => {}): Promise<string> {
  mkdirSync(deployCache(), { recursive: true });
  return ensureGoTool(
    'prometheus',
    'github.com/prometheus/prometheus/cmd/prometheus',
    toolVersions.prometheus,
    log,
  );
}

/**
 * kustomize alone, built on first use and cached as `ensureTools` builds it: for what renders an overlay
 * without validating it (the end-to-end tests start a pod's container from its rendered Deployment).
 */
export function ensureKustomize(log: Log = () => {}): Promise<string> {
  mkdirSync(deployCache(), { recursive: true });
  return ensureGoTool('kustomize', 'sigs.k8s.io/kustomize/kustomize/v5', toolVersions.kustomize, log);
}

/** kustomize, kubeconform, promtool and the schemas: fetched and built on first use, cached afterwards. */
export async function ensureTools(log: Log = () => {}): Promise<Tools> {
  mkdirSync(deployCache(), { recursive: true });
  // Side by side: the downloads of one overlap the compilation of another.
  const [kustomize, promtool, [kubeconform, schemaDir]] = await Promise.all([
    ensureKustomize(log),
    ensureGoTool('promtool', 'github.com/prometheus/prometheus/cmd/promtool', toolVersions.prometheus, log),
    (async () => {
      const binary = await ensureGoTool(
        'kubeconform',
        'github.com/yannh/kubeconform/cmd/kubeconform',
        toolVersions.kubeconform,
        log,
      );
      return [binary, await ensureSchemas(log)] as const;
    })(),
  ]);
  return { kustomize, kubeconform, promtool, schemaDir, kubernetesVersion: toolVersions.kubernetes };
}
