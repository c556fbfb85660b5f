/** What went wrong in the local stack; each code names the step a user has to look at. */
export type StackErrorCode =
  | 'config_invalid'
  | 'tool_missing'
  | 'download_failed'
  | 'build_failed'
  | 'port_in_use'
  | 'start_failed'
  | 'stop_failed'
  | 'lock_timeout';

/**
 * The stack's one error type. It has the same shape as the runtime's application error (code, cause,
 * retriable) but lives here because the launcher must work before, and without, the rest of the build.
 */
export class StackError extends Error {
  readonly code: StackErrorCode;
  readonly retriable: boolean;

  constructor(code: StackErrorCode, message: string, options: { cause?: unknown; retriable?: boolean } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'StackError';
    this.code = code;
    this.retriable = options.retriable ?? false;
  }
}
