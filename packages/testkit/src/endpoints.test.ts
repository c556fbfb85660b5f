import { describe, expect, test } from 'vitest';
import { decodeEndpoints, encodeEndpoints, endpointsFromEnv, splitBrokers } from './endpoints.ts';
import { uniqueName } from './names.ts';

describe('endpointsFromEnv', () => {
  test('uses an operator cluster when all three variables are set', () => {
    const endpoints = endpointsFromEnv({
      KAFKA_BROKERS: 'a:9092, b:9092',
      SCHEMA_REGISTRY_URL: 'http://registry:8081/',
      MONGODB_URI: 'mongodb://m:27017/',
    });
    expect(endpoints).toEqual({
      kafkaBrokers: ['a:9092', 'b:9092'],
      schemaRegistryUrl: 'http://registry:8081',
      mongodbUri: 'mongodb://m:27017/',
      source: 'env',
    });
  });

  test('returns nothing when none is set', () => {
    expect(endpointsFromEnv({})).toBeUndefined();
  });

  test('refuses a partial set and names what is missing', () => {
    expect(() => endpointsFromEnv({ KAFKA_BROKERS: 'a:9092' })).toThrow(
      /SCHEMA_REGISTRY_URL, MONGODB_URI missing/,
    );
  });

  test('round-trips through the worker hand-over', () => {
    const endpoints = {
      kafkaBrokers: ['x:1'],
      schemaRegistryUrl: 'http://r',
      mongodbUri: 'mongodb://m/',
      source: 'local-stack' as const,
    };
    expect(decodeEndpoints(encodeEndpoints(endpoints))).toEqual(endpoints);
    expect(() => decodeEndpoints('{}')).toThrow(/malformed/);
  });

  test('splitBrokers drops blanks', () => {
    expect(splitBrokers(' a:1,,b:2 ')).toEqual(['a:1', 'b:2']);
  });
});

describe('uniqueName', () => {
  test('is unique and safe for topics and database names', () => {
    const names = new Set(Array.from({ length: 500 }, () => uniqueName('Orders.In')));
    expect(names.size).toBe(500);
    for (const name of names) {
      expect(name).toMatch(/^[a-z0-9-]+$/);
      expect(name.length).toBeLessThan(64);
    }
  });
});
