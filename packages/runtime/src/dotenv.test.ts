import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { applyDotenv, loadDotenv, parseDotenv } from './dotenv.ts';
import { isAppError } from './errors.ts';

const stackEnv = `# written by the local stack
KAFKA_BROKERS=127.0.0.1:19092
export SCHEMA_REGISTRY_URL = http://127.0.0.1:18081/apis/ccompat/v7   # Apicurio
MONGODB_URI='mongodb://127.0.0.1:27018/'
GREETING="hello\\nworld # not a comment"
PEM="-----BEGIN KEY-----
abc
-----END KEY-----"
EMPTY=

HASH_IN_VALUE=abc#def
`;

describe('parseDotenv', () => {
  it('reads assignments, comments, quotes and multi-line values', () => {
    expect(parseDotenv(stackEnv)).toEqual({
      KAFKA_BROKERS: '127.0.0.1:19092',
      SCHEMA_REGISTRY_URL: 'http://127.0.0.1:18081/apis/ccompat/v7',
      MONGODB_URI: 'mongodb://127.0.0.1:27018/',
      GREETING: 'hello\nworld # not a comment',
      PEM: '-----BEGIN KEY-----\nabc\n-----END KEY-----',
      EMPTY: '',
      HASH_IN_VALUE: 'abc#def',
    });
  });

  it('names the line of a malformed entry but not its content', () => {
    let caught: unknown;
    try {
      parseDotenv('A=1\nthis is a password line\n', 'stack.env');
    } catch (err) {
      caught = err;
    }
    expect(isAppError(caught, 'CONFIG_INVALID')).toBe(true);
    expect((caught as Error).message).toBe('stack.env:2: expected KEY=VALUE');
  });
});

describe('applyDotenv', () => {
  it('fills only variables that are not already set', () => {
    const dir = mkdtempSync(join(tmpdir(), 'rp-dotenv-'));
    const file = join(dir, 'stack.env');
    writeFileSync(file, stackEnv);
    const env: Record<string, string | undefined> = { KAFKA_BROKERS: 'kafka.prod:9092' };
    const applied = applyDotenv(file, env);
    expect(env.KAFKA_BROKERS).toBe('kafka.prod:9092');
    expect(env.MONGODB_URI).toBe('mongodb://127.0.0.1:27018/');
    expect(applied).not.toContain('KAFKA_BROKERS');
    expect(applied).toContain('SCHEMA_REGISTRY_URL');
  });

  it('treats a missing file as empty', () => {
    expect(loadDotenv(join(tmpdir(), 'rp-no-such-dir', 'stack.env'))).toEqual({});
  });
});
