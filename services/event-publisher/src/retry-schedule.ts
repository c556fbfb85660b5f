/**
 * When an event posting that a bank did not take is tried again.
 *
 * The n-th retry of a lane's head waits `delaysMs[n - 1]` (the last delay repeats), spread by `jitter`
 * either way so that the postings parked during one outage do not all come back in the same second.
 * A Retry-After the bank sent is a floor, cut to `maxRetryAfterMs` so that a broken header cannot park a
 * lane for days. A posting not delivered within `maxAgeMs` of being queued expires.
 */
export interface RetrySchedule {
  /** Delay before retry n is `delaysMs[n - 1]`; the last one repeats. */
  readonly delaysMs: readonly number[];
  /** Share of each delay added or taken at random (0.2: within ±20 %). */
  readonly jitter: number;
  /** How long a posting may wait for its bank before it expires. */
  readonly maxAgeMs: number;
  /** Longest Retry-After honoured. */
  readonly maxRetryAfterMs: number;
}

const second = 1_000;
const minute = 60 * second;
const hour = 60 * minute;

/** 1 s, 2 s, 5 s, 15 s, 1 min, 5 min, then every 15 min, for up to 48 h. */
export const defaultRetrySchedule: RetrySchedule = {
  delaysMs: [second, 2 * second, 5 * second, 15 * second, minute, 5 * minute, 15 * minute],
  jitter: 0.2,
  maxAgeMs: 48 * hour,
  maxRetryAfterMs: hour,
};

export function validateRetrySchedule(schedule: RetrySchedule): RetrySchedule {
  if (schedule.delaysMs.length === 0) throw new RangeError('the retry schedule needs at least one delay');
  for (const delay of schedule.delaysMs) {
    if (!Number.isFinite(delay) || delay < 0) throw new RangeError(`retry delay ${delay} ms is not a delay`);
  }
  if (!(schedule.jitter >= 0 && schedule.jitter < 1)) throw new RangeError('retry jitter must be in [0, 1)');
  if (!(schedule.maxAgeMs > 0)) throw new RangeError('retry max age must be positive');
  return schedule;
}

/** The delay before the retry that follows the `failures`-th failed attempt (1 for the first failure). */
export function retryDelayMs(
  schedule: RetrySchedule,
  failures: number,
  random: () => number = Math.random,
): number {
  const index = Math.min(Math.max(failures, 1), schedule.delaysMs.length) - 1;
  const base = schedule.delaysMs[index] ?? 0;
  const spread = base * schedule.jitter * (2 * random() - 1);
  return Math.max(0, Math.round(base + spread));
}

/**
 * The failures a lane's head is scheduled by after one more failed attempt: one more, unless the head
 * had failed already and this attempt came before its schedule said (its bank answered again, and the
 * lanes waiting on it were released early). A bank that fails half its calls opens and closes its
 * breaker again and again, and every close releases its lanes early: were those attempts counted, a lane
 * would climb its schedule in seconds and wait minutes after the bank is back. Not counted, a lane's
 * step grows only by the attempts its own schedule made.
 */
export function failuresAfterAttempt(headFailures: number, attemptedAt: Date, scheduledAt: Date): number {
  return headFailures > 0 && attemptedAt.getTime() < scheduledAt.getTime() ? headFailures : headFailures + 1;
}

export interface NextAttempt {
  /** When the lane's head is tried again. */
  readonly nextAttemptAt: Date;
  /** Not before this (the bank's Retry-After), even when the bank looks healthy again. */
  readonly notBefore: Date;
}

export function nextAttempt(
  schedule: RetrySchedule,
  failures: number,
  now: Date,
  retryAfterMs?: number,
  random: () => number = Math.random,
): NextAttempt {
  const floor = retryAfterMs === undefined ? 0 : Math.min(retryAfterMs, schedule.maxRetryAfterMs);
  const delay = Math.max(retryDelayMs(schedule, failures, random), floor);
  return {
    nextAttemptAt: new Date(now.getTime() + delay),
    notBefore: new Date(now.getTime() + floor),
  };
}

/**
 * Retry-After (RFC 9110 10.2.3): delay-seconds or an HTTP-date. Milliseconds from `now`; undefined when
 * absent or unreadable; 0 for a date in the past.
 */
export function parseRetryAfter(value: string | undefined, now: Date): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (/^[0-9]+$/.test(text)) return Number(text) * second;
  if (!/[a-z]/i.test(text)) return undefined;
  const at = Date.parse(text);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - now.getTime());
}

/** Whether a posting queued at `queuedAt` has waited longer than the schedule allows. */
export function hasExpired(schedule: RetrySchedule, queuedAt: Date, now: Date): boolean {
  return now.getTime() - queuedAt.getTime() >= schedule.maxAgeMs;
}
