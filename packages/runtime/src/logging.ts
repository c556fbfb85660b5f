import { type ChildLoggerOptions, type DestinationStream, type Level, type Logger, pino } from 'pino';

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
  return lazyChild(logger, bindings);
}

const levelMethods: ReadonlySet<PropertyKey> = new Set(['fatal', 'error', 'warn', 'info', 'debug', 'trace']);
const skip = (): void => {};

/**
 * `logger.child(bindings)`, made when it is first used for more than a line its level leaves out. A
 * pino child serializes (and redacts) its bindings when it is made; a service makes one for every
 * request and message it handles, and most of them never write a line.
 */
export function lazyChild(logger: Logger, bindings: Record<string, unknown>): Logger {
  let child: Logger | undefined;
  const made = (): Logger => {
    child ??= logger.child(bindings);
    return child;
  };
  return new Proxy({} as Logger, {
    get(_target, property) {
      if (child === undefined) {
        // Until it is made, what the parent knows answers (the parent may be lazy too).
        if (levelMethods.has(property) && !logger.isLevelEnabled(property as Level)) return skip;
        if (property === 'isLevelEnabled') return (level: string) => logger.isLevelEnabled(level);
        if (property === 'level') return logger.level;
        if (property === 'child') {
          return (more: Record<string, unknown>, options?: ChildLoggerOptions) =>
            options === undefined ? lazyChild(logger, { ...bindings, ...more }) : made().child(more, options);
        }
      }
      const target = made();
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
    set(_target, property, value) {
      return Reflect.set(made(), property, value);
    },
    has(_target, property) {
      return Reflect.has(made(), property);
    },
    getPrototypeOf() {
      return Reflect.getPrototypeOf(made());
    },
  });
}
