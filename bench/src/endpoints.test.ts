import { describe, expect, test } from 'vitest';
import { chooseEndpoints, envEndpoints, localComponentsUsed, needsLocalStack } from './endpoints.ts';
import { mongoServerName } from './limits-mongo.ts';

const local = {
  kafkaBrokers: ['127.0.0.1:19092'],
  schemaRegistryUrl: 'http://127.0.0.1:18081/apis/ccompat/v7',
  mongodbUri: 'mongodb://127.0.0.1:27018/',
};

describe('the endpoints of a run', () => {
  test('nothing in the environment: the local stack serves everything, and all of it is accounted', () => {
    const env = envEndpoints({});
    expect(needsLocalStack(env)).toBe(true);
    const used = chooseEndpoints(env, local);
    expect(used).toEqual(local);
    expect([...localComponentsUsed(local, used)].sort()).toEqual([
      'ferretdb',
      'kafka',
      'postgres',
      'registry',
    ]);
  });

  test("MONGODB_URI alone: that MongoDB beside the local stack's Kafka, whose CPU alone is accounted", () => {
    const env = envEndpoints({ MONGODB_URI: 'mongodb://127.0.0.1:27017/?directConnection=true' });
    expect(needsLocalStack(env)).toBe(true);
    const used = chooseEndpoints(env, local);
    expect(used).toEqual({ ...local, mongodbUri: 'mongodb://127.0.0.1:27017/?directConnection=true' });
    expect([...localComponentsUsed(local, used)].sort()).toEqual(['kafka', 'registry']);
  });

  test('KAFKA_BROKERS alone: that Kafka and its registry beside the local MongoDB stand-in', () => {
    const env = envEndpoints({ KAFKA_BROKERS: 'k1:9092,k2:9092', SCHEMA_REGISTRY_URL: 'http://sr:8081' });
    const used = chooseEndpoints(env, local);
    expect(used).toEqual({
      kafkaBrokers: ['k1:9092', 'k2:9092'],
      schemaRegistryUrl: 'http://sr:8081',
      mongodbUri: local.mongodbUri,
    });
    expect([...localComponentsUsed(local, used)].sort()).toEqual(['ferretdb', 'postgres']);
  });

  test('both in the environment: no local stack is needed', () => {
    const env = envEndpoints({
      KAFKA_BROKERS: 'k1:9092',
      SCHEMA_REGISTRY_URL: 'http://sr:8081',
      MONGODB_URI: 'mongodb://m:27017',
    });
    expect(needsLocalStack(env)).toBe(false);
    expect(chooseEndpoints(env, undefined)).toEqual({
      kafkaBrokers: ['k1:9092'],
      schemaRegistryUrl: 'http://sr:8081',
      mongodbUri: 'mongodb://m:27017',
    });
  });

  test('KAFKA_BROKERS without its registry is refused', () => {
    expect(() => envEndpoints({ KAFKA_BROKERS: 'k1:9092' })).toThrow(/SCHEMA_REGISTRY_URL/);
  });
});

describe('the MongoDB server a run names', () => {
  test('FerretDB by its own version, a MongoDB by its version', () => {
    expect(mongoServerName({ version: '7.0.42', ferretdbVersion: 'v1.24.2' })).toBe(
      'FerretDB v1.24.2 (answers as MongoDB 7.0.42)',
    );
    expect(mongoServerName({ version: '8.0.4' })).toBe('MongoDB 8.0.4');
  });
});
