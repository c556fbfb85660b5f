import { randomUUID } from 'node:crypto';
import { createServer, connect as netConnect, type Server, type Socket } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openTestStore, type TestStore, testMongodbUri } from '../test/store-fixture.ts';
import { toStoreError } from './errors.ts';
import { storeIndexes } from './indexes.ts';
import { connectStore, type StoreLogger } from './store.ts';

/**
 * A TCP proxy in front of the MongoDB server that can freeze: while frozen it forwards nothing either
 * way and closes nothing, as a server that stopped answering would.
 */
async function freezingProxy(target: { host: string; port: number }) {
  let frozen = false;
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = netConnect(target);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => undefined);
    }
    client.on('data', (chunk) => {
      if (!frozen) upstream.write(chunk);
    });
    upstream.on('data', (chunk) => {
      if (!frozen) client.write(chunk);
    });
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('proxy not listening');
  return {
    port: address.port,
    freeze: () => {
      frozen = true;
    },
    thaw: () => {
      frozen = false;
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A logger that keeps the messages, to wait on what the store says it did. */
function recordingLogger(): StoreLogger & { messages: string[] } {
  const messages: string[] = [];
  const keep = (_fields: Record<string, unknown>, message: string) => {
    messages.push(message);
  };
  return { messages, info: keep, warn: keep, error: keep };
}

async function waitFor(condition: () => boolean, what: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('Store', () => {
  let context: TestStore;
  beforeEach(async () => {
    context = await openTestStore('store');
  });
  afterEach(async () => {
    await context.dispose();
  });

  it('answers ping for readiness', async () => {
    const latency = await context.store.ping();
    expect(latency).toBeGreaterThan(0);
    expect(latency).toBeLessThan(5_000);
  });

  it('creates every index, and creating them again changes nothing', async () => {
    const first = await context.store.listIndexes();
    await context.store.ensureIndexes();
    const second = await context.store.listIndexes();
    expect(second).toEqual(first);
    for (const [collection, indexes] of Object.entries(storeIndexes)) {
      expect(first[collection as keyof typeof first]).toEqual(
        ['_id_', ...indexes.map((index) => index.name)].sort(),
      );
    }
  });

  it('reports an unreachable server as a retriable StoreError', async () => {
    await expect(
      connectStore({
        uri: 'mongodb://127.0.0.1:1/',
        database: 'unreachable',
        appName: 'store-test',
        serverSelectionTimeoutMs: 300,
      }),
    ).rejects.toMatchObject({ failure: 'unavailable', code: 'STORE_UNAVAILABLE', retriable: true });
  });

  it('reports a duplicate key outside the idempotent paths as a non-retriable StoreError', async () => {
    const db = context.raw.db(context.databaseName);
    const error = await db
      .collection('debit_queue')
      .insertMany([{ _id: 'a' as never }, { _id: 'a' as never }])
      .catch((caught: unknown) => toStoreError(caught, 'insert'));
    expect(error).toMatchObject({ failure: 'duplicate-key', code: 'CONFLICT', retriable: false });
  });

  it('reconnects on demand: the repositories carry on with the same client', async () => {
    const key = `reconnect-${randomUUID()}`;
    const claim = { key, payloadHash: 'h1', uetr: randomUUID(), receivedAt: new Date() };
    expect((await context.store.idempotency.claim(claim)).outcome).toBe('new');
    await context.store.reconnect();
    expect((await context.store.idempotency.claim(claim)).outcome).toBe('duplicate');
    await context.store.reconnect();
    expect(await context.store.ping()).toBeGreaterThan(0);
    expect((await context.store.idempotency.get(key))?.uetr).toBe(claim.uetr);
  });

  it('a server check of the driver that does not end in time makes the store reconnect on its own, and it works after', {
    timeout: 90_000,
  }, async () => {
    const target = new URL((await testMongodbUri()).replace(/^mongodb:/, 'http:'));
    const proxy = await freezingProxy({ host: target.hostname, port: Number(target.port || 27017) });
    const logger = recordingLogger();
    const store = await connectStore({
      uri: `mongodb://127.0.0.1:${proxy.port}/?directConnection=true`,
      database: context.databaseName,
      appName: 'store-test-watch',
      logger,
      serverSelectionTimeoutMs: 2_000,
      monitorStalledAfterMs: 1_000,
    });
    try {
      expect(await store.ping()).toBeGreaterThan(0);
      // The server stops answering: the monitor's next check hangs past the limit.
      proxy.freeze();
      await waitFor(
        () => logger.messages.some((message) => message.includes('monitor is stuck')),
        'the stuck monitor found',
        30_000,
      );
      expect(logger.messages).not.toContain('store reconnected');
      proxy.thaw();
      await waitFor(() => logger.messages.includes('store reconnected'), 'the store reconnected', 30_000);
      expect(await store.ping()).toBeGreaterThan(0);
      const key = `watch-${randomUUID()}`;
      expect(
        (await store.idempotency.claim({ key, payloadHash: 'h', uetr: randomUUID(), receivedAt: new Date() }))
          .outcome,
      ).toBe('new');
    } finally {
      await store.close();
      await proxy.close();
    }
  });
});
