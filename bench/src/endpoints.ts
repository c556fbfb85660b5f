/** The endpoints a run uses, and which of them the local stack serves. */
export interface BenchEndpoints {
  readonly kafkaBrokers: readonly string[];
  readonly schemaRegistryUrl: string;
  readonly mongodbUri: string;
}

/** What the environment names: KAFKA_BROKERS with SCHEMA_REGISTRY_URL, and MONGODB_URI, each optional. */
export interface EnvEndpoints {
  readonly kafkaBrokers?: readonly string[];
  readonly schemaRegistryUrl?: string;
  readonly mongodbUri?: string;
}

export function envEndpoints(env: NodeJS.ProcessEnv): EnvEndpoints {
  const kafkaBrokers = env.KAFKA_BROKERS?.split(',').filter((broker) => broker !== '') ?? [];
  const schemaRegistryUrl = env.SCHEMA_REGISTRY_URL;
  if (kafkaBrokers.length > 0 && !schemaRegistryUrl) {
    throw new Error('KAFKA_BROKERS needs SCHEMA_REGISTRY_URL beside it (the registry of that Kafka)');
  }
  return {
    ...(kafkaBrokers.length > 0 && schemaRegistryUrl ? { kafkaBrokers, schemaRegistryUrl } : {}),
    ...(env.MONGODB_URI ? { mongodbUri: env.MONGODB_URI } : {}),
  };
}

/** Whether the environment leaves a part (Kafka, MongoDB) for the local stack to serve. */
export function needsLocalStack(env: EnvEndpoints): boolean {
  return env.kafkaBrokers === undefined || env.mongodbUri === undefined;
}

/**
 * Each part from the environment when it names it, else from the local stack: MONGODB_URI alone runs
 * the pipeline on that MongoDB beside the local stack's Kafka (a real MongoDB set against the stand-in,
 * on the same machine and the same Kafka), KAFKA_BROKERS alone the other way round.
 */
export function chooseEndpoints(env: EnvEndpoints, local: BenchEndpoints | undefined): BenchEndpoints {
  const kafka = env.kafkaBrokers ? env : local;
  return {
    kafkaBrokers: kafka?.kafkaBrokers ?? [],
    schemaRegistryUrl: kafka?.schemaRegistryUrl ?? '',
    mongodbUri: env.mongodbUri ?? local?.mongodbUri ?? '',
  };
}

/**
 * The local stack's components that serve a run's endpoints, whose CPU the run accounts for: Kafka,
 * its registry, and FerretDB with its PostgreSQL, each only when the run uses it.
 */
export function localComponentsUsed(local: BenchEndpoints, used: BenchEndpoints): Set<string> {
  const components = new Set<string>();
  if (local.kafkaBrokers.join(',') === used.kafkaBrokers.join(',')) components.add('kafka');
  if (local.schemaRegistryUrl === used.schemaRegistryUrl) components.add('registry');
  if (local.mongodbUri === used.mongodbUri) components.add('ferretdb').add('postgres');
  return components;
}
