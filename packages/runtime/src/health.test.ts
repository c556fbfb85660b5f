import { describe, expect, it } from 'vitest';
import { isAppError } from './errors.ts';
import { createHealth, healthRoutes } from './health.ts';

async function probe(health: ReturnType<typeof createHealth>, path: string) {
  const response = await healthRoutes(health).request(path);
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

describe('health', () => {
  it('is not ready while starting, ready once marked, and not ready while draining', async () => {
    const health = createHealth();
    health.addCheck('kafka', () => {});

    const starting = await probe(health, '/health/ready');
    expect(starting.status).toBe(503);
    expect(starting.body).toMatchObject({ status: 'unavailable', state: 'starting' });
    expect(starting.body.checks).toEqual([expect.objectContaining({ name: 'kafka', ok: true })]);

    health.markReady();
    expect((await probe(health, '/health/ready')).status).toBe(200);

    health.markDraining();
    const draining = await probe(health, '/health/ready');
    expect(draining.status).toBe(503);
    expect(draining.body.state).toBe('draining');
    expect((await probe(health, '/health/live')).status).toBe(200);

    health.markStopped();
    expect((await probe(health, '/health/live')).status).toBe(503);
  });

  it('reports a failing and a hanging check by name when ready', async () => {
    const health = createHealth({ checkTimeoutMs: 50 });
    health.addCheck('mongodb', async () => {
      throw new Error('not primary');
    });
    health.addCheck('kafka', () => new Promise<void>(() => {}));
    health.addCheck('registry', async () => {});
    health.markReady();
    const ready = await probe(health, '/health/ready');
    expect(ready.status).toBe(503);
    expect(ready.body.checks).toEqual([
      expect.objectContaining({ name: 'mongodb', ok: false, error: 'not primary' }),
      expect.objectContaining({ name: 'kafka', ok: false, error: expect.stringContaining('timed out') }),
      expect.objectContaining({ name: 'registry', ok: true }),
    ]);
  });

  it('refuses to go backwards', () => {
    const health = createHealth();
    health.markDraining();
    health.markDraining();
    expect(health.state).toBe('draining');
    let caught: unknown;
    try {
      health.setState('starting');
    } catch (err) {
      caught = err;
    }
    expect(isAppError(caught, 'ILLEGAL_TRANSITION')).toBe(true);
  });
});

describe('a drain that starts during start-up', () => {
  it('stays draining when start-up later marks the service ready', () => {
    const health = createHealth();
    health.markDraining();
    health.markReady();
    expect(health.state).toBe('draining');
  });
});
