import { dropOwned } from '@rp/local-stack';
import type { TestProject } from 'vitest/node';
import { encodeEndpoints } from './endpoints.ts';
import { madeInRun, newRunMark, testRunVariable } from './names.ts';
import { resolveInfra } from './resolve.ts';
import './provided-context.ts';

/**
 * vitest globalSetup: resolves the infrastructure once per test run and hands it to every worker, so
 * containers (when Docker is used) start once, not once per test file. The run gets a mark of its own,
 * which every name `uniqueName` makes in its workers carries; once the run ends, the topics, schema
 * subjects and databases with the mark are dropped (containers go with their data). A run that is
 * killed leaves them: `rp stack reset` starts the local stack on empty data.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const started = Date.now();
  // Set before any worker starts: the workers inherit it. Always a new one: two packages' runs at once
  // must not drop each other's topics.
  const mark = newRunMark();
  process.env[testRunVariable] = mark;
  const resolved = await resolveInfra();
  const { endpoints } = resolved;
  console.info(
    `test infrastructure from ${endpoints.source} in ${Date.now() - started} ms: kafka ${endpoints.kafkaBrokers.join(',')}, registry ${endpoints.schemaRegistryUrl}`,
  );
  project.provide('rpInfra', encodeEndpoints(endpoints));
  return async () => {
    try {
      if (endpoints.source !== 'testcontainers') {
        const dropped = await dropOwned(endpoints, (name) => madeInRun(name, mark));
        console.info(
          `test run ${mark}: dropped its ${dropped.topics.length} topics, ${dropped.subjects.length} schema subjects and ${dropped.databases.length} databases`,
        );
      }
    } catch (error) {
      // What is left behind costs disk and start time, not correctness: the run's outcome stands.
      console.warn(`test run ${mark}: what it made was not all dropped: ${String(error)}`);
    } finally {
      await resolved.release();
    }
  };
}
