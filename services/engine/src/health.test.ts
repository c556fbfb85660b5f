import { adminResponseProblems } from '@rp/contracts';
import {
  createHealth,
  createLifecycle,
  type HostedService,
  memoryLogger,
  type StartedService,
} from '@rp/runtime';
import { describe, expect, it } from 'vitest';
import { type EngineHealth, engineHealth } from './health.ts';

/** A service whose start resolves when the test says, with a health of its own. */
function service(name: string) {
  const health = createHealth();
  let release: () => void = () => undefined;
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  const { logger } = memoryLogger();
  const hosted: HostedService = {
    name,
    env: {},
    start: async (): Promise<StartedService> => {
      await released;
      return { name, logger, health, lifecycle: createLifecycle({ logger, health, exit: () => undefined }) };
    },
  };
  /** Lets `tracked` (this service as the engine tracks it) start, ready. */
  const startReady = async (tracked: HostedService | undefined) => {
    release();
    health.markReady();
    await tracked?.start({}, { signals: false });
  };
  return { hosted, health, startReady };
}

interface Probe {
  status: number;
  body: { status: string; state: string; checks?: { name: string; ok: boolean; error?: string }[] };
}

/** A probe's answer, checked against the probes' document (the same as every service's). */
async function probe(engine: EngineHealth, path: '/health/live' | '/health/ready'): Promise<Probe> {
  const response = await engine.app.request(path);
  const body = await response.json();
  expect(
    adminResponseProblems({
      service: 'engine',
      method: 'GET',
      path,
      status: response.status,
      contentType: response.headers.get('content-type'),
      body,
    }),
  ).toEqual([]);
  return { status: response.status, body: body as Probe['body'] };
}

describe('engineHealth', () => {
  it('is live from the start, ready only once every service has started and while each is ready', async () => {
    const tracker = service('tracker');
    const ingress = service('ingress');
    const engine = engineHealth(['tracker', 'ingress']);
    const [first, second] = [engine.track(tracker.hosted), engine.track(ingress.hosted)];

    expect(await probe(engine, '/health/live')).toEqual({
      status: 200,
      body: { status: 'live', state: 'starting' },
    });
    const before = await probe(engine, '/health/ready');
    expect(before.status).toBe(503);
    expect(before.body.checks).toEqual([
      { name: 'tracker', ok: false, durationMs: 0, error: 'not started' },
      { name: 'ingress', ok: false, durationMs: 0, error: 'not started' },
    ]);

    await tracker.startReady(first);
    const half = await probe(engine, '/health/ready');
    expect(half.status).toBe(503);
    expect(half.body.state).toBe('starting');
    expect(half.body.checks?.map((check) => [check.name, check.ok])).toEqual([
      ['tracker', true],
      ['ingress', false],
    ]);

    await ingress.startReady(second);
    const ready = await probe(engine, '/health/ready');
    expect(ready.status).toBe(200);
    expect(ready.body.state).toBe('ready');

    // A failing check of one service makes the engine unready, naming the service and its check.
    tracker.health.addCheck('mongodb', () => {
      throw new Error('no server');
    });
    const failing = await probe(engine, '/health/ready');
    expect(failing.status).toBe(503);
    expect(failing.body.checks?.[0]).toMatchObject({
      name: 'tracker',
      ok: false,
      error: 'mongodb: no server',
    });
  });

  it('is unready while a service drains and not live once one has stopped', async () => {
    const tracker = service('tracker');
    const engine = engineHealth(['tracker']);
    await tracker.startReady(engine.track(tracker.hosted));
    expect((await probe(engine, '/health/ready')).status).toBe(200);

    tracker.health.markDraining();
    const draining = await probe(engine, '/health/ready');
    expect(draining.status).toBe(503);
    expect(draining.body.checks?.[0]).toMatchObject({ name: 'tracker', ok: false, error: 'draining' });
    expect((await probe(engine, '/health/live')).status).toBe(200);
    tracker.health.markStopped();
    expect(await probe(engine, '/health/live')).toEqual({
      status: 503,
      body: { status: 'stopped', state: 'stopped' },
    });
  });
});
