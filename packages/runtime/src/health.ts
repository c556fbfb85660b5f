import { Hono } from 'hono';
import { AppError, errorMessage } from './errors.ts';
import { withTimeout } from './timeout.ts';

export const healthStates = ['starting', 'ready', 'draining', 'stopped'] as const;
export type HealthState = (typeof healthStates)[number];

/** Allowed moves between states; anything else is a bug in the composition root. */
export const healthTransitions: Readonly<Record<HealthState, readonly HealthState[]>> = {
  starting: ['ready', 'draining', 'stopped'],
  ready: ['draining', 'stopped'],
  draining: ['stopped'],
  stopped: [],
};

export type HealthCheck = () => Promise<void> | void;

export interface CheckResult {
  readonly name: string;
  readonly ok: boolean;
  readonly durationMs: number;
  readonly error?: string;
}

export interface ReadinessReport {
  readonly ready: boolean;
  readonly state: HealthState;
  readonly checks: readonly CheckResult[];
}

export interface Health {
  readonly state: HealthState;
  /** Moves to `state`; setting the current state again is a no-op, going backwards throws. */
  setState(state: HealthState): void;
  markReady(): void;
  markDraining(): void;
  markStopped(): void;
  /** Registers a dependency check; it throws (or rejects) when the dependency is unhealthy. */
  addCheck(name: string, check: HealthCheck, options?: { timeoutMs?: number }): void;
  isLive(): boolean;
  readiness(): Promise<ReadinessReport>;
}

export interface HealthOptions {
  /** How long one check may take before it counts as failed. */
  readonly checkTimeoutMs?: number;
}

export function createHealth(options: HealthOptions = {}): Health {
  const defaultTimeoutMs = options.checkTimeoutMs ?? 2000;
  const checks = new Map<string, { check: HealthCheck; timeoutMs: number }>();
  let state: HealthState = 'starting';

  const setState = (next: HealthState): void => {
    if (next === state) return;
    // A signal can start draining while start-up is still running: its later markReady() must not undo
    // the drain (nor crash start-up), so a late move back to ready is ignored.
    if (next === 'ready' && (state === 'draining' || state === 'stopped')) return;
    if (!healthTransitions[state].includes(next)) {
      throw new AppError('ILLEGAL_TRANSITION', `Health cannot move from ${state} to ${next}`);
    }
    state = next;
  };

  const runCheck = async (name: string, check: HealthCheck, timeoutMs: number): Promise<CheckResult> => {
    const started = performance.now();
    try {
      await withTimeout(async () => check(), timeoutMs, `Health check ${name}`);
      return { name, ok: true, durationMs: Math.round(performance.now() - started) };
    } catch (err) {
      return {
        name,
        ok: false,
        durationMs: Math.round(performance.now() - started),
        error: errorMessage(err),
      };
    }
  };

  return {
    get state() {
      return state;
    },
    setState,
    markReady: () => setState('ready'),
    markDraining: () => setState('draining'),
    markStopped: () => setState('stopped'),
    addCheck(name, check, checkOptions) {
      if (checks.has(name)) throw new AppError('CONFLICT', `Health check ${name} is already registered`);
      checks.set(name, { check, timeoutMs: checkOptions?.timeoutMs ?? defaultTimeoutMs });
    },
    isLive: () => state !== 'stopped',
    async readiness() {
      const stateAtStart = state;
      const results = await Promise.all(
        [...checks].map(([name, { check, timeoutMs }]) => runCheck(name, check, timeoutMs)),
      );
      const ready = stateAtStart === 'ready' && state === 'ready' && results.every((result) => result.ok);
      return { ready, state, checks: results };
    },
  };
}

/** `/health/live` and `/health/ready`, for the orchestrator's probes. */
export function healthRoutes(health: Health): Hono {
  const app = new Hono();
  app.get('/health/live', (c) =>
    c.json(
      { status: health.isLive() ? 'live' : 'stopped', state: health.state },
      health.isLive() ? 200 : 503,
    ),
  );
  app.get('/health/ready', async (c) => {
    const report = await health.readiness();
    c.header('Cache-Control', 'no-store');
    return c.json(
      { status: report.ready ? 'ready' : 'unavailable', state: report.state, checks: report.checks },
      report.ready ? 200 : 503,
    );
  });
  return app;
}
