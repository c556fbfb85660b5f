import { readFileSync } from 'node:fs';
import { dashboardFile } from './paths.ts';

/** One query of a panel, as the dashboard JSON holds it. */
export interface DashboardTarget {
  readonly refId: string;
  readonly expr: string;
  readonly legendFormat: string;
  readonly datasource: { readonly uid: string };
}

/** A panel or a row of the dashboard JSON (a folded row holds its panels). */
export interface DashboardPanel {
  readonly id: number;
  readonly type: string;
  readonly title: string;
  readonly collapsed?: boolean;
  /** A folded row's panels. */
  readonly panels?: readonly DashboardPanel[];
  readonly description?: string;
  readonly datasource?: { readonly type: string; readonly uid: string };
  readonly gridPos: { readonly x: number; readonly y: number; readonly w: number; readonly h: number };
  readonly targets?: readonly DashboardTarget[];
}

export interface DashboardVariable {
  readonly name: string;
  readonly type: string;
  readonly query: string | { readonly query: string };
}

export interface DashboardJson {
  readonly panels: readonly DashboardPanel[];
  readonly templating: { readonly list: readonly DashboardVariable[] };
  readonly uid: string;
}

/** A query with the title of its panel. */
export interface DashboardQuery extends DashboardTarget {
  readonly panel: string;
}

/** The committed dashboard (infra/k8s/base/dashboards/regulated-payments.json). */
export function committedDashboard(): DashboardJson {
  return JSON.parse(readFileSync(dashboardFile, 'utf8')) as DashboardJson;
}

/** Every panel but the rows, those of folded rows included. */
export function dashboardPanels(dashboard: DashboardJson): DashboardPanel[] {
  return dashboard.panels.flatMap((panel) => (panel.type === 'row' ? (panel.panels ?? []) : [panel]));
}

/** Every query of every panel, in the order the panels lie. */
export function dashboardQueries(dashboard: DashboardJson): DashboardQuery[] {
  return dashboardPanels(dashboard).flatMap((panel) =>
    (panel.targets ?? []).map((target) => ({ panel: panel.title, ...target })),
  );
}

/** Grafana's own variables a query may use: the rate interval and the time range. */
export const grafanaVariables: ReadonlySet<string> = new Set(['__rate_interval', '__interval', '__range']);

/** What each variable stands for when a query goes to Prometheus. */
export interface VariableValues {
  readonly rateInterval: string;
  readonly interval: string;
  readonly range: string;
  readonly namespace: string;
  /** A regular expression of member ids (`.*` is the dashboard's All). */
  readonly bank: string;
}

/** Values of the kind Grafana gives: a 30 s scrape, a six-hour range, every bank. */
export const typicalValues: VariableValues = {
  rateInterval: '2m',
  interval: '30s',
  range: '6h',
  namespace: 'rp',
  bank: '.*',
};

/** The expression as Prometheus gets it from Grafana: the variables replaced by their values. */
export function substituted(expr: string, values: VariableValues = typicalValues): string {
  return expr
    .replaceAll('$__rate_interval', values.rateInterval)
    .replaceAll('$__interval', values.interval)
    .replaceAll('$__range', values.range)
    .replaceAll('$namespace', values.namespace)
    .replaceAll('$bank', values.bank);
}

/** The selector and the label of a variable's `label_values(selector, label)` query. */
export function variableSelector(variable: DashboardVariable): { selector: string; label: string } {
  const text = typeof variable.query === 'string' ? variable.query : variable.query.query;
  const match = /^label_values\((.*),\s*([a-zA-Z_][a-zA-Z0-9_]*)\)$/.exec(text);
  if (!match) throw new Error(`variable ${variable.name}: not a label_values query: ${text}`);
  return { selector: match[1] as string, label: match[2] as string };
}
