import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { stackUp } from '@rp/local-stack';
import { endpointsFromEnv } from '@rp/testkit/endpoints';
import { formatSeconds, run } from '../process.ts';
import { collectTestTotals, formatFailures, formatTotals } from '../test-report.ts';
import { workspaceDirs } from '../workspace.ts';

/**
 * The whole suite, as CI runs it: format and lint, generated files up to date, types, then every
 * package's unit and integration tests against real infrastructure. Ends with one "N passed, N failed".
 */
export async function testCommand(root: string, args: readonly string[]): Promise<number> {
  const turbo = join(root, 'node_modules', '.bin', 'turbo');
  const biome = join(root, 'node_modules', '.bin', 'biome');
  const started = Date.now();
  const step = async (name: string, command: string, commandArgs: string[], env?: NodeJS.ProcessEnv) => {
    const t0 = Date.now();
    console.log(`\n== ${name}`);
    const code = await run(command, commandArgs, { cwd: root, ...(env ? { env } : {}) });
    console.log(
      `== ${name}: ${code === 0 ? 'ok' : `failed (exit ${code})`} in ${formatSeconds(Date.now() - t0)}`,
    );
    return code;
  };

  if ((await step('format and lint', biome, ['check', '.'])) !== 0) return 1;
  const generated = ['run', 'generate:check', '--output-logs=errors-only'];
  if ((await step('generated files are current', turbo, generated)) !== 0) return 1;
  if ((await step('typecheck', turbo, ['run', 'typecheck', '--output-logs=errors-only'])) !== 0) return 1;

  const env = { ...process.env };
  if (!endpointsFromEnv(env) && process.env.RP_TEST_USE_DOCKER !== '1') {
    console.log('\n== local stack');
    const stack = await stackUp();
    env.KAFKA_BROKERS = stack.kafkaBrokers.join(',');
    env.SCHEMA_REGISTRY_URL = stack.schemaRegistryUrl;
    env.MONGODB_URI = stack.mongodbUri;
  }

  const dirs = workspaceDirs(root);
  for (const dir of dirs) rmSync(join(dir, '.test-results'), { recursive: true, force: true });
  const filter = args.flatMap((name) => ['--filter', name]);
  // One package at a time: the end-to-end files run a whole pipeline each, and on a two-core machine a
  // second package beside them starves both (and crowds the one MongoDB-compatible server).
  const testArgs = ['run', 'test', '--concurrency=1', '--continue', '--log-order=grouped', ...filter];
  const code = await step('tests', turbo, testArgs, env);

  const totals = collectTestTotals(dirs, root);
  console.log(
    `\nsuite finished in ${formatSeconds(Date.now() - started)} across ${totals.suites.length} packages`,
  );
  if (totals.failures.length > 0) console.log(`failed:\n${formatFailures(totals.failures)}`);
  console.log(`tests: ${formatTotals(totals)}`);
  return code !== 0 || totals.failed > 0 || totals.passed === 0 ? 1 : 0;
}
