import { spawn } from 'node:child_process';
import {
  closeSync,
  lstatSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  statSync,
  writeSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';

export interface CommandResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** The last part of what the command printed, stdout and stderr interleaved. */
  output: string;
}

export interface CommandOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  timeoutMs?: number;
}

const keptOutputChars = 64_000;

/** Runs a command to completion and keeps the tail of its output for error messages. */
export function runCommand(command: string, args: readonly string[], options: CommandOptions = {}) {
  return new Promise<CommandResult>((resolvePromise, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: options.env ?? process.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const keep = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      if (output.length > keptOutputChars * 2) output = output.slice(-keptOutputChars);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    const timer =
      options.timeoutMs === undefined
        ? undefined
        : setTimeout(() => child.kill('SIGKILL'), options.timeoutMs).unref();
    child.on('error', (error) => {
      if (timer) clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code, signal) => {
      if (timer) clearTimeout(timer);
      resolvePromise({ code, signal, output: output.slice(-keptOutputChars) });
    });
  });
}

/** True when `command` can be found on PATH (or is an executable path). */
export async function commandExists(command: string, env: NodeJS.ProcessEnv = process.env): Promise<boolean> {
  try {
    const result = await runCommand('sh', ['-c', `command -v "$0" >/dev/null`, command], { env });
    return result.code === 0;
  } catch {
    return false;
  }
}

export interface DetachedProcess {
  pid: number;
  /** Resolves when the process ends, if it ends while this process still watches it. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * Starts a server that outlives the launcher: its own process group, output appended to its log,
 * nothing tying it to this process's event loop.
 */
export function spawnDetached(
  command: string,
  args: readonly string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; logFile: string },
): Promise<DetachedProcess> {
  const log = openSync(options.logFile, 'a');
  writeSync(log, `\n=== ${new Date().toISOString()} starting: ${command} ${args.join(' ')}\n`);
  return new Promise((resolvePromise, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: options.env,
      detached: true,
      stdio: ['ignore', log, log],
    });
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((onExit) => {
      child.on('exit', (code, signal) => onExit({ code, signal }));
    });
    child.once('error', (error) => {
      closeSync(log);
      reject(error);
    });
    child.once('spawn', () => {
      closeSync(log);
      child.unref();
      if (child.pid === undefined) reject(new Error(`${command} started without a pid`));
      else resolvePromise({ pid: child.pid, exited });
    });
  });
}

/**
 * Whether `pid` is a live process whose command line contains `marker` (the stack's own folder).
 * The marker guards against a recycled pid: after a reboot the number may belong to anything. A
 * zombie has an empty command line, so a killed child that was not reaped yet counts as dead.
 */
export function processAlive(pid: number, marker: string): boolean {
  try {
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    return cmdline.includes(marker);
  } catch {
    return false;
  }
}

export async function waitForExit(pid: number, marker: string, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (processAlive(pid, marker)) {
    if (Date.now() >= deadline) return false;
    await delay(100);
  }
  return true;
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
  }
}

/** SIGTERM, then SIGKILL when the process has not gone within `graceMs`. Returns how it ended. */
export async function stopProcess(
  pid: number,
  marker: string,
  graceMs: number,
): Promise<'not-running' | 'stopped' | 'killed'> {
  if (!processAlive(pid, marker)) return 'not-running';
  signal(pid, 'SIGTERM');
  if (await waitForExit(pid, marker, graceMs)) return 'stopped';
  signal(pid, 'SIGKILL');
  if (await waitForExit(pid, marker, 10_000)) return 'killed';
  throw new Error(`process ${pid} is still running after SIGKILL`);
}

export function killProcess(pid: number, marker: string): Promise<boolean> {
  if (!processAlive(pid, marker)) return Promise.resolve(true);
  signal(pid, 'SIGKILL');
  return waitForExit(pid, marker, 10_000);
}

/** Resident memory in kB from /proc/<pid>/status, or undefined when the process is gone. */
/**
 * The disk a folder and everything below it take, in kB (allocated blocks, as `du` counts them; links
 * are not followed); undefined when there is no such folder. A file removed during the walk is skipped.
 */
export function diskUsageKb(path: string): number | undefined {
  let top: ReturnType<typeof lstatSync>;
  try {
    top = lstatSync(path);
  } catch {
    return undefined;
  }
  let blocks = top.blocks;
  const pending = top.isDirectory() ? [path] : [];
  while (pending.length > 0) {
    const dir = pending.pop() as string;
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      continue;
    }
    for (const name of names) {
      const entry = join(dir, name);
      try {
        const stat = lstatSync(entry);
        blocks += stat.blocks;
        if (stat.isDirectory()) pending.push(entry);
      } catch {
        // gone since it was listed
      }
    }
  }
  return Math.round((blocks * 512) / 1024);
}

export function residentKb(pid: number): number | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
    return match?.[1] === undefined ? undefined : Number(match[1]);
  } catch {
    return undefined;
  }
}

/**
 * The whole lines in the last `bytes` of a file (a line the window cuts left out, empty lines dropped),
 * read from its end so a large log costs little. Throws when the file cannot be opened.
 */
export function lastLines(path: string, bytes = 64 * 1024): string[] {
  const fd = openSync(path, 'r');
  try {
    const size = statSync(path).size;
    // One byte more than the window: whether the window's first line starts whole.
    const length = Math.min(size, bytes + 1);
    const buffer = Buffer.alloc(length);
    let read = 0;
    while (read < length) {
      const n = readSync(fd, buffer, read, length - read, size - length + read);
      if (n === 0) break;
      read += n;
    }
    const text = buffer.subarray(0, read).toString('utf8');
    const whole = length < size ? text.slice(text.indexOf('\n') + 1) : text;
    return whole.split('\n').filter((line) => line.length > 0);
  } finally {
    closeSync(fd);
  }
}

/** The last `lines` lines of a log, or a note that there is none. */
export function tailFile(path: string, lines = 40): string {
  try {
    return lastLines(path).slice(-lines).join('\n').trimEnd();
  } catch {
    return `(no log at ${path})`;
  }
}

/** True when nothing listens on 127.0.0.1:`port`, found by trying to listen there ourselves. */
export function portFree(port: number): Promise<boolean> {
  return new Promise((resolvePromise) => {
    const server = createServer();
    server.once('error', () => resolvePromise(false));
    server.listen({ port, host: '127.0.0.1', exclusive: true }, () => {
      server.close(() => resolvePromise(true));
    });
  });
}

export function readPidFile(path: string): number | undefined {
  try {
    const text = readFileSync(path, 'utf8').trim().split('\n')[0] ?? '';
    return /^\d+$/.test(text) ? Number(text) : undefined;
  } catch {
    return undefined;
  }
}

export { delay };
