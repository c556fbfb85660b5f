import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root. */
export const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));

/** The Kubernetes manifests: a Kustomize base, components and overlays. */
export const k8sDir = join(repoRoot, 'infra', 'k8s');

/**
 * The overlays that must render and validate; each is a complete deployment of the engine:
 * `production-engine` is `production` with the services of the hot path in one process.
 */
export const overlays = ['production', 'production-engine', 'demo'] as const;
export type Overlay = (typeof overlays)[number];

export function overlayDir(overlay: Overlay): string {
  return join(k8sDir, 'overlays', overlay);
}

/** The KafkaTopic resources, generated from the topic catalogue of @rp/contracts. */
export const kafkaTopicsFile = join(k8sDir, 'base', 'kafka-topics.yaml');

/** The operators' Grafana dashboard, generated from src/dashboard.ts. */
export const dashboardFile = join(k8sDir, 'base', 'dashboards', 'regulated-payments.json');

/** The alerting rules (a PrometheusRule of prometheus-operator). */
export const prometheusRuleFile = join(k8sDir, 'base', 'prometheusrule.yaml');
