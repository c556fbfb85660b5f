import { fileURLToPath } from 'node:url';

/**
 * The directory a file named on a program's command line is named from: where npm was started, since
 * `npm run -w @rp/bench` runs the program in bench/.
 */
export function invokedFrom(): string {
  return process.env.INIT_CWD ?? process.cwd();
}

/**
 * Runs `main` with the command line's arguments when the module at `url` (its `import.meta.url`) is the
 * program node was started with, not when a test imports it. A failure is printed without its stack and
 * sets the exit code.
 */
export function runAsProgram(url: string, main: (argv: readonly string[]) => void): void {
  if (process.argv[1] === undefined || fileURLToPath(url) !== process.argv[1]) return;
  try {
    main(process.argv.slice(2));
  } catch (error) {
    console.error(error instanceof Error ? error.message : error);
    process.exitCode = 1;
  }
}
