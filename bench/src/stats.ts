/** Exact order statistics of a sample (nearest-rank), in the sample's unit. */
export function percentile(sorted: readonly number[], fraction: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil(fraction * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))] as number;
}

export interface Summary {
  readonly count: number;
  readonly p50: number;
  readonly p95: number;
  readonly p99: number;
  readonly max: number;
}

export function summarize(values: readonly number[]): Summary {
  const sorted = [...values].sort((a, b) => a - b);
  return {
    count: sorted.length,
    p50: percentile(sorted, 0.5),
    p95: percentile(sorted, 0.95),
    p99: percentile(sorted, 0.99),
    max: sorted.length > 0 ? (sorted[sorted.length - 1] as number) : Number.NaN,
  };
}

/** Runs `work` for each index with at most `limit` in flight; resolves when all are done. */
export async function bounded(count: number, limit: number, work: (index: number) => Promise<void>) {
  let next = 0;
  const lanes = Array.from({ length: Math.min(limit, count) }, async () => {
    while (next < count) {
      const index = next;
      next += 1;
      await work(index);
    }
  });
  await Promise.all(lanes);
}

/**
 * Parses Prometheus text exposition into `name{labels}` → value; sums series when `name` is asked
 * for with a label subset (see `metricValue`).
 */
export function parsePrometheus(text: string): Map<string, number> {
  const values = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line.length === 0 || line.startsWith('#')) continue;
    const space = line.lastIndexOf(' ');
    if (space < 0) continue;
    const value = Number(line.slice(space + 1));
    if (!Number.isFinite(value)) continue;
    values.set(line.slice(0, space), value);
  }
  return values;
}

/** Sum of the series of `name` whose labels include every one of `labels`. */
export function metricValue(
  metrics: ReadonlyMap<string, number>,
  name: string,
  labels: Readonly<Record<string, string>> = {},
): number {
  let total = 0;
  for (const [series, value] of metrics) {
    const brace = series.indexOf('{');
    const seriesName = brace < 0 ? series : series.slice(0, brace);
    if (seriesName !== name) continue;
    const labelText = brace < 0 ? '' : series.slice(brace);
    if (Object.entries(labels).every(([key, wanted]) => labelText.includes(`${key}="${wanted}"`)))
      total += value;
  }
  return total;
}

export const round = (value: number, digits = 1) =>
  Number.isFinite(value) ? Math.round(value * 10 ** digits) / 10 ** digits : value;

/** `to` against `from`, in per cent to 0.1 (0 when `from` is not above 0). */
export const percentChange = (from: number, to: number) =>
  from > 0 ? round((100 * (to - from)) / from, 1) : 0;

/** How a figure read once a minute moved over a run: the median of its late minutes against its early ones. */
export interface Drift {
  /** The medians, in the figure's unit. */
  readonly early: number;
  readonly late: number;
  /** The late against the early, in per cent (0 when the early is 0). */
  readonly change: number;
  /** The first and last minute of each end. */
  readonly earlyMinutes: readonly [number, number];
  readonly lateMinutes: readonly [number, number];
}

/**
 * The drift of a figure over a run's minutes. The first minute (start-up: compilation, group joins, the
 * first reads) is left out when three or more were read, and each end is a third of the rest (at least a
 * minute), taken as its median so that one minute's collection or hiccup does not stand for its third.
 * Undefined with fewer than two minutes read.
 */
export function drift(
  minutes: readonly { readonly minute: number; readonly value: number | undefined }[],
): Drift | undefined {
  const read = minutes.flatMap(({ minute, value }) => (value === undefined ? [] : [{ minute, value }]));
  const steady = read.length >= 3 && read[0]?.minute === 1 ? read.slice(1) : read;
  if (steady.length < 2) return undefined;
  const size = Math.max(1, Math.floor(steady.length / 3));
  const early = steady.slice(0, size);
  const late = steady.slice(-size);
  const median = (part: readonly { value: number }[]) => {
    const sorted = part.map(({ value }) => value).sort((a, b) => a - b);
    const middle = Math.floor(sorted.length / 2);
    return sorted.length % 2 === 1
      ? (sorted[middle] as number)
      : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
  };
  const span = (part: readonly { minute: number }[]) =>
    [part[0]?.minute ?? 0, part[part.length - 1]?.minute ?? 0] as const;
  const [from, to] = [median(early), median(late)];
  return {
    early: from,
    late: to,
    change: percentChange(from, to),
    earlyMinutes: span(early),
    lateMinutes: span(late),
  };
}

/** "minutes 2-10", or "minute 2" for one. */
export const minuteSpan = ([from, to]: readonly [number, number]) =>
  from === to ? `minute ${from}` : `minutes ${from}-${to}`;
