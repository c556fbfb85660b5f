import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { repoRoot } from './paths.ts';

/**
 * The command line of a script that writes one generated file: the file written if it changed, or with
 * `--check` nothing written and exit code 1 if it is stale; `--file <path>` names another file than the
 * committed one.
 */
export function writeGenerated(committed: string, wanted: string, args: readonly string[]): void {
  const check = args.includes('--check');
  const fileIndex = args.indexOf('--file');
  const file = fileIndex === -1 ? committed : resolve(args[fileIndex + 1] ?? '');
  const current = existsSync(file) ? readFileSync(file, 'utf8') : undefined;
  const name = relative(repoRoot, file);
  if (current === wanted) {
    console.log(`${name} is current`);
  } else if (check) {
    console.error(`${name} is stale: run \`npm run manifests -w @rp/deploy\` and commit the result`);
    process.exitCode = 1;
  } else {
    writeFileSync(file, wanted);
    console.log(`wrote ${name}`);
  }
}
