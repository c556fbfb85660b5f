import { describe, expect, it } from 'vitest';
import { createHealth } from './health.ts';
import { createLifecycle, type StopPhase } from './lifecycle.ts';
import { memoryLogger } from './memory-logger.ts';

function setup(hookTimeoutMs = 5_000) {
  const health = createHealth();
  health.markReady();
  const { logger, lines } = memoryLogger();
  const exits: number[] = [];
  const lifecycle = createLifecycle({ logger, health, hookTimeoutMs, exit: (code) => exits.push(code) });
  return { health, lifecycle, lines, exits };
}

describe('lifecycle', () => {
  it('drains first and stops phases in fixed order whatever the registration order', async () => {
    const { health, lifecycle, lines } = setup();
    const calls: string[] = [];
    const statesSeen: string[] = [];
    const record = (phase: StopPhase) => () => {
      calls.push(phase);
      statesSeen.push(health.state);
    };
    lifecycle.onStop('other', 'metrics', record('other'));
    lifecycle.onStop('store', 'mongodb', record('store'));
    lifecycle.onStop('http', 'server', record('http'));
    lifecycle.onStop('producers', 'postings', record('producers'));
    lifecycle.onStop('consumers', 'collections', record('consumers'));

    const result = await lifecycle.shutdown('SIGTERM');
    expect(result).toEqual({ ok: true, failures: [] });
    expect(calls).toEqual(['http', 'consumers', 'producers', 'store', 'other']);
    expect(statesSeen.every((state) => state === 'draining')).toBe(true);
    expect(health.state).toBe('stopped');
    expect(lines.map((line) => line.msg)).toContain('shutdown complete');
  });

  it('runs hooks of one phase concurrently', async () => {
    const { lifecycle } = setup(2_000);
    let releaseFirst!: () => void;
    const firstMayFinish = new Promise<void>((resolve) => {
      releaseFirst = resolve;
    });
    // The first hook waits for the second: run one after the other, they would time out.
    lifecycle.onStop('consumers', 'first', () => firstMayFinish);
    lifecycle.onStop('consumers', 'second', () => releaseFirst());
    expect(await lifecycle.shutdown('test')).toEqual({ ok: true, failures: [] });
  });

  it('reports failing and hanging hooks without blocking the others', async () => {
    const { lifecycle, health } = setup(50);
    const stopped: string[] = [];
    lifecycle.onStop('consumers', 'stuck-consumer', () => new Promise<void>(() => {}));
    lifecycle.onStop('consumers', 'good-consumer', () => {
      stopped.push('good-consumer');
    });
    lifecycle.onStop('producers', 'broken-producer', async () => {
      throw new Error('flush failed');
    });
    lifecycle.onStop('store', 'mongodb', () => {
      stopped.push('mongodb');
    });
    const result = await lifecycle.shutdown('test');
    expect(result.ok).toBe(false);
    expect(result.failures).toEqual([
      'consumers/stuck-consumer: consumers/stuck-consumer timed out after 50ms',
      'producers/broken-producer: flush failed',
    ]);
    expect(stopped).toEqual(['good-consumer', 'mongodb']);
    expect(health.state).toBe('stopped');
  });

  it('is idempotent', async () => {
    const { lifecycle } = setup();
    let runs = 0;
    lifecycle.onStop('http', 'server', () => {
      runs++;
    });
    const first = lifecycle.shutdown('SIGTERM');
    expect(lifecycle.shutdown('SIGINT')).toBe(first);
    await first;
    expect(runs).toBe(1);
  });

  it('exits with 1 after a signal when a hook failed', async () => {
    const { lifecycle, exits } = setup();
    lifecycle.onStop('store', 'mongodb', async () => {
      throw new Error('close failed');
    });
    const before = new Set(process.listeners('SIGTERM'));
    const uninstall = lifecycle.installSignalHandlers();
    const handler = process.listeners('SIGTERM').find((listener) => !before.has(listener));
    expect(handler).toBeDefined();
    try {
      handler!('SIGTERM');
      await lifecycle.shutdown('ignored: already running');
      await new Promise<void>((resolve) => setImmediate(resolve));
      expect(exits).toEqual([1]);
    } finally {
      uninstall();
    }
    expect(process.listeners('SIGTERM')).not.toContain(handler);
  });
});
