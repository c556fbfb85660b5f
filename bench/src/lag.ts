import type { Row } from './report.ts';
import { round } from './stats.ts';

/**
 * Records waiting per consumer group in one service's own metrics: its `rp_kafka_consumer_lag_records`
 * (records on the partitions it owns that it has not handled yet), summed over partitions.
 */
export function lagByGroup(metrics: ReadonlyMap<string, number>): Map<string, number> {
  const lag = new Map<string, number>();
  for (const [series, value] of metrics) {
    if (!series.startsWith('rp_kafka_consumer_lag_records{')) continue;
    const group = /[{,]group="([^"]*)"/.exec(series)?.[1];
    if (group === undefined) continue;
    lag.set(group, (lag.get(group) ?? 0) + value);
  }
  return lag;
}

/** Each consumer group's records waiting over a window: the most at any sample, and at its end. */
export interface LagWindow {
  readonly groups: Readonly<Record<string, { readonly peak: number; readonly atEnd: number }>>;
  /** Samples taken, the one at the end among them. */
  readonly samples: number;
  readonly everyMs: number;
}

export interface LagWatch {
  /** Takes the last sample (the window's end), stops sampling and returns the figures. */
  end(): Promise<LagWindow>;
}

/**
 * Samples `read` (every consumer group's records waiting, across the services) every `everyMs` until
 * `end`. A sample that fails (a service held or gone) is skipped; samples never overlap.
 */
export function watchLag(read: () => Promise<ReadonlyMap<string, number>>, everyMs: number): LagWatch {
  const peaks = new Map<string, number>();
  let samples = 0;
  /** The last reading that succeeded: the end's figure, if the one taken at the end fails. */
  let latest: ReadonlyMap<string, number> = new Map();
  let running: Promise<void> | undefined;
  const sample = (): Promise<void> => {
    running ??= read()
      .then((lag) => {
        samples += 1;
        latest = lag;
        for (const [group, records] of lag) peaks.set(group, Math.max(peaks.get(group) ?? 0, records));
      })
      .catch(() => undefined)
      .finally(() => {
        running = undefined;
      });
    return running;
  };
  const timer = setInterval(() => void sample(), everyMs);
  return {
    async end() {
      clearInterval(timer);
      await running;
      await sample();
      const groups: Record<string, { peak: number; atEnd: number }> = {};
      for (const [group, peak] of peaks) groups[group] = { peak, atEnd: latest.get(group) ?? 0 };
      return { groups, samples, everyMs };
    },
  };
}

/** Every group's records waiting across services' readings (a group's partitions may span services). */
export function mergeLag(readings: Iterable<ReadonlyMap<string, number>>): Map<string, number> {
  const merged = new Map<string, number>();
  for (const reading of readings) {
    for (const [group, records] of reading) merged.set(group, (merged.get(group) ?? 0) + records);
  }
  return merged;
}

/**
 * Where records waited in a window: each consumer group that had any, most first, as `peak / at the end`.
 * The group whose backlog grows is the hop that does not keep up; one that peaks and empties kept up in
 * bursts.
 */
export function lagRow(phase: string, lag: LagWindow): Row {
  const groups = Object.entries(lag.groups)
    .filter(([, figures]) => figures.peak > 0)
    .sort(([, a], [, b]) => b.peak - a.peak);
  const how = `sampled every ${round(lag.everyMs / 1000, 1)} s from each service's rp_kafka_consumer_lag_records (${lag.samples} samples)`;
  return {
    group: 'pipeline',
    name: `records waiting per consumer group in ${phase}, peak / at its end`,
    value: groups[0]?.[1].peak ?? 0,
    unit: 'records (peak)',
    detail:
      groups.length === 0
        ? `none waited at any sample; ${how}`
        : `${groups.map(([group, figures]) => `${group} ${figures.peak} / ${figures.atEnd}`).join(', ')}; ${how}`,
  };
}
