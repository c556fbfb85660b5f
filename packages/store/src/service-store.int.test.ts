import { duration, logLevels, oneOf, serviceBase, str, tracingConfig, url } from '@rp/runtime';
import { MongoClient } from 'mongodb';
import { afterEach, describe, expect, it } from 'vitest';
import { testDatabaseName, testMongodbUri } from '../test/store-fixture.ts';
import { collectionNames, storeIndexes } from './indexes.ts';
import { openServiceStore } from './service-store.ts';

const spec = {
  LOG_LEVEL: oneOf(logLevels, { default: 'silent' }),
  SHUTDOWN_TIMEOUT: duration({ default: 5_000 }),
  ...tracingConfig,
  MONGODB_URI: url({ protocols: ['mongodb:', 'mongodb+srv:'] }),
  MONGODB_DATABASE: str({}),
};

describe('openServiceStore', () => {
  const dropped: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const drop of dropped.splice(0)) await drop();
  });

  it("opens the store of a service's settings: indexes ensured, commands counted, pinged by its health, closed by its lifecycle", async () => {
    const uri = await testMongodbUri();
    const database = await testDatabaseName('service-store');
    const raw = await new MongoClient(uri).connect();
    dropped.push(async () => {
      await raw.db(database).dropDatabase();
      await raw.close();
    });
    const base = serviceBase(
      'tracker',
      spec,
      { MONGODB_URI: uri, MONGODB_DATABASE: database },
      { signals: false },
    );

    const store = await openServiceStore('tracker', base, { positionCacheSize: 10 });
    expect(store.databaseName).toBe(database);
    const transactions = raw.db(database).collection(collectionNames.transactions);
    const names = (await transactions.listIndexes().toArray()).map((index) => index.name);
    for (const index of storeIndexes[collectionNames.transactions]) expect(names).toContain(index.name);
    expect(await base.metrics.registry.metrics()).toMatch(
      /rp_mongodb_commands_total\{[^}]*command="createIndexes"/,
    );

    base.health.markReady();
    const ready = await base.health.readiness();
    expect(ready.checks).toContainEqual(expect.objectContaining({ name: 'mongodb', ok: true }));

    expect(await base.lifecycle.shutdown('test')).toEqual({ ok: true, failures: [] });
    await expect(store.ping()).rejects.toThrow();
  });
});
