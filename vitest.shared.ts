import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// No forced "import": the workers' Node receives these as --conditions, and a forced "import" makes
// Node's own require() pick ESM builds of CommonJS dependencies (which breaks some of them).
const conditions = ['source', 'node', 'default'];
const infraSetup = fileURLToPath(new URL('./packages/testkit/src/global-setup.ts', import.meta.url));

/**
 * Shared test settings. Workspace packages resolve to their TypeScript sources through the `source`
 * export condition, so tests never need a build of their dependencies first. Packages with integration
 * tests pass `infra: true`: the run then resolves Kafka, the schema registry and MongoDB once (env,
 * testcontainers or the local stack) unless RP_TEST_INFRA=none says only unit tests run.
 */
export function packageTestConfig(options: { infra?: boolean; timeoutMs?: number } = {}) {
  const withInfra = options.infra === true && process.env.RP_TEST_INFRA !== 'none';
  return defineConfig({
    resolve: { conditions },
    ssr: { resolve: { conditions, externalConditions: ['source'] } },
    test: {
      include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
      testTimeout: options.timeoutMs ?? 60_000,
      hookTimeout: 300_000,
      globalSetup: withInfra ? [infraSetup] : [],
      // The JSON report lets the root test command print one total across every package.
      reporters: ['default', 'json'],
      outputFile: { json: '.test-results/vitest.json' },
    },
  });
}
