/** Where a test's infrastructure lives. Every integration test gets these from one place. */
export interface InfraEndpoints {
  kafkaBrokers: string[];
  /** Base URL of the Confluent-compatible API. */
  schemaRegistryUrl: string;
  /** MongoDB connection string without a database name: tests pick their own database. */
  mongodbUri: string;
  /** Which of the three sources supplied them. */
  source: InfraSource;
}

export type InfraSource = 'env' | 'testcontainers' | 'local-stack';

/**
 * Endpoints given explicitly (an operator's own cluster, or CI pointing at a stack it started).
 * All three variables must be set together: a partial set is a configuration mistake, not a hint.
 */
export function endpointsFromEnv(env: NodeJS.ProcessEnv = process.env): InfraEndpoints | undefined {
  const names = ['KAFKA_BROKERS', 'SCHEMA_REGISTRY_URL', 'MONGODB_URI'] as const;
  const present = names.filter((name) => env[name]?.trim());
  if (present.length === 0) return undefined;
  if (present.length !== names.length) {
    const missing = names.filter((name) => !present.includes(name));
    throw new Error(
      `Test infrastructure: ${present.join(', ')} set but ${missing.join(', ')} missing; set all three or none`,
    );
  }
  return {
    kafkaBrokers: splitBrokers(env.KAFKA_BROKERS ?? ''),
    schemaRegistryUrl: (env.SCHEMA_REGISTRY_URL ?? '').replace(/\/+$/, ''),
    mongodbUri: env.MONGODB_URI ?? '',
    source: 'env',
  };
}

export function splitBrokers(value: string): string[] {
  return value
    .split(',')
    .map((broker) => broker.trim())
    .filter((broker) => broker.length > 0);
}

/** Serialised form handed from vitest's global setup to the test workers. */
export function encodeEndpoints(endpoints: InfraEndpoints): string {
  return JSON.stringify(endpoints);
}

export function decodeEndpoints(text: string): InfraEndpoints {
  const value = JSON.parse(text) as InfraEndpoints;
  if (!Array.isArray(value.kafkaBrokers) || !value.schemaRegistryUrl || !value.mongodbUri) {
    throw new Error('Test infrastructure: malformed endpoints handed to the worker');
  }
  return value;
}
