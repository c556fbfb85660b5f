import { errorMessage } from './errors.ts';
import type { Health } from './health.ts';
import type { Logger } from './logging.ts';
import { withTimeout } from './timeout.ts';

/**
 * Shutdown phases, always run in this order: stop taking HTTP requests, stop consumers (committing
 * what they processed), flush producers, close the store, then anything else.
 */
export const stopPhases = ['http', 'consumers', 'producers', 'store', 'other'] as const;
export type StopPhase = (typeof stopPhases)[number];

export type StopHook = () => Promise<void> | void;

export interface ShutdownResult {
  readonly ok: boolean;
  /** `phase/name: reason` for each hook that failed or timed out. */
  readonly failures: readonly string[];
}

export interface Lifecycle {
  onStop(phase: StopPhase, name: string, hook: StopHook, options?: { timeoutMs?: number }): void;
  /** Drains and stops; calling it again returns the first call's promise. */
  shutdown(reason: string): Promise<ShutdownResult>;
  /** On SIGTERM/SIGINT: shut down, then exit 0 (or 1 if a hook failed). Returns an uninstaller. */
  installSignalHandlers(): () => void;
}

export interface LifecycleOptions {
  readonly logger: Logger;
  readonly health: Health;
  /** Per-hook limit unless the hook sets its own. */
  readonly hookTimeoutMs?: number;
  /** Replaced in tests; `process.exit` otherwise. */
  readonly exit?: (code: number) => void;
}

interface Registration {
  readonly name: string;
  readonly hook: StopHook;
  readonly timeoutMs: number;
}

export function createLifecycle(options: LifecycleOptions): Lifecycle {
  const { logger, health } = options;
  const hookTimeoutMs = options.hookTimeoutMs ?? 10_000;
  const exit = options.exit ?? ((code: number) => process.exit(code));
  const hooks = new Map<StopPhase, Registration[]>(stopPhases.map((phase) => [phase, []]));
  let shuttingDown: Promise<ShutdownResult> | undefined;

  const runHook = async (phase: StopPhase, registration: Registration): Promise<string | undefined> => {
    const started = performance.now();
    try {
      await withTimeout(
        async () => registration.hook(),
        registration.timeoutMs,
        `${phase}/${registration.name}`,
      );
      logger.info(
        { phase, hook: registration.name, durationMs: Math.round(performance.now() - started) },
        'stopped',
      );
      return undefined;
    } catch (err) {
      const failure = `${phase}/${registration.name}: ${errorMessage(err)}`;
      logger.error({ phase, hook: registration.name, err }, `stop hook failed: ${failure}`);
      return failure;
    }
  };

  const run = async (reason: string): Promise<ShutdownResult> => {
    logger.info({ reason }, 'shutting down');
    if (health.state !== 'stopped') health.setState('draining');
    const failures: string[] = [];
    for (const phase of stopPhases) {
      const registrations = hooks.get(phase) ?? [];
      if (registrations.length === 0) continue;
      logger.info({ phase, hooks: registrations.map((registration) => registration.name) }, 'stopping phase');
      const results = await Promise.all(registrations.map((registration) => runHook(phase, registration)));
      for (const failure of results) if (failure !== undefined) failures.push(failure);
    }
    health.setState('stopped');
    const result = { ok: failures.length === 0, failures };
    if (result.ok) logger.info({ reason }, 'shutdown complete');
    else logger.error({ reason, failures }, 'shutdown finished with failures');
    return result;
  };

  const shutdown = (reason: string): Promise<ShutdownResult> => {
    shuttingDown ??= run(reason);
    return shuttingDown;
  };

  return {
    onStop(phase, name, hook, hookOptions) {
      hooks.get(phase)!.push({ name, hook, timeoutMs: hookOptions?.timeoutMs ?? hookTimeoutMs });
    },
    shutdown,
    installSignalHandlers() {
      const onSignal = (signal: NodeJS.Signals): void => {
        if (shuttingDown) {
          // A second signal means the operator will not wait; leave at once.
          logger.warn({ signal }, 'second signal during shutdown, exiting now');
          exit(1);
          return;
        }
        void shutdown(signal).then(
          (result) => exit(result.ok ? 0 : 1),
          (err: unknown) => {
            logger.error({ err }, 'shutdown crashed');
            exit(1);
          },
        );
      };
      process.on('SIGTERM', onSignal);
      process.on('SIGINT', onSignal);
      return () => {
        process.off('SIGTERM', onSignal);
        process.off('SIGINT', onSignal);
      };
    },
  };
}
