import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import * as os from 'node:os';
import { fileURLToPath } from 'node:url';

export interface Machine {
  readonly hostname: string;
  readonly cores: number;
  readonly memoryGiB: number;
  readonly cpuModel: string;
  readonly os: string;
  readonly node: string;
  readonly versions: Readonly<Record<string, string>>;
}

function packageVersion(name: string): string {
  try {
    const url = import.meta.resolve(`${name}/package.json`);
    return (JSON.parse(readFileSync(new URL(url), 'utf8')) as { version: string }).version;
  } catch {
    return 'unknown';
  }
}

/**
 * The commit measured, with `+changes` when files that the figures depend on differ from it: anything
 * tracked but the documents and the results themselves.
 */
function commit(): string {
  try {
    const head = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
    const changed = execFileSync(
      'git',
      [
        'status',
        '--porcelain',
        '--untracked-files=no',
        '--',
        '.',
        ':(exclude)*.md',
        ':(exclude)bench/results',
      ],
      { encoding: 'utf8', cwd: fileURLToPath(new URL('../..', import.meta.url)) },
    ).trim();
    return changed === '' ? head : `${head}+changes`;
  } catch {
    return 'unknown';
  }
}

/** What the figures were measured on: they mean nothing without it. */
export function describeMachine(extra: Readonly<Record<string, string>> = {}): Machine {
  return {
    hostname: os.hostname(),
    cores: os.availableParallelism(),
    memoryGiB: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
    cpuModel: os.cpus()[0]?.model.trim() ?? 'unknown',
    os: `${os.type()} ${os.release()} ${os.arch()}`,
    node: process.version,
    versions: {
      commit: commit(),
      kafkajs: packageVersion('kafkajs'),
      mongodb: packageVersion('mongodb'),
      undici: packageVersion('undici'),
      ...extra,
    },
  };
}
