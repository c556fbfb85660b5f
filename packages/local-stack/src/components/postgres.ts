import { type ExecFileSyncOptionsWithStringEncoding, execFileSync } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  rmSync,
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
import { StackError } from '../errors.ts';
import { postgresAnswers } from '../health.ts';
import {
  type CommandResult,
  killProcess,
  processAlive,
  readPidFile,
  runCommand,
  tailFile,
} from '../process.ts';
import { type Component, processMarker } from './component.ts';

const runningAsRoot = process.getuid?.() === 0;
const startTimeoutMs = 60_000;
/** The largest threshold PostgreSQL takes: a table is analyzed automatically after that many changes. */
const noAutoAnalyze = 2_147_483_647;

/**
 * Debian keeps the server's programs off PATH, in a folder per major version. Found by the usual
 * folder, then by asking dpkg, then pg_config (only when it reports the same major version).
 */
export function findPostgresBindir(): string | undefined {
  const usual = `/usr/lib/postgresql/${versions.postgres}/bin`;
  if (existsSync(join(usual, 'initdb'))) return usual;
  const quiet: ExecFileSyncOptionsWithStringEncoding = {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
  };
  try {
    const files = execFileSync('dpkg', ['-L', `postgresql-${versions.postgres}`], quiet);
    const initdb = files.split('\n').find((line) => line.endsWith('/bin/initdb'));
    if (initdb) return initdb.slice(0, -'/initdb'.length);
  } catch {
    // Not a Debian system, or the package is not installed.
  }
  try {
    const version = execFileSync('pg_config', ['--version'], quiet);
    const bindir = execFileSync('pg_config', ['--bindir'], quiet).trim();
    if (version.includes(` ${versions.postgres}.`) && existsSync(join(bindir, 'initdb'))) return bindir;
  } catch {
    // No pg_config either.
  }
  return undefined;
}

function requireBindir(): string {
  const bindir = findPostgresBindir();
  if (!bindir) {
    throw new StackError(
      'tool_missing',
      `PostgreSQL ${versions.postgres} is not installed (no initdb found)`,
    );
  }
  return bindir;
}

function postgresAccount(): { uid: number; gid: number } {
  const line = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((entry) => entry.startsWith('postgres:'));
  const fields = line?.split(':');
  if (!fields || fields[2] === undefined || fields[3] === undefined) {
    throw new StackError('tool_missing', 'there is no postgres user to run the server as');
  }
  return { uid: Number(fields[2]), gid: Number(fields[3]) };
}

/** PostgreSQL refuses to run as root; as root the stack runs it as the postgres user. */
function runAsServerUser(command: string, args: readonly string[], env: NodeJS.ProcessEnv) {
  if (runningAsRoot) return runCommand('runuser', ['-u', 'postgres', '--', command, ...args], { env });
  return runCommand(command, args, { env });
}

/** Hands a path we created to the server's user, so it can write there. */
function giveToServerUser(path: string): void {
  if (!runningAsRoot) return;
  const { uid, gid } = postgresAccount();
  chownSync(path, uid, gid);
}

function failed(what: string, result: CommandResult, logFile?: string): StackError {
  const log = logFile ? `\n--- ${logFile} (last lines)\n${tailFile(logFile)}` : '';
  return new StackError('start_failed', `${what} failed (exit ${result.code}):\n${result.output}${log}`);
}

function postmasterPidFile(config: StackConfig): string {
  return join(componentDataDir(config, 'postgres'), 'postmaster.pid');
}

