import { type SpawnSyncReturns, spawnSync } from 'node:child_process';
import { type Overlay, overlayDir } from '../src/paths.ts';
import {
  type K8sObject,
  type KubeconformReport,
  kubeconform,
  kustomizeBuild,
  parseObjects,
} from '../src/render.ts';
import { ensureTools, type Tools } from '../src/tools.ts';

let tools: Promise<Tools> | undefined;

/** The toolchain; the global setup fetched it, so this only finds it in the cache. */
export function getTools(): Promise<Tools> {
  tools ??= ensureTools();
  return tools;
}

export interface Rendered {
  readonly yaml: string;
  readonly objects: readonly K8sObject[];
  readonly report: KubeconformReport;
}

const rendered = new Map<Overlay, Promise<Rendered>>();

/** An overlay rendered by kustomize and validated by kubeconform (once per test file). */
export function render(overlay: Overlay): Promise<Rendered> {
  let result = rendered.get(overlay);
  if (!result) {
    result = (async () => {
      const t = await getTools();
      const yaml = await kustomizeBuild(t, overlayDir(overlay));
      return { yaml, objects: parseObjects(yaml), report: await kubeconform(t, yaml) };
    })();
    rendered.set(overlay, result);
  }
  return result;
}

/** A value at a path of plain keys and indexes, or undefined. */
export function at(value: unknown, ...path: (string | number)[]): unknown {
  let current: unknown = value;
  for (const key of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string | number, unknown>)[key];
  }
  return current;
}

export function byKind(objects: readonly K8sObject[], kind: string): K8sObject[] {
  return objects.filter((object) => object.kind === kind);
}

export function named(objects: readonly K8sObject[], kind: string, name: string): K8sObject | undefined {
  return objects.find((object) => object.kind === kind && object.metadata.name === name);
}

/** Runs a generator script of `scripts/` with `--check` (on `file`, else its committed file). */
export function checkGenerated(script: string, file?: string): SpawnSyncReturns<string> {
  const path = new URL(`../scripts/${script}`, import.meta.url).pathname;
  return spawnSync(
    process.execPath,
    ['--conditions=source', path, '--check', ...(file ? ['--file', file] : [])],
    {
      encoding: 'utf8',
    },
  );
}
