import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  bool,
  describeConfig,
  duration,
  int,
  list,
  loadConfig,
  oneOf,
  parseDuration,
  port,
  type Secret,
  secret,
  str,
  url,
} from './config.ts';
import { type AppError, isAppError } from './errors.ts';

const spec = {
  PORT: port({ default: 8080, doc: 'HTTP listen port' }),
  KAFKA_BROKERS: list({ doc: 'Kafka bootstrap brokers, host:port' }),
  LOG_LEVEL: oneOf(['info', 'debug', 'warn'], { default: 'info' }),
  SIGNING_SECRET: secret({ doc: 'HMAC key for webhook signatures', minLength: 16 }),
  SCHEMA_REGISTRY_URL: url(),
  BATCH_SIZE: int({ min: 1, max: 1000, default: 100 }),
  DRY_RUN: bool({ default: false }),
  COMMIT_INTERVAL: duration({ default: 5000 }),
  REGION: str({ optional: true }),
};

const goodEnv = {
  KAFKA_BROKERS: '127.0.0.1:19092, 127.0.0.1:29092,',
  SIGNING_SECRET: 'a-very-long-signing-secret',
  SCHEMA_REGISTRY_URL: 'http://127.0.0.1:18081/apis/ccompat/v7',
  COMMIT_INTERVAL: '250ms',
};

function configError(run: () => unknown): AppError {
  try {
    run();
  } catch (err) {
    if (isAppError(err, 'CONFIG_INVALID')) return err;
    throw err;
  }
  throw new Error('expected a CONFIG_INVALID error');
}

describe('loadConfig', () => {
  it('parses, applies defaults and returns a frozen, typed object', () => {
    const config = loadConfig(spec, goodEnv);
    expect(config.PORT).toBe(8080);
    expect(config.KAFKA_BROKERS).toEqual(['127.0.0.1:19092', '127.0.0.1:29092']);
    expect(config.LOG_LEVEL).toBe('info');
    expect(config.SIGNING_SECRET.reveal()).toBe('a-very-long-signing-secret');
    expect(config.BATCH_SIZE).toBe(100);
    expect(config.DRY_RUN).toBe(false);
    expect(config.COMMIT_INTERVAL).toBe(250);
    expect(config.REGION).toBeUndefined();
    expect(Object.isFrozen(config)).toBe(true);

    expectTypeOf(config.PORT).toEqualTypeOf<number>();
    expectTypeOf(config.LOG_LEVEL).toEqualTypeOf<'info' | 'debug' | 'warn'>();
    expectTypeOf(config.KAFKA_BROKERS).toEqualTypeOf<readonly string[]>();
    expectTypeOf(config.SIGNING_SECRET).toEqualTypeOf<Secret>();
    expectTypeOf(config.REGION).toEqualTypeOf<string | undefined>();
  });

  it('names every bad or missing variable in one error and never shows the secret', () => {
    const err = configError(() =>
      loadConfig(spec, {
        PORT: 'abc',
        LOG_LEVEL: 'loud',
        SIGNING_SECRET: 'short-secret',
        SCHEMA_REGISTRY_URL: 'not a url',
        BATCH_SIZE: '0',
        DRY_RUN: 'maybe',
        COMMIT_INTERVAL: '5 parsecs',
      }),
    );
    expect(err.message).toContain('PORT: expected an integer 0-65535, got "abc"');
    expect(err.message).toContain('KAFKA_BROKERS: required but not set (Kafka bootstrap brokers, host:port)');
    expect(err.message).toContain('LOG_LEVEL: expected one of info, debug, warn, got "loud"');
    expect(err.message).toContain('SIGNING_SECRET: expected at least 16 characters');
    expect(err.message).toContain('SCHEMA_REGISTRY_URL: expected an absolute URL, got "not a url"');
    expect(err.message).toContain('BATCH_SIZE: expected an integer 1-1000, got "0"');
    expect(err.message).toContain('DRY_RUN:');
    expect(err.message).toContain('COMMIT_INTERVAL:');
    expect(err.message).toContain('8 problems');
    expect(err.message).not.toContain('short-secret');
    expect(JSON.stringify(err.details)).not.toContain('short-secret');
    expect(err.details.map((detail) => detail.pointer)).toContain('/PORT');
  });

  it('reads a secret from <NAME>_FILE, dropping the trailing newline', () => {
    const dir = mkdtempSync(join(tmpdir(), 'rp-config-'));
    const file = join(dir, 'signing-secret');
    writeFileSync(file, 'secret-from-a-mounted-file\n');
    const config = loadConfig(spec, { ...goodEnv, SIGNING_SECRET: undefined, SIGNING_SECRET_FILE: file });
    expect(config.SIGNING_SECRET.reveal()).toBe('secret-from-a-mounted-file');
  });

  it('refuses both NAME and NAME_FILE, and reports an unreadable file without its content', () => {
    const both = configError(() =>
      loadConfig(spec, { ...goodEnv, SIGNING_SECRET_FILE: '/nonexistent/secret' }),
    );
    expect(both.message).toContain(
      'SIGNING_SECRET: set either SIGNING_SECRET or SIGNING_SECRET_FILE, not both',
    );
    expect(both.message).not.toContain(goodEnv.SIGNING_SECRET);

    const missing = configError(() =>
      loadConfig(spec, { ...goodEnv, SIGNING_SECRET: undefined, SIGNING_SECRET_FILE: '/nonexistent/secret' }),
    );
    expect(missing.message).toContain(
      'SIGNING_SECRET: cannot read SIGNING_SECRET_FILE "/nonexistent/secret" (ENOENT)',
    );
  });

  it('treats empty strings as unset', () => {
    const err = configError(() => loadConfig({ KAFKA_BROKERS: list() }, { KAFKA_BROKERS: '' }));
    expect(err.message).toContain('KAFKA_BROKERS: required but not set');
  });
});

