import type { CheckResult, HealthState, HostedService, StartedService } from '@rp/runtime';
import { Hono } from 'hono';

/**
 * The engine's own probes, over the services it runs, for an orchestrator that probes a container on one
 * port (a pod's probes). They answer as a service's probes do (the same documents), the services in the
 * place of a service's dependencies: `/health/live` 200 until one of the services has stopped;
 * `/health/ready` 200 once every service has started and while each is ready, with a check for each
 * service (its state, and its own failing checks). Each service keeps its own probes on its own port.
 */
export interface EngineHealth {
  readonly app: Hono;
  /** `service` as `runTogether` should start it: once started, its health counts in the engine's. */
  track(service: HostedService): HostedService;
}

/** The engine's state: the least advanced of its services' (`stopped` and `draining` first). */
function engineState(states: readonly (HealthState | 'not started')[]): HealthState {
  for (const state of ['stopped', 'draining'] as const) if (states.includes(state)) return state;
  return states.every((state) => state === 'ready') ? 'ready' : 'starting';
}

export function engineHealth(services: readonly string[]): EngineHealth {
  const started = new Map<string, StartedService>();
  const stateOf = (name: string) => started.get(name)?.health.state ?? 'not started';

  /** One service as a check of the engine's readiness. */
  const checkOf = async (name: string): Promise<CheckResult> => {
    const service = started.get(name);
    if (service === undefined) return { name, ok: false, durationMs: 0, error: 'not started' };
    const begun = performance.now();
    const report = await service.health.readiness();
    const durationMs = Math.round(performance.now() - begun);
    if (report.ready) return { name, ok: true, durationMs };
    const failing = report.checks.filter((check) => !check.ok);
    const error =
      failing.length > 0
        ? failing.map((check) => `${check.name}: ${check.error ?? 'failed'}`).join('; ')
        : report.state;
    return { name, ok: false, durationMs, error };
  };

  const app = new Hono();
  app.get('/health/live', (c) => {
    const state = engineState(services.map(stateOf));
    c.header('Cache-Control', 'no-store');
    return c.json(
      { status: state === 'stopped' ? 'stopped' : 'live', state },
      state === 'stopped' ? 503 : 200,
    );
  });
  app.get('/health/ready', async (c) => {
    const checks = await Promise.all(services.map(checkOf));
    const state = engineState(services.map(stateOf));
    const ready = state === 'ready' && checks.every((check) => check.ok);
    c.header('Cache-Control', 'no-store');
    return c.json({ status: ready ? 'ready' : 'unavailable', state, checks }, ready ? 200 : 503);
  });

  return {
    app,
    track: (service) => ({
      ...service,
      start: async (env, options) => {
        const running = await service.start(env, options);
        started.set(running.name, running);
        return running;
      },
    }),
  };
}
