import { stackUp } from '@rp/local-stack';
import { dockerAnswers, startContainers } from './containers.ts';
import { endpointsFromEnv, type InfraEndpoints } from './endpoints.ts';

export interface ResolvedInfra {
  endpoints: InfraEndpoints;
  release(): Promise<void>;
}

/**
 * Picks the infrastructure for a test run, in this order: explicit env vars (an operator's own cluster),
 * testcontainers when a Docker engine answers, else the project's local stack (started if it is not up;
 * a running stack is left running for the next run, which is what makes a second run fast).
 */
export async function resolveInfra(env: NodeJS.ProcessEnv = process.env): Promise<ResolvedInfra> {
  const fromEnv = endpointsFromEnv(env);
  if (fromEnv) return { endpoints: fromEnv, release: async () => {} };
  if (await dockerAnswers()) {
    const started = await startContainers();
    return { endpoints: started.endpoints, release: () => started.stop() };
  }
  const stack = await stackUp();
  return {
    endpoints: {
      kafkaBrokers: stack.kafkaBrokers,
      schemaRegistryUrl: stack.schemaRegistryUrl,
      mongodbUri: stack.mongodbUri,
      source: 'local-stack',
    },
    release: async () => {},
  };
}
