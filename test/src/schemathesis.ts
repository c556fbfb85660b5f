import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { root } from './pipeline.ts';
import { runProgram } from './process.ts';

/** The schemathesis release the suite runs (from PyPI), pinned so a run today and one next month agree. */
export const schemathesisVersion = '4.32.5';

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
