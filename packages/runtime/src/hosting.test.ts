import { describe, expect, it } from 'vitest';
import { duration, int, oneOf } from './config.ts';
import { AppError } from './errors.ts';
import { createHealth } from './health.ts';
import {
  type Environment,
  type HostProcess,
  runAlone,
  runTogether,
  type ServiceStarter,
  ServiceStartFailed,
  type StartOptions,
  serveAndRun,
  serviceBase,
  serviceScope,
  startService,
} from './hosting.ts';
import { createHttpApp } from './http.ts';
import { createLifecycle } from './lifecycle.ts';
import { logLevels } from './logging.ts';
import { memoryLogger } from './memory-logger.ts';
import { tracingConfig } from './tracing.ts';

/** A process whose exits, reports and signal handlers are kept for the test to read and fire. */
function fakeProcess() {
  const exits: number[] = [];
  const reports: string[] = [];
  let handler: ((signal: NodeJS.Signals) => void) | undefined;
  const host: HostProcess = {
    exit: (code) => exits.push(code),
    report: (text) => reports.push(text),
    onSignal: (installed) => {
      handler = installed;
      return () => {
        handler = undefined;
      };
    },
  };
  return {
    host,
    exits,
    reports,
    signal: (signal: NodeJS.Signals) => handler?.(signal),
    installed: () => handler !== undefined,
  };
}

interface Calls {
  readonly events: string[];
  readonly options: Record<string, StartOptions>;
  readonly envs: Record<string, Environment>;
}

/** A service that records its start and the stops of its lifecycle's hooks. */
function service(
  name: string,
  calls: Calls,
  behaviour: { fail?: 'logged' | 'config'; stopFails?: boolean } = {},
) {
  const start: ServiceStarter = async (env, options) => {
    calls.events.push(`start ${name}`);
    calls.options[name] = options;
    calls.envs[name] = env;
    if (behaviour.fail === 'config') throw new AppError('CONFIG_INVALID', `${name}: PORT: not a port`);
    const { logger } = memoryLogger();
    const health = createHealth();
    const lifecycle = createLifecycle({ logger, health, exit: () => undefined });
    lifecycle.onStop('consumers', 'consumer', () => {
      calls.events.push(`stop ${name}`);
      if (behaviour.stopFails) throw new Error('commit refused');
    });
    if (behaviour.fail === 'logged') {
      await lifecycle.shutdown('start-up failed');
      throw new ServiceStartFailed(name, new Error('broker unreachable'));
    }
    return { name, logger, health, lifecycle };
  };
  return { name, start, env: { PORT: name } };
}

const newCalls = (): Calls => ({ events: [], options: {}, envs: {} });

describe('runAlone', () => {
  it('starts the service with its own signal handling and the environment given', async () => {
    const calls = newCalls();
    const proc = fakeProcess();
    const { start } = service('tracker', calls);
    const running = await runAlone(start, { PORT: '8085' }, proc.host);
    expect(running?.name).toBe('tracker');
    expect(calls.options.tracker).toEqual({ signals: true });
    expect(calls.envs.tracker).toEqual({ PORT: '8085' });
    expect(proc.exits).toEqual([]);
  });

  it('exits with 1 when the start fails, writing the error only when the service could not log it', async () => {
    const logged = fakeProcess();
    await runAlone(service('tracker', newCalls(), { fail: 'logged' }).start, {}, logged.host);
    expect(logged.exits).toEqual([1]);
    expect(logged.reports).toEqual([]);

    const unlogged = fakeProcess();
    await runAlone(service('tracker', newCalls(), { fail: 'config' }).start, {}, unlogged.host);
    expect(unlogged.exits).toEqual([1]);
    expect(unlogged.reports.join('\n')).toContain('PORT: not a port');
  });
});

