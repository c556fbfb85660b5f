/**
 * Per-second rates of counters between scrapes. Each series (any string key) keeps its recent samples;
 * a rate is taken against the newest earlier sample at least `minIntervalMs` older, so that two browser
 * tabs polling out of step (or a page reload) never divide a tiny increase by a tiny interval.
 *
 * A counter that went down was reset (its process restarted): as Prometheus' `rate()` does, the new
 * value is then taken as the increase since the reset.
 */

export interface RateOptions {
  /** Shortest interval a rate is measured over. */
  readonly minIntervalMs?: number;
  /** Samples older than this are forgotten. */
  readonly retentionMs?: number;
  /** Most samples kept per series. */
  readonly maxSamples?: number;
  /** Series not observed for this long are dropped (a bank or a label value that went away). */
  readonly idleMs?: number;
}

interface Point {
  readonly at: number;
  readonly value: number;
}

/** The increase of a counter from `previous` to `current`, a reset counted from zero. */
export function counterIncrease(previous: number, current: number): number {
  return current >= previous ? current - previous : current;
}

/** Per-second rate of a counter between two samples; undefined when the interval is not positive. */
export function ratePerSecond(previous: Point, current: Point): number | undefined {
  const seconds = (current.at - previous.at) / 1000;
  if (!(seconds > 0)) return undefined;
  return counterIncrease(previous.value, current.value) / seconds;
}

export class RateTracker {
  readonly #series = new Map<string, Point[]>();
  readonly #minIntervalMs: number;
  readonly #retentionMs: number;
  readonly #maxSamples: number;
  readonly #idleMs: number;
  #lastSweep = 0;

  constructor(options: RateOptions = {}) {
    this.#minIntervalMs = options.minIntervalMs ?? 1_000;
    this.#retentionMs = options.retentionMs ?? 120_000;
    this.#maxSamples = options.maxSamples ?? 64;
    this.#idleMs = options.idleMs ?? 600_000;
  }

  /**
   * Records `value` of series `key` at `at` (ms) and answers its rate per second since the newest sample
   * at least the minimum interval older; null while there is none yet (the first scrape, or a service
   * that was not answering). A sample older than the series' newest is ignored (null).
   */
  observe(key: string, at: number, value: number): number | null {
    if (!Number.isFinite(value)) return null;
    let points = this.#series.get(key);
    if (points === undefined) {
      points = [];
      this.#series.set(key, points);
    }
    const newest = points.at(-1);
    if (newest !== undefined && at < newest.at) return null;
    let rate: number | null = null;
    for (let index = points.length - 1; index >= 0; index -= 1) {
      const point = points[index] as Point;
      if (at - point.at >= this.#minIntervalMs) {
        rate = ratePerSecond(point, { at, value }) ?? null;
        break;
      }
    }
    points.push({ at, value });
    while (
      points.length > this.#maxSamples ||
      (points.length > 1 && at - (points[0] as Point).at > this.#retentionMs)
    ) {
      // Keep at least one sample old enough to measure the next rate against.
      if (points.length <= this.#maxSamples && at - (points[1] as Point).at < this.#minIntervalMs) break;
      points.shift();
    }
    this.#forgetIdle(at);
    return rate;
  }

  /** How many series are tracked (tests, and a bound on memory). */
  get size(): number {
    return this.#series.size;
  }

  #forgetIdle(now: number): void {
    if (now - this.#lastSweep < this.#minIntervalMs) return;
    this.#lastSweep = now;
    for (const [key, points] of this.#series) {
      const newest = points.at(-1);
      if (newest === undefined || now - newest.at > this.#idleMs) this.#series.delete(key);
    }
  }
}
