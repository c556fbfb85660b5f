import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultPorts } from './config.ts';
import {
  endpointsFor,
  parseDotenv,
  parseStackEnv,
  readEnvFile,
  renderStackEnv,
  writeFileAtomically,
} from './env-file.ts';

describe('stack env file', () => {
  it('renders the variables tests and services read, for the default ports', () => {
    const text = renderStackEnv(endpointsFor(defaultPorts));
    expect(parseDotenv(text)).toEqual({
      KAFKA_BROKERS: '127.0.0.1:19092',
      SCHEMA_REGISTRY_URL: 'http://127.0.0.1:18081/apis/ccompat/v7',
      MONGODB_URI: 'mongodb://127.0.0.1:27018/',
      RP_STACK_POSTGRES_URL: 'postgres://postgres@127.0.0.1:15432/postgres',
    });
  });

  it('round-trips through parseStackEnv with other ports', () => {
    const endpoints = endpointsFor({ ...defaultPorts, kafka: 29092, registry: 28081, mongo: 27100 });
    expect(parseStackEnv(renderStackEnv(endpoints))).toEqual(endpoints);
    expect(endpoints.kafkaBrokers).toEqual(['127.0.0.1:29092']);
  });

  it('reads quoted values and several brokers, skipping comments', () => {
    const text = [
      '# comment',
      'KAFKA_BROKERS="a:1, b:2"',
      "SCHEMA_REGISTRY_URL='http://r/apis/ccompat/v7'",
      '',
      'MONGODB_URI=mongodb://m/',
      'RP_STACK_POSTGRES_URL=postgres://p/',
    ].join('\n');
    expect(parseStackEnv(text)).toEqual({
      kafkaBrokers: ['a:1', 'b:2'],
      schemaRegistryUrl: 'http://r/apis/ccompat/v7',
      mongodbUri: 'mongodb://m/',
      postgresUrl: 'postgres://p/',
    });
  });

  it('gives no endpoints when one variable is missing', () => {
    expect(parseStackEnv('KAFKA_BROKERS=a:1\nMONGODB_URI=mongodb://m/\n')).toBeUndefined();
  });

  it('writes atomically, leaving no temporary file behind', () => {
    const dir = mkdtempSync(join(tmpdir(), 'stack-env-'));
    try {
      const file = join(dir, 'stack.env');
      writeFileAtomically(file, 'first\n');
      writeFileAtomically(file, renderStackEnv(endpointsFor(defaultPorts)));
      expect(readdirSync(dir)).toEqual(['stack.env']);
      expect(readFileSync(file, 'utf8')).toContain('KAFKA_BROKERS=127.0.0.1:19092');
      expect(readEnvFile(file)?.mongodbUri).toBe('mongodb://127.0.0.1:27018/');
      expect(readEnvFile(join(dir, 'absent.env'))).toBeUndefined();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
