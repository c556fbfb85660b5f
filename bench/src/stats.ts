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
