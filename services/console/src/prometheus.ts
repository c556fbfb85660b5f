/**
 * The Prometheus text exposition format (version 0.0.4), as prom-client writes it: enough of it to read
 * the services' counters, gauges and histogram sums back. Comment lines (`# HELP`, `# TYPE`) and blank
 * lines are skipped; a line that is not a sample is counted in `invalidLines` and otherwise ignored, so
 * one odd line never hides the rest of a scrape.
 */

export type Labels = Readonly<Record<string, string>>;

export interface Sample {
  readonly name: string;
  readonly labels: Labels;
  readonly value: number;
}

export interface Exposition {
  readonly samples: readonly Sample[];
  /** `# TYPE` of each metric family, by family name. */
  readonly types: ReadonlyMap<string, string>;
  readonly invalidLines: number;
}

const namePattern = /^[A-Za-z_:][A-Za-z0-9_:]*/;
const labelNamePattern = /^[A-Za-z_][A-Za-z0-9_]*/;

export function parsePrometheusText(text: string): Exposition {
  const samples: Sample[] = [];
  const types = new Map<string, string>();
  let invalidLines = 0;
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '') continue;
    if (line.startsWith('#')) {
      const type = /^#\s+TYPE\s+(\S+)\s+(\S+)/.exec(line);
      if (type) types.set(type[1] as string, type[2] as string);
      continue;
    }
    const sample = parseSampleLine(line);
    if (sample) samples.push(sample);
    else invalidLines += 1;
  }
  return { samples, types, invalidLines };
}

/** One sample line: `name{label="value",...} value [timestamp]`; undefined when it is not one. */
export function parseSampleLine(line: string): Sample | undefined {
  const name = namePattern.exec(line)?.[0];
  if (name === undefined) return undefined;
  let rest = line.slice(name.length);
  const labels: Record<string, string> = {};
  if (rest.trimStart().startsWith('{')) {
    rest = rest.trimStart().slice(1);
    for (;;) {
      rest = rest.trimStart();
      if (rest.startsWith('}')) {
        rest = rest.slice(1);
        break;
      }
      const labelName = labelNamePattern.exec(rest)?.[0];
      if (labelName === undefined) return undefined;
      rest = rest.slice(labelName.length).trimStart();
      if (!rest.startsWith('=')) return undefined;
      rest = rest.slice(1).trimStart();
      if (!rest.startsWith('"')) return undefined;
      rest = rest.slice(1);
      let value = '';
      let closed = false;
      let index = 0;
      while (index < rest.length) {
        const char = rest[index] as string;
        if (char === '\\') {
          const next = rest[index + 1];
          if (next === undefined) return undefined;
          value += next === 'n' ? '\n' : next;
          index += 2;
          continue;
        }
        if (char === '"') {
          closed = true;
          index += 1;
          break;
        }
        value += char;
        index += 1;
      }
      if (!closed) return undefined;
      labels[labelName] = value;
      rest = rest.slice(index).trimStart();
      if (rest.startsWith(',')) rest = rest.slice(1);
      else if (!rest.startsWith('}')) return undefined;
    }
  }
  if (!/^\s/.test(rest)) return undefined;
  const [valueText] = rest.trim().split(/\s+/);
  const value = parseValue(valueText ?? '');
  return value === undefined ? undefined : { name, labels, value };
}

function parseValue(text: string): number | undefined {
  switch (text) {
    case 'NaN':
      return Number.NaN;
    case '+Inf':
    case 'Inf':
      return Number.POSITIVE_INFINITY;
    case '-Inf':
      return Number.NEGATIVE_INFINITY;
  }
  if (!/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(text)) return undefined;
  return Number(text);
}

function matches(sample: Sample, name: string, filter: LabelFilter): boolean {
  if (sample.name !== name) return false;
  for (const [label, wanted] of Object.entries(filter)) {
    const actual = sample.labels[label];
    if (Array.isArray(wanted) ? !wanted.includes(actual ?? '') : actual !== wanted) return false;
  }
  return true;
}

/** Labels a sample must carry: one value, or any of several. */
export type LabelFilter = Readonly<Record<string, string | readonly string[]>>;

/**
 * The sum of every sample of `name` whose labels match `filter`; undefined when there is none (a counter
 * with labels appears only once it was incremented, so "none" usually means zero, but the caller knows).
 */
export function sumOf(exposition: Exposition, name: string, filter: LabelFilter = {}): number | undefined {
  let total: number | undefined;
  for (const sample of exposition.samples) {
    if (matches(sample, name, filter) && Number.isFinite(sample.value)) total = (total ?? 0) + sample.value;
  }
  return total;
}

/** The sums of `name` grouped by the value of `label` (samples without it are left out). */
export function sumBy(
  exposition: Exposition,
  name: string,
  label: string,
  filter: LabelFilter = {},
): Map<string, number> {
  const sums = new Map<string, number>();
  for (const sample of exposition.samples) {
    const key = sample.labels[label];
    if (key === undefined || !matches(sample, name, filter) || !Number.isFinite(sample.value)) continue;
    sums.set(key, (sums.get(key) ?? 0) + sample.value);
  }
  return sums;
}

/**
 * The mean of a histogram (or summary) by a label, from its `_sum` and `_count`: the average since the
 * process started. Groups that observed nothing are left out.
 */
export function meanBy(
  exposition: Exposition,
  histogram: string,
  label: string,
  filter: LabelFilter = {},
): Map<string, number> {
  const sums = sumBy(exposition, `${histogram}_sum`, label, filter);
  const counts = sumBy(exposition, `${histogram}_count`, label, filter);
  const means = new Map<string, number>();
  for (const [key, count] of counts) {
    const sum = sums.get(key);
    if (count > 0 && sum !== undefined) means.set(key, sum / count);
  }
  return means;
}
