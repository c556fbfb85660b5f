import { test as base, inject } from 'vitest';
import { decodeEndpoints, type InfraEndpoints } from './endpoints.ts';
import { uniqueName } from './names.ts';
import { resolveInfra } from './resolve.ts';
import './provided-context.ts';

export { endpointsFromEnv, type InfraEndpoints, type InfraSource, splitBrokers } from './endpoints.ts';
export { metricSample } from './metrics.ts';
export { uniqueName } from './names.ts';
export { resolveInfra } from './resolve.ts';

let inProcess: Promise<InfraEndpoints> | undefined;

/**
 * The Kafka brokers, schema registry and MongoDB this test run uses. Handed over by the global setup
 * when the package's vitest config enables it; otherwise resolved in this worker (env, Docker, stack).
 */
export function infra(): Promise<InfraEndpoints> {
  const provided = safeInject();
  if (provided) return Promise.resolve(decodeEndpoints(provided));
  inProcess ??= resolveInfra().then((resolved) => resolved.endpoints);
  return inProcess;
}

function safeInject(): string | undefined {
  try {
    return inject('rpInfra');
  } catch {
    return undefined;
  }
}

export interface InfraFixtures {
  /** The run's infrastructure endpoints. */
  infra: InfraEndpoints;
  /** Names unique to this test: `names.topic('orders')`, `names.group('svc')`, `names.database()`. */
  names: TestNames;
}

export interface TestNames {
  topic(purpose: string): string;
  group(purpose: string): string;
  database(): string;
}

/** `test` with the infrastructure and per-test names as fixtures. */
export const infraTest = base.extend<InfraFixtures>({
  // biome-ignore lint/correctness/noEmptyPattern: vitest fixtures require a destructuring first argument
  infra: async ({}, use) => {
    await use(await infra());
  },
  // biome-ignore lint/correctness/noEmptyPattern: vitest fixtures require a destructuring first argument
  names: async ({}, use) => {
    await use({
      topic: (purpose) => uniqueName(`t-${purpose}`),
      group: (purpose) => uniqueName(`g-${purpose}`),
      database: () => uniqueName('db').replace(/-/g, '_'),
    });
  },
});
