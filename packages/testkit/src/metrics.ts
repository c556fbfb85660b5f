/**
 * A sample's value in Prometheus's text exposition (`Metrics.render`, a service's `/metrics`): the first
 * series of `name` whose labels include every one of `labels`, in any order (with none given, the first
 * series of `name`). Undefined when there is none.
 */
export function metricSample(
  body: string,
  name: string,
  labels: Readonly<Record<string, string>> = {},
): number | undefined {
  const line = body
    .split('\n')
    .find(
      (candidate) =>
        (candidate.startsWith(`${name} `) || candidate.startsWith(`${name}{`)) &&
        Object.entries(labels).every(([label, value]) => candidate.includes(`${label}="${value}"`)),
    );
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}