describe('runTogether', () => {
  it('starts the services one after another, each with its environment and no signal handling of its own', async () => {
    const calls = newCalls();
    const proc = fakeProcess();
    const { logger, lines } = memoryLogger();
    const running = await runTogether(
      [service('tracker', calls), service('validator', calls), service('ingress', calls)],
      logger,
      proc.host,
    );
    expect(running.started.map((started) => started.name)).toEqual(['tracker', 'validator', 'ingress']);
    expect(calls.events).toEqual(['start tracker', 'start validator', 'start ingress']);
    expect(Object.values(calls.options)).toEqual([
      { signals: false },
      { signals: false },
      { signals: false },
    ]);
    expect(calls.envs.validator).toEqual({ PORT: 'validator' });
    expect(proc.installed()).toBe(true);
    expect(lines.some((line) => line.msg === 'all services started')).toBe(true);
  });

  it('on a signal stops them the last started first, then exits with 0; a second signal exits at once', async () => {
    const calls = newCalls();
    const proc = fakeProcess();
    const { logger } = memoryLogger();
    const running = await runTogether(
      [service('tracker', calls), service('validator', calls), service('ingress', calls)],
      logger,
      proc.host,
    );
    proc.signal('SIGTERM');
    proc.signal('SIGTERM');
    expect(proc.exits).toEqual([1]);
    const result = await running.stop('SIGTERM');
    expect(result).toEqual({ ok: true, failures: [] });
    expect(calls.events.slice(3)).toEqual(['stop ingress', 'stop validator', 'stop tracker']);
    await new Promise<void>((resolve) => setImmediate(resolve));
    expect(proc.exits).toEqual([1, 0]);
  });

  it('exits with 1 when a service fails to stop, naming it', async () => {
    const calls = newCalls();
    const proc = fakeProcess();
    const { logger } = memoryLogger();
    const running = await runTogether(
      [service('tracker', calls, { stopFails: true }), service('ingress', calls)],
      logger,
      proc.host,
    );
    proc.signal('SIGINT');
    const result = await running.stop('SIGINT');
    expect(result.ok).toBe(false);
    expect(result.failures).toEqual(['tracker: consumers/consumer: commit refused']);
    await new Promise<void>((resolve) => setImmediate(resolve));
    expect(proc.exits).toEqual([1]);
  });

  it('when one cannot start, starts none after it, stops those before it in reverse and exits with 1', async () => {
    const calls = newCalls();
    const proc = fakeProcess();
    const { logger, lines } = memoryLogger();
    const running = await runTogether(
      [
        service('tracker', calls),
        service('validator', calls),
        service('scheduler', calls, { fail: 'config' }),
        service('ingress', calls),
      ],
      logger,
      proc.host,
    );
    expect(calls.events).toEqual([
      'start tracker',
      'start validator',
      'start scheduler',
      'stop validator',
      'stop tracker',
    ]);
    expect(running.started.map((started) => started.name)).toEqual(['tracker', 'validator']);
    expect(proc.exits).toEqual([1]);
    expect(proc.reports.join('\n')).toContain('scheduler: PORT: not a port');
    expect(proc.installed()).toBe(false);
    expect(lines.find((line) => line.msg === 'a service failed to start; stopping the others')?.service).toBe(
      'scheduler',
    );
  });

  it('a signal during a start stops that service too once it is up, and starts none after it', async () => {
    const calls = newCalls();
    const proc = fakeProcess();
    const { logger } = memoryLogger();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const slow = service('validator', calls);
    const slowStart: ServiceStarter = async (env, options) => {
      const running = await slow.start(env, options);
      await gate;
      return running;
    };
    const together = runTogether(
      [service('tracker', calls), { ...slow, start: slowStart }, service('ingress', calls)],
      logger,
      proc.host,
    );
    await new Promise<void>((resolve) => setImmediate(resolve));
    expect(calls.events).toEqual(['start tracker', 'start validator']);
    proc.signal('SIGTERM');
    release();
    const running = await together;
    await running.stop('SIGTERM');
    expect(calls.events).toEqual(['start tracker', 'start validator', 'stop validator', 'stop tracker']);
    await new Promise<void>((resolve) => setImmediate(resolve));
    expect(proc.exits).toEqual([0]);
  });
});

