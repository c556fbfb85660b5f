import { spawn } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { root } from './pipeline.ts';

/** The schemathesis release the suite runs (from PyPI), pinned so a run today and one next month agree. */
export const schemathesisVersion = '4.32.5';

export interface ProcessResult {
  readonly code: number;
  readonly output: string;
}

/** Runs a program to its end, stdout and stderr together; rejects only when it cannot be started. */
export function runProgram(
  command: string,
  args: readonly string[],
  options: { env?: NodeJS.ProcessEnv; timeoutMs?: number } = {},
): Promise<ProcessResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      env: options.env ?? process.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const collect = (chunk: string) => {
      output += chunk;
    };
    child.stdout.setEncoding('utf8').on('data', collect);
    child.stderr.setEncoding('utf8').on('data', collect);
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 600_000);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(new Error(`${command} could not be started: ${error.message}`));
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code: code ?? (signal ? 128 : 1), output });
    });
  });
}

/**
 * The `st` program of the pinned schemathesis, installed once into a virtual environment under the
 * project's `.local/tools` (Python 3 with venv is all it needs; PyPI is reached by pip).
 */
export async function schemathesis(): Promise<string> {
  const venv = join(root, '.local', 'tools', `schemathesis-${schemathesisVersion}`);
  const st = join(venv, 'bin', 'st');
  if (existsSync(st)) return st;
  mkdirSync(join(root, '.local', 'tools'), { recursive: true });
  const python = process.env.PYTHON ?? 'python3';
  const created = await runProgram(python, ['-m', 'venv', venv]);
  if (created.code !== 0) {
    throw new Error(`${python} -m venv failed (schemathesis needs Python 3 with venv):\n${created.output}`);
  }
  const pip = join(venv, 'bin', 'pip');
  const installed = await runProgram(pip, [
    'install',
    '--quiet',
    '--disable-pip-version-check',
    `schemathesis==${schemathesisVersion}`,
  ]);
  if (installed.code !== 0 || !existsSync(st)) {
    throw new Error(`pip could not install schemathesis ${schemathesisVersion}:\n${installed.output}`);
  }
  return st;
}
