import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import {
  componentDataDir,
  componentLogFile,
  componentPidFile,
  type StackConfig,
  versions,
} from '../config.ts';
import { endpointsFor } from '../env-file.ts';
import { StackError } from '../errors.ts';
import { mongoAnswers } from '../health.ts';
import { readPidFile, runCommand, spawnDetached, stopProcess } from '../process.ts';
import { type Component, cachedStep, processMarker } from './component.ts';
import { ginTwinsSql } from './ferretdb-indexes.ts';
import { findPostgresBindir } from './postgres.ts';

/** PostgreSQL connections FerretDB may hold (see the start command). */
export const ferretdbPoolSize = 250;

/**
 * Go's garbage collector target for FerretDB, unless the environment sets `GOGC`. FerretDB allocates
 * for every document it converts, and at Go's default (100) its collector took about a sixth of its CPU:
 * at 400 it spent 0.6-0.7 ms less of a debit (3.3-3.7 ms against 3.9-4.4 in alternating runs at 40
 * debits/s) for a resident set of 170-190 MB instead of 83-94 MB (bench/HISTORY.md).
 */
export const ferretdbGogc = '400';

/** FerretDB's environment: the stack's, with `GOGC` at `ferretdbGogc` unless the stack's sets it. */
export function ferretdbEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return env.GOGC === undefined || env.GOGC === '' ? { ...env, GOGC: ferretdbGogc } : env;
}

const modulePath = 'github.com/FerretDB/FerretDB';
const moduleVersion = `v${versions.ferretdb}`;
/** The database inside PostgreSQL that holds every MongoDB database FerretDB serves. */
export const backendDatabase = 'ferretdb';

function ferretHome(config: StackConfig): string {
  return join(config.cacheDir, `ferretdb-${versions.ferretdb}`);
}

function binary(config: StackConfig): string {
  return join(ferretHome(config), 'ferretdb');
}

/** Go's module cache is read-only; a copy we build in must be writable. */
function makeWritable(path: string): void {
  const stats = statSync(path);
  chmodSync(path, stats.mode | 0o200);
  if (stats.isDirectory()) for (const entry of readdirSync(path)) makeWritable(join(path, entry));
}

/** The module folder from `go mod download -json`, whose JSON may share the output with progress lines. */
function downloadedDir(output: string): string | undefined {
  const json = output.slice(output.indexOf('{'), output.lastIndexOf('}') + 1);
  try {
    return (JSON.parse(json) as { Dir?: string }).Dir;
  } catch {
    return undefined;
  }
}

function goEnv(config: StackConfig): NodeJS.ProcessEnv {
  // local toolchain only: fetching another Go is not possible here; no cgo: nothing in FerretDB needs a C compiler.
  return { ...config.env, GOFLAGS: '-buildvcs=false', GOTOOLCHAIN: 'local', CGO_ENABLED: '0' };
}

export const ferretdbComponent: Component = {
  name: 'ferretdb',
  dependsOn: 'postgres',
  ports: (config) => [config.ports.mongo],
  startTimeoutMs: 60_000,

  /**
   * `go install module@version` is refused by the module proxy (it asks for the version list), so the
   * module is downloaded by exact version in a throw-away module, copied out of the module cache and
   * built there. The build reads its version from build/version/version.txt and panics when it is empty.
   */
  async prepare(context) {
    const { config } = context;
    await cachedStep(context, 'download+build', ferretHome(config), async (dir) => {
      const env = goEnv(config);
      const source = join(dir, 'src');
      await context.time('download', async () => {
        const fetchModule = join(dir, 'fetch');
        mkdirSync(fetchModule, { recursive: true });
        writeFileSync(join(fetchModule, 'go.mod'), 'module local.stack/ferretdb-fetch\n\ngo 1.22\n');
        const result = await runCommand(
          'go',
          ['mod', 'download', '-json', `${modulePath}@${moduleVersion}`],
          {
            cwd: fetchModule,
            env,
          },
        );
        const moduleDir = result.code === 0 ? downloadedDir(result.output) : undefined;
        if (!moduleDir || !existsSync(moduleDir)) {
          throw new StackError(
            'download_failed',
            `go could not download ${modulePath}@${moduleVersion}:\n${result.output}`,
          );
        }
        cpSync(moduleDir, source, { recursive: true });
        makeWritable(source);
        rmSync(fetchModule, { recursive: true, force: true });
        writeFileSync(join(source, 'build', 'version', 'version.txt'), `${moduleVersion}\n`);
      });
      await context.time('build', async () => {
        const result = await runCommand('go', ['build', '-o', binary(config), './cmd/ferretdb'], {
          cwd: source,
          env,
        });
        if (result.code !== 0 || !existsSync(binary(config))) {
          throw new StackError('build_failed', `go build of FerretDB failed:\n${result.output}`);
        }
        const check = await runCommand(binary(config), ['--version'], { env });
        if (check.code !== 0 || !check.output.includes(moduleVersion)) {
          throw new StackError(
            'build_failed',
            `the built FerretDB does not report ${moduleVersion}:\n${check.output}`,
          );
        }
      });
    });
  },

  async start(context) {
    const { config } = context;
    const postgresUrl = `postgres://postgres@127.0.0.1:${config.ports.postgres}`;
    const bindir = findPostgresBindir();
    if (!bindir) throw new StackError('tool_missing', 'PostgreSQL is not installed');
    const psql = (sql: string, database = 'postgres') =>
      runCommand(
        join(bindir, 'psql'),
        ['-X', '-v', 'ON_ERROR_STOP=1', `${postgresUrl}/${database}`, '-tAc', sql],
        { env: config.env },
      );
    const exists = await psql(`select 1 from pg_database where datname = '${backendDatabase}'`);
    if (exists.code !== 0) throw new StackError('start_failed', `psql failed:\n${exists.output}`);
    if (exists.output.trim() !== '1') {
      const created = await psql(`create database ${backendDatabase}`);
      if (created.code !== 0)
        throw new StackError('start_failed', `could not create the database:\n${created.output}`);
    }
    const twins = await psql(ginTwinsSql(backendDatabase), backendDatabase);
    if (twins.code !== 0) {
      throw new StackError('start_failed', `could not set up the index twins:\n${twins.output}`);
    }
    const stateDir = componentDataDir(config, 'ferretdb');
    mkdirSync(stateDir, { recursive: true });
    return spawnDetached(
      binary(config),
      [
        '--handler=postgresql',
        // FerretDB's pool defaults to 50 connections, and an operation can hold one while it waits for
        // another (its metadata): with dozens of clients at once (a pipeline's seven services and the
        // tests beside them) all 50 ended up held and the server stopped answering. PostgreSQL is
        // started with room for this pool (postgres.ts).
        `--postgresql-url=${postgresUrl}/${backendDatabase}?pool_max_conns=${ferretdbPoolSize}`,
        `--listen-addr=127.0.0.1:${config.ports.mongo}`,
        `--state-dir=${stateDir}`,
        '--debug-addr=-',
        '--telemetry=disable',
        '--log-level=info',
      ],
      { cwd: stateDir, env: ferretdbEnv(config.env), logFile: componentLogFile(config, 'ferretdb') },
    );
  },

  answers: (config, timeoutMs) => mongoAnswers(endpointsFor(config.ports).mongodbUri, timeoutMs),
  readPid: (config) => readPidFile(componentPidFile(config, 'ferretdb')),
  stop: (config, pid, force) => stopProcess(pid, processMarker(config), force ? 0 : 10_000),
};