describe('serviceScope', () => {
  it("is a service's name in capitals, dashes as underscores, and two underscores", () => {
    expect(serviceScope('event-publisher')).toBe('EVENT_PUBLISHER__');
    expect(serviceScope('tracker')).toBe('TRACKER__');
  });
});

/** A service's configuration: the settings every service reads, and one of its own. */
const spec = {
  LOG_LEVEL: oneOf(logLevels, { default: 'silent' }),
  SHUTDOWN_TIMEOUT: duration({ default: 5_000 }),
  ...tracingConfig,
  BATCH: int({ default: 10 }),
};

describe('serviceBase', () => {
  it("reads the service's configuration from the environment given, with the parts it starts with", async () => {
    const base = serviceBase('tracker', spec, { BATCH: '25', LOG_LEVEL: 'silent' }, { signals: false });
    expect(base.config.BATCH).toBe(25);
    expect(base.logger.level).toBe('silent');
    expect(base.health.state).not.toBe('stopped');
    expect(await base.metrics.registry.metrics()).toContain('service="tracker"');
    // The stall watch and the tracing are the lifecycle's to stop.
    expect(await base.lifecycle.shutdown('test')).toEqual({ ok: true, failures: [] });
    expect(base.health.state).toBe('stopped');
  });

  it('refuses a bad variable, naming it, before anything is started', () => {
    expect(() => serviceBase('tracker', spec, { BATCH: 'many' }, { signals: false })).toThrow(/BATCH/);
  });
});

describe('serveAndRun', () => {
  it('serves the app, starts the worker, is ready only while it runs, and stops the server before the worker', async () => {
    const base = serviceBase('tracker', spec, {}, { signals: false });
    const events: string[] = [];
    let running = false;
    const worker = {
      start: async () => {
        events.push('worker started');
        running = true;
      },
      stop: async () => {
        // The server no longer answers when the worker is asked to stop.
        const answered = await fetch(`${server.url}/health/live`).then(
          () => true,
          () => false,
        );
        events.push(`worker stopped, server answering: ${answered}`);
        running = false;
      },
      isRunning: () => running,
    };
    const app = createHttpApp({ ...base });
    const server = await serveAndRun('tracker', base, app, 0, worker);
    expect(events).toEqual(['worker started']);

    const ready = await fetch(`${server.url}/health/ready`);
    expect(ready.status).toBe(200);
    running = false;
    const notRunning = await fetch(`${server.url}/health/ready`);
    expect(notRunning.status).toBe(503);
    expect(JSON.stringify(await notRunning.json())).toContain('a consumer is not running');
    running = true;

    expect(await base.lifecycle.shutdown('test')).toEqual({ ok: true, failures: [] });
    expect(events).toEqual(['worker started', 'worker stopped, server answering: false']);
  });
});

describe('startService', () => {
  it('starts the service on its base and hands over its name, logger, health and lifecycle', async () => {
    let seen: number | undefined;
    const started = await startService('tracker', spec, { BATCH: '7' }, { signals: false }, async (base) => {
      seen = base.config.BATCH;
      base.health.markReady();
    });
    expect(seen).toBe(7);
    expect(started.name).toBe('tracker');
    expect(started.health.state).toBe('ready');
    expect(await started.lifecycle.shutdown('test')).toEqual({ ok: true, failures: [] });
  });

  it('when the start throws, stops what it had started and rejects naming the service and the cause', async () => {
    const stopped: string[] = [];
    let health: ReturnType<typeof createHealth> | undefined;
    const failing = startService('tracker', spec, {}, { signals: false }, async (base) => {
      health = base.health;
      base.lifecycle.onStop('producers', 'producer', () => {
        stopped.push('producer');
      });
      throw new Error('broker unreachable');
    });
    await expect(failing).rejects.toThrow(ServiceStartFailed);
    await expect(failing).rejects.toThrow('tracker failed to start: broker unreachable');
    expect(stopped).toEqual(['producer']);
    expect(health?.state).toBe('stopped');
  });
});
