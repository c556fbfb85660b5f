import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { run, type Tools } from './tools.ts';

/** A rendered Kubernetes object, loosely typed: the tests look into it by path. */
export interface K8sObject {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: {
    readonly name: string;
    readonly namespace?: string;
    readonly labels?: Readonly<Record<string, string>>;
    readonly annotations?: Readonly<Record<string, string>>;
  };
  readonly [key: string]: unknown;
}

/** `kustomize build <dir>`: the YAML stream the overlay renders to (only kustomize is needed). */
export async function kustomizeBuild(tools: Pick<Tools, 'kustomize'>, dir: string): Promise<string> {
  const result = await run(tools.kustomize, ['build', dir]);
  if (result.code !== 0) throw new Error(`kustomize build ${dir} failed:\n${result.stderr}`);
  return result.stdout;
}

/** Parses a multi-document YAML stream, refusing duplicate keys and anything that is not an object. */
export function parseObjects(yamlText: string): K8sObject[] {
  return parseAllDocuments(yamlText, { uniqueKeys: true })
    .filter((document) => document.contents !== null)
    .map((document, index) => {
      if (document.errors.length > 0) throw new Error(`document ${index}: ${document.errors[0]?.message}`);
      const value = document.toJS() as K8sObject;
      if (typeof value?.kind !== 'string' || typeof value.metadata?.name !== 'string') {
        throw new Error(`document ${index} is not a Kubernetes object`);
      }
      return value;
    });
}

export interface KubeconformResource {
  readonly filename: string;
  readonly kind: string;
  readonly name: string;
  readonly version: string;
  readonly status: 'statusValid' | 'statusInvalid' | 'statusError' | 'statusSkipped' | 'statusEmpty';
  readonly msg: string;
  readonly validationErrors?: readonly { readonly path: string; readonly msg: string }[];
}

export interface KubeconformReport {
  readonly code: number;
  readonly resources: readonly KubeconformResource[];
  readonly summary: {
    readonly valid: number;
    readonly invalid: number;
    readonly errors: number;
    readonly skipped: number;
  };
}

/** The schema location template for kubeconform: the offline schemas, strict flavour. */
export function schemaLocation(tools: Tools): string {
  return join(
    tools.schemaDir,
    '{{ .NormalizedKubernetesVersion }}-standalone{{ .StrictSuffix }}/{{ .ResourceKind }}{{ .KindSuffix }}.json',
  );
}

/**
 * Validates a YAML stream with kubeconform in strict mode (unknown fields and duplicate keys refused)
 * against the offline schemas only: a kind without a schema is an error, never skipped.
 */
export async function kubeconform(tools: Tools, yamlText: string): Promise<KubeconformReport> {
  const args = [
    '-strict',
    '-summary',
    '-verbose',
    '-output',
    'json',
    '-kubernetes-version',
    tools.kubernetesVersion,
    '-schema-location',
    schemaLocation(tools),
    '-',
  ];
  const result = await run(tools.kubeconform, args, { input: yamlText });
  let parsed: Omit<KubeconformReport, 'code'>;
  try {
    parsed = JSON.parse(result.stdout) as Omit<KubeconformReport, 'code'>;
  } catch {
    throw new Error(`kubeconform printed no report (exit ${result.code}):\n${result.stderr}${result.stdout}`);
  }
  return { code: result.code, resources: parsed.resources ?? [], summary: parsed.summary };
}

/** One line per resource kubeconform did not accept, for assertion messages. */
export function describeProblems(report: KubeconformReport): string[] {
  return report.resources
    .filter((resource) => resource.status !== 'statusValid')
    .map((resource) => {
      const details = (resource.validationErrors ?? [])
        .map((error) => `${error.path}: ${error.msg}`)
        .join('; ');
      return `${resource.kind}/${resource.name}: ${resource.status} ${details || resource.msg}`;
    });
}