export const postgresComponent: Component = {
  name: 'postgres',
  ports: (config) => [config.ports.postgres],
  startTimeoutMs,

  async prepare(context) {
    if (findPostgresBindir()) {
      context.cached('install');
      return;
    }
    if (!runningAsRoot) {
      throw new StackError(
        'tool_missing',
        `PostgreSQL ${versions.postgres} is not installed; install postgresql-${versions.postgres} (as root: apt-get install -y postgresql-${versions.postgres})`,
      );
    }
    await context.time('install', async () => {
      const env = { ...context.config.env, DEBIAN_FRONTEND: 'noninteractive' };
      const args = ['install', '-y', '--no-install-recommends', `postgresql-${versions.postgres}`];
      let result = await runCommand('apt-get', args, { env });
      if (result.code !== 0) {
        // A fresh machine may not have package lists yet.
        await runCommand('apt-get', ['update'], { env });
        result = await runCommand('apt-get', args, { env });
      }
      if (result.code !== 0 || !findPostgresBindir()) {
        throw new StackError('tool_missing', `apt-get could not install PostgreSQL:\n${result.output}`);
      }
    });
  },

  async start(context) {
    const { config } = context;
    const bindir = requireBindir();
    const dataDir = componentDataDir(config, 'postgres');
    const logFile = componentLogFile(config, 'postgres');
    // Outside the data folder: initdb wants an empty folder, and the marker must not be in what it wipes.
    const initialised = join(config.dataDir, 'postgres.initialised');

    if (!existsSync(initialised)) {
      await context.time('initdb', async () => {
        rmSync(dataDir, { recursive: true, force: true });
        mkdirSync(dataDir, { recursive: true });
        chmodSync(dataDir, 0o700);
        giveToServerUser(dataDir);
        const reach = await runAsServerUser('test', ['-w', dataDir], config.env);
        if (reach.code !== 0) {
          throw new StackError(
            'start_failed',
            `the postgres user cannot write ${dataDir}; every folder above it must be searchable by others (chmod o+x)`,
          );
        }
        const result = await runAsServerUser(
          join(bindir, 'initdb'),
          ['-D', dataDir, '-A', 'trust', '-U', 'postgres', '-E', 'UTF8', '--no-sync'],
          config.env,
        );
        if (result.code !== 0) throw failed('initdb', result);
        writeFileSync(initialised, `${new Date().toISOString()}\n`);
      });
    }

    closeSync(openSync(logFile, 'a'));
    giveToServerUser(logFile);
    // TCP on 127.0.0.1 only, and no Unix socket: its path would depend on how deep the stack folder is.
    // Room for FerretDB's pool (ferretdb.ts) and a few administrative connections.
    // No automatic ANALYZE: FerretDB's statements are planned with their parameters and without
    // sequential scans (ferretdb-indexes.ts), so a filter takes the index that serves it whatever the
    // statistics say, and gathering them costs much: about a second of a core for each ANALYZE of a
    // large collection, run again each time a tenth of it has changed (bench/HISTORY.md). Autovacuum
    // itself still runs.
    const serverOptions = `-p ${config.ports.postgres} -c listen_addresses=127.0.0.1 -c unix_socket_directories='' -c max_connections=300 -c autovacuum_analyze_threshold=${noAutoAnalyze}`;
    // pg_ctl detaches the server itself (its own session) and waits until it accepts connections.
    const result = await runAsServerUser(
      join(bindir, 'pg_ctl'),
      ['-D', dataDir, '-l', logFile, '-o', serverOptions, '-w', '-t', String(startTimeoutMs / 1000), 'start'],
      config.env,
    );
    if (result.code !== 0) throw failed('pg_ctl start', result, logFile);
    const pid = readPidFile(postmasterPidFile(config));
    if (pid === undefined) throw failed('pg_ctl start (no postmaster.pid)', result, logFile);
    return { pid, exited: new Promise<never>(() => {}) };
  },

  answers: (config, timeoutMs) => postgresAnswers(requireBindir(), config.ports.postgres, timeoutMs),

  readPid: (config) =>
    readPidFile(postmasterPidFile(config)) ?? readPidFile(componentPidFile(config, 'postgres')),

  async stop(config, pid, force) {
    const marker = processMarker(config);
    if (!processAlive(pid, marker)) return 'not-running';
    const bindir = findPostgresBindir();
    if (bindir) {
      // fast: roll back open transactions and stop now; immediate: no shutdown checkpoint, for a wedged server.
      const mode = force ? 'immediate' : 'fast';
      const dataDir = componentDataDir(config, 'postgres');
      await runAsServerUser(
        join(bindir, 'pg_ctl'),
        ['-D', dataDir, '-m', mode, '-w', '-t', '30', 'stop'],
        config.env,
      ).catch(() => undefined);
      if (!processAlive(pid, marker)) return 'stopped';
    }
    if (await killProcess(pid, marker)) return 'killed';
    throw new StackError('stop_failed', `postgres (pid ${pid}) is still running after SIGKILL`);
  },
};
