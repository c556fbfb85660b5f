import { type DestinationStream, type Level, type Logger, pino } from 'pino';

export type { Level as LogLevel, Logger } from 'pino';

export const logLevels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/**
 * Paths whose values are replaced before a line is written. pino's `*` matches one level, so the
 * common nesting depths are listed explicitly.
 */
export const redactedLogPaths: readonly string[] = [
  'secret',
  'password',
  'token',
  '*.secret',
  '*.password',
  '*.token',
  '*.*.secret',
  '*.*.password',
  '*.*.token',
  'headers.authorization',
  'headers.cookie',
  'headers["webhook-signature"]',
  '*.headers.authorization',
  '*.headers.cookie',
  '*.headers["webhook-signature"]',
  '["webhook-signature"]',
  '*["webhook-signature"]',
];

export interface LoggerOptions {
  readonly service: string;
  readonly level?: Level | 'silent' | undefined;
  /** Where lines go; standard output when omitted. Tests pass a stream to read the lines back. */
  readonly destination?: DestinationStream;
}

/** JSON logger with `service` on every line, ISO timestamps, level names and secret redaction. */
export function createLogger(options: LoggerOptions): Logger {
  const settings = {
    level: options.level ?? 'info',
    base: { service: options.service },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label: string) => ({ level: label }) },
    redact: { paths: [...redactedLogPaths], censor: '[redacted]' },
  };
  return options.destination ? pino(settings, options.destination) : pino(settings);
}

export interface TransactionContext {
  readonly uetr?: string | undefined;
  readonly messageIdentification?: string | undefined;
}

/** Child logger that puts the payment's identifiers on every line, so one grep follows a transaction. */
export function transactionLogger(logger: Logger, context: TransactionContext): Logger {
  const bindings: Record<string, string> = {};
  if (context.uetr !== undefined) bindings.uetr = context.uetr;
  if (context.messageIdentification !== undefined) {
    bindings.messageIdentification = context.messageIdentification;
  }
  return logger.child(bindings);
}
