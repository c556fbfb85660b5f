/** Source of the current time. Inject it wherever time matters so tests and demos can control it. */
export interface Clock {
  now(): Date;
  /**
   * The real milliseconds in which `ms` of this clock's time pass: fewer for a clock that runs faster
   * than real time (a demo's). Absent: as many. Use `realDuration`.
   */
  realMs?(ms: number): number;
}

/** How long `ms` of `clock`'s time take in real time (a timer's delay, a retry hint). */
export function realDuration(clock: Clock, ms: number): number {
  return clock.realMs === undefined ? ms : clock.realMs(ms);
}

export const systemClock: Clock = {
  now: () => new Date(),
};

type Instant = Date | string | number;

function toMillis(instant: Instant): number {
  const ms = instant instanceof Date ? instant.getTime() : new Date(instant).getTime();
  if (Number.isNaN(ms)) throw new RangeError(`Not a valid instant: ${String(instant)}`);
  return ms;
}

/** A clock that only moves when told to; for tests. */
export class ManualClock implements Clock {
  #ms: number;

  constructor(start: Instant = 0) {
    this.#ms = toMillis(start);
  }

  now(): Date {
    return new Date(this.#ms);
  }

  set(instant: Instant): void {
    this.#ms = toMillis(instant);
  }

  advance(ms: number): Date {
    this.#ms += ms;
    return this.now();
  }
}

/**
 * A clock that starts at `start` and runs `factor` times faster than `base`, so a demo can live through
 * a debit window or a settlement cycle in minutes.
 */
export class ScaledClock implements Clock {
  readonly #startMs: number;
  readonly #factor: number;
  readonly #base: Clock;
  readonly #originMs: number;

  constructor(start: Instant, factor: number, base: Clock = systemClock) {
    if (!(factor > 0) || !Number.isFinite(factor))
      throw new RangeError(`Clock factor must be > 0, got ${factor}`);
    this.#startMs = toMillis(start);
    this.#factor = factor;
    this.#base = base;
    this.#originMs = base.now().getTime();
  }

  now(): Date {
    const elapsed = this.#base.now().getTime() - this.#originMs;
    return new Date(this.#startMs + Math.round(elapsed * this.#factor));
  }

  realMs(ms: number): number {
    return realDuration(this.#base, ms / this.#factor);
  }
}

/**
 * The clock a service's settings name: the system's, or, with `CLOCK_START`, a demo's that starts there
 * and runs `CLOCK_FACTOR` times faster (`ScaledClock`).
 */
export function configuredClock(settings: {
  readonly CLOCK_START?: string | undefined;
  readonly CLOCK_FACTOR: number;
}): Clock {
  return settings.CLOCK_START === undefined
    ? systemClock
    : new ScaledClock(settings.CLOCK_START, settings.CLOCK_FACTOR);
}
