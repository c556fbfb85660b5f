import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { dispatcherMetrics } from '@rp/dispatcher';
import { postingReadMetrics, publisherMetrics } from '@rp/event-publisher';
import { ingressMetrics } from '@rp/ingress';
import { kafkaMetrics } from '@rp/kafka';
import { createLogger, createMetrics, watchEventLoopStalls } from '@rp/runtime';
import { schedulerMetrics } from '@rp/scheduler';
import { storeCommandMetrics } from '@rp/store';
import { trackerMetrics } from '@rp/tracker';
import { validatorMetrics } from '@rp/validator';
import { afterAll, describe, expect, it } from 'vitest';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import { run } from '../src/tools.ts';
import { at, getTools, named, render } from './helpers.ts';

interface Rule {
  readonly alert: string;
  readonly expr: string;
  readonly for?: string;
  readonly labels?: Record<string, string>;
  readonly annotations?: Record<string, string>;
}

interface RuleGroup {
  readonly name: string;
  readonly rules: readonly Rule[];
}

const unitTests = fileURLToPath(new URL('./alerts.test.yaml', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'rp-alerts-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** The PrometheusRule as the production overlay renders it (kubeconform checks it with the rest). */
async function ruleGroups(): Promise<readonly RuleGroup[]> {
  const { objects } = await render('production');
  const rule = named(objects, 'PrometheusRule', 'regulated-payments');
  if (!rule) throw new Error('the production overlay renders no PrometheusRule regulated-payments');
  return at(rule, 'spec', 'groups') as RuleGroup[];
}

/** The rules as a Prometheus rule file, beside a copy of the unit tests that name it. */
async function writeRuleFiles(): Promise<{ rules: string; tests: string }> {
  const rules = join(work, 'rules.yaml');
  writeFileSync(rules, stringifyYaml({ groups: await ruleGroups() }));
  const tests = join(work, 'alerts.test.yaml');
  copyFileSync(unitTests, tests);
  return { rules, tests };
}

/**
 * Every metric the engine's services register, with its type and label names: each service's metrics,
 * its Kafka clients', its MongoDB commands' and its event-loop stops', registered as the services do.
 */
function engineMetrics(): Map<string, { type: string; labels: Set<string> }> {
  const metrics = createMetrics({ service: 'alerts-test', defaultMetrics: false });
  for (const register of [
    ingressMetrics,
    validatorMetrics,
    schedulerMetrics,
    dispatcherMetrics,
    trackerMetrics,
    publisherMetrics,
    postingReadMetrics,
    storeCommandMetrics,
    kafkaMetrics,
  ]) {
    register(metrics);
  }
  watchEventLoopStalls({ metrics, logger: createLogger({ service: 'alerts-test', level: 'silent' }) }).stop();
  const found = new Map<string, { type: string; labels: Set<string> }>();
  for (const metric of metrics.registry.getMetricsAsArray()) {
    const { labelNames } = metric as { labelNames?: readonly string[] };
    // prom-client's type names ('counter', 'gauge', 'histogram') at run time, whatever its typings say.
    found.set(metric.name, { type: String(metric.type), labels: new Set(labelNames ?? []) });
  }
  return found;
}

/** Labels Prometheus puts on every series of a target: its own and the ServiceMonitor's `targetLabels`. */
const targetLabels = new Set([
  'namespace',
  'pod',
  'service',
  'job',
  'instance',
  'endpoint',
  'container',
  'app_kubernetes_io_part_of',
  'app_kubernetes_io_component',
]);

/** The metrics an expression reads (a histogram's by its series' suffix stripped), and the labels it names. */
function readsOf(expr: string): { metrics: Set<string>; labels: Set<string> } {
  const metrics = new Set(expr.match(/\brp_[a-z0-9_]+/g) ?? []);
  const labels = new Set<string>();
  for (const clause of expr.matchAll(/\b(?:by|on|without|ignoring)\s*\(([^)]*)\)/g)) {
    for (const name of (clause[1] as string).split(',')) if (name.trim()) labels.add(name.trim());
  }
  for (const matchers of expr.matchAll(/\{([^}]*)\}/g)) {
    for (const matcher of (matchers[1] as string).matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)\s*(?:=~|!~|!=|=)/g)) {
      labels.add(matcher[1] as string);
    }
  }
  return { metrics, labels };
}

