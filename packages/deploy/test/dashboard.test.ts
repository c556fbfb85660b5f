import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { stringify as stringifyYaml } from 'yaml';
import { dashboard, dashboardVariables, renderDashboard } from '../src/dashboard.ts';
import {
  committedDashboard,
  type DashboardPanel,
  dashboardPanels,
  dashboardQueries,
  grafanaVariables,
  substituted,
  variableSelector,
} from '../src/dashboard-queries.ts';
import { dashboardFile, overlays } from '../src/paths.ts';
import { run } from '../src/tools.ts';
import { at, checkGenerated, getTools, named, render } from './helpers.ts';
import { engineMetrics, expectEngineReads, readsOf, resultLabels } from './metrics-catalogue.ts';

const committed = committedDashboard();
const rows = committed.panels.filter((panel) => panel.type === 'row');
const panels = dashboardPanels(committed);
const queries = dashboardQueries(committed);

const work = mkdtempSync(join(tmpdir(), 'rp-dashboard-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('the Grafana dashboard (infra/k8s/base/dashboards/regulated-payments.json)', () => {
  it('is current with src/dashboard.ts (else: npm run manifests -w @rp/deploy), and the check says when not', () => {
    expect(readFileSync(dashboardFile, 'utf8')).toBe(renderDashboard());
    const check = (file?: string) => checkGenerated('dashboard.ts', file);
    expect(check().status).toBe(0);
    const stale = join(work, 'stale.json');
    writeFileSync(stale, renderDashboard().replace('"Regulated payments"', '"Payments"'));
    const result = check(stale);
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('npm run manifests -w @rp/deploy');
  });

  it("ships in every overlay as a ConfigMap that Grafana's dashboard sidecar loads", async () => {
    for (const overlay of overlays) {
      const { objects, report } = await render(overlay);
      expect(report.summary.invalid + report.summary.errors, overlay).toBe(0);
      const map = named(objects, 'ConfigMap', 'rp-grafana-dashboard');
      expect(map, overlay).toBeDefined();
      expect(at(map, 'metadata', 'labels', 'grafana_dashboard')).toBe('1');
      const json = at(map, 'data', 'regulated-payments.json');
      expect(JSON.parse(String(json))).toEqual(committed);
      // `kubectl apply` (client-side) keeps the whole object in an annotation of at most 256 KiB.
      expect(Buffer.byteLength(JSON.stringify(map)), 'the ConfigMap as kubectl records it').toBeLessThan(
        262_144,
      );
    }
  });

  it('every query and variable is valid PromQL for promtool', async () => {
    const { promtool } = await getTools();
    const expressions = [
      ...queries.map((query) => substituted(query.expr)),
      ...committed.templating.list
        .filter((variable) => variable.type === 'query')
        .map((variable) => substituted(variableSelector(variable).selector)),
    ];
    const rules = join(work, 'rules.yaml');
    writeFileSync(
      rules,
      stringifyYaml({
        groups: [
          {
            name: 'dashboard',
            rules: expressions.map((expr, i) => ({ record: `dashboard:query_${i}`, expr })),
          },
        ],
      }),
    );
    const result = await run(promtool, ['check', 'rules', rules]);
    expect(result.code, `${result.stdout}\n${result.stderr}`).toBe(0);
    expect(result.stdout).toContain(`SUCCESS: ${expressions.length} rules found`);
    expect(expressions.length).toBeGreaterThan(40);
  });

  it('reads only metrics the services register, by labels they carry, each in the chosen namespace', () => {
    const registered = engineMetrics();
    for (const query of queries) {
      const what = `${query.panel} ${query.refId}`;
      const carried = expectEngineReads(what, query.expr, registered);
      for (const selector of query.expr.matchAll(/\{([^}]*)\}/g)) {
        expect(selector[1], `${what}: a selector outside the dashboard's namespace`).toContain(
          'namespace="$namespace"',
        );
      }
      // The legend names only labels the query's series keep.
      const kept = resultLabels(query.expr, carried);
      for (const used of query.legendFormat.matchAll(/\{\{\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*\}\}/g)) {
        expect(kept.has(used[1] as string), `${what}: its legend names ${used[1]}`).toBe(true);
      }
      for (const variable of query.expr.matchAll(/\$(\w+)/g)) {
        const name = variable[1] as string;
        expect(
          grafanaVariables.has(name) || (dashboardVariables as readonly string[]).includes(name),
          `${what}: $${name} is no variable`,
        ).toBe(true);
      }
    }
    for (const variable of committed.templating.list.filter((v) => v.type === 'query')) {
      const { selector, label } = variableSelector(variable);
      const carried = expectEngineReads(`variable ${variable.name}`, selector, registered);
      expect(carried.has(label), `variable ${variable.name}: ${label}`).toBe(true);
    }
    expect(committed.templating.list.map((variable) => variable.name)).toEqual([...dashboardVariables]);
  });

  it("shows every metric of the engine's own on a panel, a service's workings in its folded row", () => {
    const shown = new Set(
      queries.flatMap((query) =>
        [...readsOf(query.expr).metrics].map((name) => name.replace(/_(bucket|sum|count)$/, '')),
      ),
    );
    const own = [...engineMetrics().keys()].filter(
      (name) => name.startsWith('rp_') || name.startsWith('http_'),
    );
    expect(own.length).toBeGreaterThan(90);
    expect(own.filter((name) => !shown.has(name))).toEqual([]);
    for (const row of rows.filter((row) => row.collapsed)) {
      expect(row.panels?.length, row.title).toBeGreaterThan(0);
    }
  });

  it('shows every metric an alert reads, so that a page leads to its panel', async () => {
    const { objects } = await render('production');
    const groups = at(named(objects, 'PrometheusRule', 'regulated-payments'), 'spec', 'groups') as {
      rules: { alert: string; expr: string }[];
    }[];
    const shown = new Set(queries.flatMap((query) => [...readsOf(query.expr).metrics]));
    for (const rule of groups.flatMap((group) => group.rules)) {
      for (const metric of readsOf(rule.expr).metrics) {
        const base = metric.replace(/_(bucket|sum|count)$/, '');
        const found = [...shown].some(
          (name) => name === metric || name.replace(/_(bucket|sum|count)$/, '') === base,
        );
        expect(found, `${rule.alert} reads ${metric}, which no panel shows`).toBe(true);
      }
    }
  });

  it('lays its panels out on the 24-column grid without overlap, folded rows too, each described and on the chosen data source', () => {
    const ids = [...rows, ...panels].map((panel) => panel.id);
    expect(new Set(ids).size).toBe(ids.length);
    // The page as it opens, then each folded row as it unfolds (its panels below it, apart from each other).
    const layouts: { below: number; panels: readonly DashboardPanel[] }[] = [
      { below: -1, panels: committed.panels },
    ];
    for (const row of rows.filter((row) => row.collapsed)) {
      layouts.push({ below: row.gridPos.y, panels: row.panels ?? [] });
    }
    for (const layout of layouts) {
      const cells = new Set<string>();
      for (const panel of layout.panels) {
        const { x, y, w, h } = panel.gridPos;
        expect(x >= 0 && w > 0 && x + w <= 24, `${panel.title}: columns ${x}+${w}`).toBe(true);
        expect(y, `${panel.title} is placed above its row`).toBeGreaterThan(layout.below);
        for (let row = y; row < y + h; row += 1) {
          for (let column = x; column < x + w; column += 1) {
            const cell = `${row}:${column}`;
            expect(cells.has(cell), `${panel.title} overlaps another panel at ${cell}`).toBe(false);
            cells.add(cell);
          }
        }
      }
    }
    for (const panel of panels) {
      expect(['timeseries', 'stat'], panel.title).toContain(panel.type);
      expect(panel.description, panel.title).toBeTruthy();
      expect(panel.datasource?.uid, panel.title).toBe('${datasource}');
      const targets = panel.targets ?? [];
      expect(targets.length, panel.title).toBeGreaterThan(0);
      expect(new Set(targets.map((target) => target.refId)).size, panel.title).toBe(targets.length);
      for (const target of targets) expect(target.datasource.uid, panel.title).toBe('${datasource}');
    }
    const titles = panels.map((panel) => panel.title);
    expect(new Set(titles).size).toBe(titles.length);
    expect(dashboard()).toEqual(committed);
  });
});
