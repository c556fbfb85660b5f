import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { StackError } from './errors.ts';

/** Start order: a component comes after the one it depends on. */
export const componentNames = ['postgres', 'ferretdb', 'kafka', 'registry'] as const;
export type ComponentName = (typeof componentNames)[number];

export const versions = {
  kafka: '3.9.1',
  apicurio: '3.3.3',
  ferretdb: '1.24.2',
  postgres: '15',
} as const;

export interface StackPorts {
  kafka: number;
  kafkaController: number;
  registry: number;
  postgres: number;
  mongo: number;
}

export const defaultPorts: StackPorts = {
  kafka: 19092,
  kafkaController: 19093,
  registry: 18081,
  postgres: 15432,
  mongo: 27018,
};

/** Env variable for each port; two stacks coexist when every one of these differs. */
export const portVariables: Record<keyof StackPorts, string> = {
  kafka: 'RP_STACK_KAFKA_PORT',
  kafkaController: 'RP_STACK_KAFKA_CONTROLLER_PORT',
  registry: 'RP_STACK_REGISTRY_PORT',
  postgres: 'RP_STACK_POSTGRES_PORT',
  mongo: 'RP_STACK_MONGO_PORT',
};

export interface StackOptions {
  /** Where data, pid files and logs go. Default `<repo>/.local/stack`, or RP_STACK_DIR. */
  stackDir?: string;
  /** Downloads and builds shared across clones. Default RP_CACHE_DIR, else the user's cache dir. */
  cacheDir?: string;
  /** Port overrides; win over the RP_STACK_*_PORT variables. */
  ports?: Partial<StackPorts>;
  /** Variables to read settings from (default process.env). */
  env?: NodeJS.ProcessEnv;
  /** Where progress lines go (default stderr). */
  log?: (line: string) => void;
}

export interface StackConfig {
  stackDir: string;
  cacheDir: string;
  /** The dotenv file that tells tests and services where the stack is. */
  envFile: string;
  dataDir: string;
  logDir: string;
  runDir: string;
  lockFile: string;
  ports: StackPorts;
  /** Variables handed to the tools the stack runs (mvn, go, java). */
  env: NodeJS.ProcessEnv;
}

/**
 * Reads ports from the environment and the caller's overrides. A port that is not a whole number in
 * 1..65535, or two components on one port, is a configuration mistake and fails at once rather than
 * surfacing later as a component that "does not answer".
 */
export function parsePorts(env: NodeJS.ProcessEnv, overrides: Partial<StackPorts> = {}): StackPorts {
  const ports = { ...defaultPorts };
  for (const key of Object.keys(defaultPorts) as (keyof StackPorts)[]) {
    const variable = portVariables[key];
    const fromOverride = overrides[key];
    const raw = fromOverride === undefined ? env[variable]?.trim() : String(fromOverride);
    if (raw === undefined || raw === '') continue;
    if (!/^\d+$/.test(raw) || Number(raw) < 1 || Number(raw) > 65535) {
      throw new StackError('config_invalid', `${variable}=${raw} is not a TCP port (1-65535)`);
    }
    ports[key] = Number(raw);
  }
  const seen = new Map<number, keyof StackPorts>();
  for (const key of Object.keys(ports) as (keyof StackPorts)[]) {
    const other = seen.get(ports[key]);
    if (other !== undefined) {
      throw new StackError(
        'config_invalid',
        `${portVariables[other]} and ${portVariables[key]} are both ${ports[key]}; each component needs its own port`,
      );
    }
    seen.set(ports[key], key);
  }
  return ports;
}

/** The shared cache: `${RP_CACHE_DIR:-${XDG_CACHE_HOME:-~/.cache}/regulated-payments}`. */
export function cacheDirFrom(env: NodeJS.ProcessEnv, home: string = homedir()): string {
  const explicit = env.RP_CACHE_DIR?.trim();
  if (explicit) return resolve(explicit);
  const xdg = env.XDG_CACHE_HOME?.trim();
  const base = xdg && isAbsolute(xdg) ? xdg : join(home, '.cache');
  return join(base, 'regulated-payments');
}

/** The repository root: the nearest folder above `start` whose package.json declares workspaces. */
export function findRepoRoot(start: string): string | undefined {
  let dir = resolve(start);
  for (;;) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest)) {
      try {
        const parsed = JSON.parse(readFileSync(manifest, 'utf8')) as { workspaces?: unknown };
        if (parsed.workspaces !== undefined) return dir;
      } catch {
        // An unreadable manifest is not the root; keep walking up.
      }
    }
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

const packageDir = dirname(dirname(fileURLToPath(import.meta.url)));

export function resolveStackConfig(options: StackOptions = {}): StackConfig {
  const env = options.env ?? process.env;
  const ports = parsePorts(env, options.ports);
  const explicitDir = options.stackDir ?? env.RP_STACK_DIR?.trim();
  let stackDir: string;
  let envFile: string;
  if (explicitDir) {
    // A stack outside the repository keeps its dotenv inside its own folder, so a second stack (a
    // test's, say) never overwrites the file the shared stack's users read.
    stackDir = resolve(explicitDir);
    envFile = join(stackDir, 'stack.env');
  } else {
    const root = findRepoRoot(packageDir);
    if (!root) {
      throw new StackError(
        'config_invalid',
        `no package.json with "workspaces" above ${packageDir}; set RP_STACK_DIR to choose where the stack lives`,
      );
    }
    stackDir = join(root, '.local', 'stack');
    envFile = join(root, '.local', 'stack.env');
  }
  return {
    stackDir,
    cacheDir: options.cacheDir ? resolve(options.cacheDir) : cacheDirFrom(env),
    envFile,
    dataDir: join(stackDir, 'data'),
    logDir: join(stackDir, 'logs'),
    runDir: join(stackDir, 'run'),
    lockFile: join(stackDir, 'up.lock'),
    ports,
    env,
  };
}

export function componentLogFile(config: StackConfig, name: ComponentName): string {
  return join(config.logDir, `${name}.log`);
}

export function componentDataDir(config: StackConfig, name: ComponentName): string {
  return join(config.dataDir, name);
}

export function componentPidFile(config: StackConfig, name: ComponentName): string {
  return join(config.runDir, `${name}.pid`);
}