describe('the alerting rules (infra/k8s/base/prometheusrule.yaml)', () => {
  it('are valid rules for promtool', async () => {
    const { promtool } = await getTools();
    const { rules } = await writeRuleFiles();
    const result = await run(promtool, ['check', 'rules', rules]);
    expect(result.stdout + result.stderr).toMatch(/SUCCESS: \d+ rules found/);
    expect(result.code).toBe(0);
  });

  it('pass their unit tests: each fires on its series, at its time, with its labels and texts', async () => {
    const { promtool } = await getTools();
    const { tests } = await writeRuleFiles();
    const result = await run(promtool, ['test', 'rules', tests]);
    expect(result.code, `${result.stdout}\n${result.stderr}`).toBe(0);
    expect(result.stdout).toContain('SUCCESS');
  });

  it('each alert has a unit test in which it fires, a severity, a summary and a description', async () => {
    const groups = await ruleGroups();
    const alerts = groups.flatMap((group) => group.rules.map((rule) => rule.alert));
    expect(new Set(alerts).size).toBe(alerts.length);
    const file = parseYaml(readFileSync(unitTests, 'utf8')) as {
      tests: { alert_rule_test?: { alertname: string; exp_alerts: unknown[] }[] }[];
    };
    const firing = new Set(
      file.tests.flatMap((test) =>
        (test.alert_rule_test ?? []).filter((t) => t.exp_alerts.length > 0).map((t) => t.alertname),
      ),
    );
    expect([...firing].sort()).toEqual([...alerts].sort());
    for (const rule of groups.flatMap((group) => group.rules)) {
      expect(['critical', 'warning', 'info'], rule.alert).toContain(rule.labels?.severity);
      expect(rule.annotations?.summary, rule.alert).toBeTruthy();
      expect(rule.annotations?.description, rule.alert).toBeTruthy();
    }
  });

  it('read only metrics the services register, by labels those metrics carry', async () => {
    const registered = engineMetrics();
    for (const rule of (await ruleGroups()).flatMap((group) => group.rules)) {
      const { metrics, labels } = readsOf(rule.expr);
      // Every alert but the one on Prometheus's own `up` reads the engine's metrics.
      if (!/\bup\{/.test(rule.expr))
        expect(metrics.size, `${rule.alert} reads no rp_ metric`).toBeGreaterThan(0);
      const carried = new Set(targetLabels);
      for (const name of metrics) {
        const histogram = /^(.*)_(bucket|sum|count)$/.exec(name);
        const base = histogram && registered.get(histogram[1] as string)?.type === 'histogram';
        const metric = registered.get(base ? (histogram?.[1] as string) : name);
        expect(metric, `${rule.alert}: ${name} is not a metric of the engine`).toBeDefined();
        for (const label of metric?.labels ?? []) carried.add(label);
        if (base && histogram?.[2] === 'bucket') carried.add('le');
      }
      for (const label of labels) {
        expect(carried.has(label), `${rule.alert}: no metric it reads carries the label ${label}`).toBe(true);
      }
      // The texts name only labels the alert has: its expression's grouping, else its series' own.
      const grouped = [...rule.expr.matchAll(/\bby\s*\(([^)]*)\)/g)].flatMap((clause) =>
        (clause[1] as string).split(',').map((name) => name.trim()),
      );
      const available = grouped.length > 0 ? new Set(grouped) : carried;
      for (const text of Object.values(rule.annotations ?? {})) {
        for (const used of text.matchAll(/\$labels\.([a-zA-Z_][a-zA-Z0-9_]*)/g)) {
          expect(available.has(used[1] as string), `${rule.alert}: its texts name ${used[1]}`).toBe(true);
        }
      }
    }
  });
});
