import { describe, expect, it } from 'vitest';
import { createHealth } from './health.ts';
import { createHttpApp, startHttpServer } from './http.ts';
import { memoryLogger } from './memory-logger.ts';
import { createMetrics } from './metrics.ts';

function serviceApp() {
  const health = createHealth();
  const metrics = createMetrics({ service: 'test', defaultMetrics: false });
  const { logger, lines } = memoryLogger();
  return { app: createHttpApp({ health, metrics, logger }), health, lines };
}

function signal(): { promise: Promise<void>; fire: () => void } {
  let fire!: () => void;
  const promise = new Promise<void>((resolve) => {
    fire = resolve;
  });
  return { promise, fire };
}

describe('createHttpApp', () => {
  it('serves health, metrics, request ids and problem 404s', async () => {
    const { app, health, lines } = serviceApp();
    app.get('/raw', () => new Response('raw', { status: 200 }));
    app.get('/json', (c) => c.json({ ok: true }, 201, { 'cache-control': 'no-store' }));
    expect((await app.request('/health/ready')).status).toBe(503);
    health.markReady();
    expect((await app.request('/health/ready')).status).toBe(200);

    const missing = await app.request('/v1/nothing', { headers: { 'x-request-id': 'req-42' } });
    expect(missing.status).toBe(404);
    expect(missing.headers.get('content-type')).toBe('application/problem+json');
    expect(missing.headers.get('x-request-id')).toBe('req-42');
    expect(lines).toContainEqual(
      expect.objectContaining({ requestId: 'req-42', status: 404, path: '/v1/nothing' }),
    );

    // A handler that answers with a Response of its own still gets the id.
    const raw = await app.request('/raw', { headers: { 'x-request-id': 'req-43' } });
    expect(await raw.text()).toBe('raw');
    expect(raw.headers.get('x-request-id')).toBe('req-43');
    // And one that answers through the context keeps its own headers beside it.
    const json = await app.request('/json');
    expect(json.status).toBe(201);
    expect(json.headers.get('cache-control')).toBe('no-store');
    expect(json.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);

    const metrics = await (await app.request('/metrics')).text();
    expect(metrics).toMatch(
      /http_request_duration_seconds_count\{service="test",method="GET",route="\/health\/ready",status="200"\} 1/,
    );
  });
});

describe('startHttpServer', () => {
  it('binds port 0 and lets an in-flight request finish before closing', { timeout: 10_000 }, async () => {
    const { app } = serviceApp();
    const entered = signal();
    const release = signal();
    app.get('/slow', async (c) => {
      entered.fire();
      await release.promise;
      return c.json({ done: true });
    });
    const server = await startHttpServer(app, { port: 0, host: '127.0.0.1', closeTimeoutMs: 30_000 });
    expect(server.port).toBeGreaterThan(0);
    expect(server.url).toBe(`http://127.0.0.1:${server.port}`);

    const events: string[] = [];
    const response = fetch(`${server.url}/slow`);
    await entered.promise;
    const closed = server.close().then(() => events.push('closed'));
    expect(server.close()).toBe(server.close());
    // Give the server a few turns of the event loop in which it could (wrongly) finish closing.
    for (let turn = 0; turn < 5; turn++) await new Promise<void>((resolve) => setImmediate(resolve));
    events.push('released');
    release.fire();
    const res = await response;
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ done: true });
    await closed;
    expect(events).toEqual(['released', 'closed']);
    await expect(fetch(`${server.url}/health/live`)).rejects.toThrow();
  });

  it('cuts a request that outlives the close timeout', async () => {
    const { app } = serviceApp();
    const entered = signal();
    app.get('/hang', async () => {
      entered.fire();
      return new Promise<Response>(() => {});
    });
    const server = await startHttpServer(app, { port: 0, host: '127.0.0.1', closeTimeoutMs: 100 });
    const response = fetch(`${server.url}/hang`);
    await entered.promise;
    await server.close();
    await expect(response).rejects.toThrow();
  });

  it('fails clearly when the port is taken', async () => {
    const { app } = serviceApp();
    const first = await startHttpServer(app, { port: 0, host: '127.0.0.1' });
    await expect(startHttpServer(app, { port: first.port, host: '127.0.0.1' })).rejects.toThrow(
      `Cannot listen on 127.0.0.1:${first.port}`,
    );
    await first.close();
  });
});
