import type { TestProject } from 'vitest/node';
import { encodeEndpoints } from './endpoints.ts';
import { resolveInfra } from './resolve.ts';
import './provided-context.ts';

/**
 * vitest globalSetup: resolves the infrastructure once per test run and hands it to every worker, so
 * containers (when Docker is used) start once, not once per test file.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const started = Date.now();
  const resolved = await resolveInfra();
  const { endpoints } = resolved;
  console.info(
    `test infrastructure from ${endpoints.source} in ${Date.now() - started} ms: kafka ${endpoints.kafkaBrokers.join(',')}, registry ${endpoints.schemaRegistryUrl}`,
  );
  project.provide('rpInfra', encodeEndpoints(endpoints));
  return () => resolved.release();
}
