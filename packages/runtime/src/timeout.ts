import { AppError } from './errors.ts';

/**
 * Settles with `work`, or rejects with a DOWNSTREAM_TIMEOUT AppError after `timeoutMs`. The work itself
 * is not cancelled (promises cannot be); the caller just stops waiting for it.
 */
export async function withTimeout<T>(
  work: Promise<T> | (() => Promise<T>),
  timeoutMs: number,
  what: string,
): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new AppError('DOWNSTREAM_TIMEOUT', `${what} timed out after ${timeoutMs}ms`)),
      timeoutMs,
    );
  });
  try {
    const promise = typeof work === 'function' ? Promise.resolve().then(work) : work;
    return await Promise.race([promise, timedOut]);
  } finally {
    clearTimeout(timer);
  }
}

/** An abort signal with a deadline, for one call: see `deadline`. */
export interface Deadline {
  /** Aborted when the deadline passes (reason: a `TimeoutError` DOMException) or when `parent` is. */
  readonly signal: AbortSignal;
  /** Whether it was the deadline, rather than the parent, that aborted. */
  readonly timedOut: boolean;
  /** Stops the timer and lets go of the parent: call it once the call settled. */
  clear(): void;
}

/**
 * An abort signal that fires after `timeoutMs`, or with `parent`. Unlike `AbortSignal.timeout`, its timer
 * is cleared once the call is over (`clear`): a timeout signal's timer fires anyway when it is due and
 * builds its DOMException, stack and all, for every call made, a cost paid on every request of a busy
 * client long after the request was answered.
 */
export function deadline(timeoutMs: number, parent?: AbortSignal): Deadline {
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(new DOMException(`no answer within ${timeoutMs} ms`, 'TimeoutError'));
  }, timeoutMs);
  const onParentAbort = () => controller.abort(parent?.reason);
  if (parent?.aborted) controller.abort(parent.reason);
  else parent?.addEventListener('abort', onParentAbort, { once: true });
  return {
    signal: controller.signal,
    get timedOut() {
      return timedOut;
    },
    clear() {
      clearTimeout(timer);
      parent?.removeEventListener('abort', onParentAbort);
    },
  };
}