describe('secrets and describeConfig', () => {
  it('redacts secrets and URL passwords when described, logged or inspected', () => {
    const withUri = { ...spec, MONGODB_URI: url({ protocols: ['mongodb:'] }) };
    const config = loadConfig(withUri, { ...goodEnv, MONGODB_URI: 'mongodb://app:hunter2@127.0.0.1:27018/' });
    const described = describeConfig(withUri, config);
    expect(described.SIGNING_SECRET).toBe('[redacted]');
    expect(described.PORT).toBe(8080);
    expect(described.MONGODB_URI).toBe('mongodb://app:redacted@127.0.0.1:27018/');
    expect(JSON.stringify(described)).not.toContain('hunter2');
    const rendered = `${JSON.stringify(described)} ${JSON.stringify(config)} ${inspect(config)} ${String(config.SIGNING_SECRET)}`;
    expect(rendered).not.toContain(goodEnv.SIGNING_SECRET);
  });
});

describe('parseDuration', () => {
  it('reads units into milliseconds', () => {
    expect(parseDuration('250ms')).toBe(250);
    expect(parseDuration('5s')).toBe(5000);
    expect(parseDuration('2m')).toBe(120_000);
    expect(parseDuration('1h30m')).toBe(5_400_000);
    expect(parseDuration('0')).toBe(0);
    expect(parseDuration('5')).toBeUndefined();
    expect(parseDuration('soon')).toBeUndefined();
  });

  it('refuses a duration below its minimum, naming the variable', () => {
    const bounded = { RETENTION: duration({ optional: true, min: 1 }) };
    expect(loadConfig(bounded, { RETENTION: '1ms' }).RETENTION).toBe(1);
    expect(loadConfig(bounded, {}).RETENTION).toBeUndefined();
    const err = configError(() => loadConfig(bounded, { RETENTION: '0s' }));
    expect(err.message).toContain('RETENTION: expected a duration of at least 1 ms');
  });
});
