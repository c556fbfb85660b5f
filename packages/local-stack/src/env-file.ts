import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import type { StackPorts } from './config.ts';

/** Where the stack's services answer; the same names tests and services read from their env. */
export interface StackEndpoints {
  kafkaBrokers: string[];
  /** Base URL of the Confluent-compatible API. */
  schemaRegistryUrl: string;
  /** Without a database name: each user picks its own database. */
  mongodbUri: string;
  /** The PostgreSQL server behind FerretDB, for inspection; the pipeline itself never uses it. */
  postgresUrl: string;
}

export function endpointsFor(ports: StackPorts): StackEndpoints {
  return {
    kafkaBrokers: [`127.0.0.1:${ports.kafka}`],
    schemaRegistryUrl: `http://127.0.0.1:${ports.registry}/apis/ccompat/v7`,
    mongodbUri: `mongodb://127.0.0.1:${ports.mongo}/`,
    postgresUrl: `postgres://postgres@127.0.0.1:${ports.postgres}/postgres`,
  };
}

export function renderStackEnv(endpoints: StackEndpoints): string {
  return [
    '# Local stack endpoints, written by `rp stack up`; removed by `rp stack down`.',
    `KAFKA_BROKERS=${endpoints.kafkaBrokers.join(',')}`,
    `SCHEMA_REGISTRY_URL=${endpoints.schemaRegistryUrl}`,
    `MONGODB_URI=${endpoints.mongodbUri}`,
    `RP_STACK_POSTGRES_URL=${endpoints.postgresUrl}`,
    '',
  ].join('\n');
}

/** Reads KEY=value lines; comments and blank lines are skipped, surrounding quotes removed. */
export function parseDotenv(text: string): Record<string, string> {
  const values: Record<string, string> = {};
  for (const line of text.split(/\r?\n/)) {
    const trimmed = line.trim();
    if (trimmed === '' || trimmed.startsWith('#')) continue;
    const equals = trimmed.indexOf('=');
    if (equals <= 0) continue;
    const key = trimmed.slice(0, equals).trim();
    let value = trimmed.slice(equals + 1).trim();
    if (value.length >= 2 && (value[0] === '"' || value[0] === "'") && value.at(-1) === value[0]) {
      value = value.slice(1, -1);
    }
    values[key] = value;
  }
  return values;
}

/** The endpoints in a stack env file, or undefined when any of them is missing. */
export function parseStackEnv(text: string): StackEndpoints | undefined {
  const values = parseDotenv(text);
  const brokers = (values.KAFKA_BROKERS ?? '')
    .split(',')
    .map((broker) => broker.trim())
    .filter((broker) => broker !== '');
  const { SCHEMA_REGISTRY_URL, MONGODB_URI, RP_STACK_POSTGRES_URL } = values;
  if (brokers.length === 0 || !SCHEMA_REGISTRY_URL || !MONGODB_URI || !RP_STACK_POSTGRES_URL)
    return undefined;
  return {
    kafkaBrokers: brokers,
    schemaRegistryUrl: SCHEMA_REGISTRY_URL,
    mongodbUri: MONGODB_URI,
    postgresUrl: RP_STACK_POSTGRES_URL,
  };
}

/** Readers never see half a file: the content goes to a temporary file that is then renamed over. */
export function writeFileAtomically(path: string, content: string): void {
  const temporary = `${path}.${process.pid}.tmp`;
  try {
    writeFileSync(temporary, content, { mode: 0o644 });
    renameSync(temporary, path);
  } finally {
    rmSync(temporary, { force: true });
  }
}

export function readEnvFile(path: string): StackEndpoints | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
  return parseStackEnv(text);
}
