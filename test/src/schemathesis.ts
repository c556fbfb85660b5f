import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { root } from './pipeline.ts';
import { runProgram } from './process.ts';

/** The schemathesis release the suite runs (from PyPI), pinned so a run today and one next month agree. */
export const schemathesisVersion = '4.32.5';

export interface Schemathesis {
  /** The `st` program. */
  readonly program: string;
  /** The interpreter's version, as `major.minor.micro`. */
  readonly python: string;
  /** How many worker threads a run may use on this interpreter (see `threadSafeAst`). */
  readonly workers: number;
}

/**
 * Whether the interpreter parses Python source safely from several threads at once. CPython 3.11.0 to
 * 3.11.7 and 3.12.0 to 3.12.1 keep the AST constructor's recursion depth in state shared between
 * threads, so two threads parsing at once can fail with "SystemError: AST constructor recursion depth
 * mismatch" (CPython gh-106905, fixed in 3.11.8, 3.12.2 and 3.13). Hypothesis parses source while it
 * generates data, so schemathesis's worker threads meet it at random, whatever the seed.
 */
export function threadSafeAst(version: string): boolean {
  const [major = 0, minor = 0, micro = 0] = version.split('.').map(Number);
  if (major !== 3) return true;
  if (minor === 11) return micro >= 8;
  if (minor === 12) return micro >= 2;
  return true;
}

/**
 * The `st` program of the pinned schemathesis, installed once into a virtual environment under the
 * project's `.local/tools` (Python 3 with venv is all it needs; PyPI is reached by pip).
 */
export async function schemathesis(): Promise<Schemathesis> {
  const venv = join(root, '.local', 'tools', `schemathesis-${schemathesisVersion}`);
  const st = join(venv, 'bin', 'st');
  if (!existsSync(st)) await install(venv, st);
  const asked = await runProgram(join(venv, 'bin', 'python'), [
    '-c',
    'import sys; print("%d.%d.%d" % sys.version_info[:3])',
  ]);
  const python = asked.stdout.trim();
  if (asked.code !== 0 || !/^\d+\.\d+\.\d+$/.test(python)) {
    throw new Error(`the schemathesis environment's Python did not say its version:\n${asked.output}`);
  }
  return { program: st, python, workers: threadSafeAst(python) ? 2 : 1 };
}

async function install(venv: string, st: string): Promise<void> {
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
}
