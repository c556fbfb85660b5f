import { spawn } from 'node:child_process';

export interface ProcessResult {
  /** The exit code; 128 for a process ended by a signal. */
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
  /** stdout and stderr as they came, interleaved. */
  readonly output: string;
}

/**
 * Runs a program to its end (SIGKILL after `timeoutMs`, default 10 min); rejects only when it cannot
 * be started.
 */
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
    let stdout = '';
    let stderr = '';
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      output += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
      output += chunk;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 600_000);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(new Error(`${command} could not be started: ${error.message}`));
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code: code ?? (signal ? 128 : 1), stdout, stderr, output });
    });
  });
}
