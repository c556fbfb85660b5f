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
