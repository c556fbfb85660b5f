import { type LogEntry, logLevel } from 'kafkajs';

/** The logging this package needs; a pino logger satisfies it. */
export interface Logger {
  debug(context: Record<string, unknown>, message?: string): void;
  info(context: Record<string, unknown>, message?: string): void;
  warn(context: Record<string, unknown>, message?: string): void;
  error(context: Record<string, unknown>, message?: string): void;
}

export const silentLogger: Logger = {
  debug() {},
  info() {},
  warn() {},
  error() {},
};

/** kafkajs speaks through our logger; only its warnings and errors get that far (logLevel WARN). */
export function kafkaJsLogCreator(logger: Logger): () => (entry: LogEntry) => void {
  return () =>
    ({ namespace, level, log }) => {
      const { message, timestamp: _timestamp, logger: _name, ...extra } = log;
      const context = { component: 'kafkajs', namespace, ...extra };
      if (level === logLevel.ERROR) logger.error(context, message);
      else if (level === logLevel.WARN) logger.warn(context, message);
      else if (level === logLevel.INFO) logger.info(context, message);
      else logger.debug(context, message);
    };
}

let timeoutWarningFiltered = false;

/**
 * kafkajs 2.2.4 arms timers with a negative delay, which Node 24 reports as a TimeoutNegativeWarning
 * (Node then uses 1 ms). The worst of them, a request queue polling itself each millisecond, is fixed in
 * request-queue.ts; the rest (a retry or a connection timeout computed below zero) fire at once, as
 * kafkajs meant. That one warning is dropped; every other warning passes through untouched.
 */
export function filterTimeoutNegativeWarning(): void {
  if (timeoutWarningFiltered) return;
  timeoutWarningFiltered = true;
  const emitWarning = process.emitWarning.bind(process) as (...args: unknown[]) => void;
  process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
    const first = rest[0];
    const type =
      typeof first === 'string'
        ? first
        : typeof first === 'object' && first !== null
          ? (first as { type?: unknown }).type
          : undefined;
    const name = warning instanceof Error ? warning.name : undefined;
    if (type === 'TimeoutNegativeWarning' || name === 'TimeoutNegativeWarning') return;
    emitWarning(warning, ...rest);
  }) as typeof process.emitWarning;
}
