import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import type { AlertRuleGroup } from '../src/alert-rules.ts';
import { run } from '../src/tools.ts';
import { at, getTools, named, render } from './helpers.ts';
import { engineMetrics, expectEngineReads, resultLabels } from './metrics-catalogue.ts';

const unitTests = fileURLToPath(new URL('./alerts.test.yaml', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'rp-alerts-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** The PrometheusRule as the production overlay renders it (kubeconform checks it with the rest). */
async function ruleGroups(): Promise<readonly AlertRuleGroup[]> {
  const { objects } = await render('production');
  const rule = named(objects, 'PrometheusRule', 'regulated-payments');
  if (!rule) throw new Error('the production overlay renders no PrometheusRule regulated-payments');
  return at(rule, 'spec', 'groups') as AlertRuleGroup[];
}

/** The rules as a Prometheus rule file, beside a copy of the unit tests that name it. */
async function writeRuleFiles(): Promise<{ rules: string; tests: string }> {
  const rules = join(work, 'rules.yaml');
  writeFileSync(rules, stringifyYaml({ groups: await ruleGroups() }));
  const tests = join(work, 'alerts.test.yaml');
  copyFileSync(unitTests, tests);
  return { rules, tests };
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
      const carried = expectEngineReads(rule.alert, rule.expr, registered);
      // Every alert but the one on Prometheus's own `up` reads the engine's metrics.
      if (!/\bup\{/.test(rule.expr)) expect(rule.expr, `${rule.alert} reads no rp_ metric`).toMatch(/\brp_/);
      // The texts name only labels the alert has: its expression's grouping, else its series' own.
      const available = resultLabels(rule.expr, carried);
      for (const text of Object.values(rule.annotations ?? {})) {
        for (const used of text.matchAll(/\$labels\.([a-zA-Z_][a-zA-Z0-9_]*)/g)) {
          expect(available.has(used[1] as string), `${rule.alert}: its texts name ${used[1]}`).toBe(true);
        }
      }
    }
  });
});
