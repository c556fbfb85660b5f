import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { prometheusRuleFile } from './paths.ts';

/** An alerting rule as the PrometheusRule (and a Prometheus rule file) holds it. */
export interface AlertRule {
  readonly alert: string;
  readonly expr: string;
  readonly for?: string;
  readonly labels?: Record<string, string>;
  readonly annotations?: Record<string, string>;
}

export interface AlertRuleGroup {
  readonly name: string;
  readonly rules: readonly AlertRule[];
}

/**
 * The rule groups of the base's PrometheusRule (infra/k8s/base/prometheusrule.yaml): `spec.groups` is a
 * Prometheus rule file's `groups` as it stands.
 */
export function baseAlertRuleGroups(): AlertRuleGroup[] {
  const resource = parseYaml(readFileSync(prometheusRuleFile, 'utf8')) as {
    kind?: string;
    spec?: { groups?: AlertRuleGroup[] };
  };
  const groups = resource.spec?.groups;
  if (resource.kind !== 'PrometheusRule' || !groups) {
    throw new Error(`${prometheusRuleFile}: no PrometheusRule with spec.groups`);
  }
  return groups;
}
