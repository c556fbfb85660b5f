import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parseDockerfile } from './dockerfile.ts';
import { repoRoot } from './paths.ts';
import type { K8sObject } from './render.ts';

/**
 * A rendered pod as the kubelet would start it, without a cluster: its container's environment (the
 * image's ENV, envFrom, values, ConfigMap and Secret keys, `$(NAME)` expanded), its volumes written out as
 * files, and where its probes ask. The ConfigMaps and Secrets come from the rendered objects and from what
 * the caller adds for the operator's (the ones the repository never holds). A source or key the pod needs
 * and nobody provides fails, as the pod would not start.
 */

// The pod's spec, as far as these functions read it.

type Json = Record<string, unknown>;
interface KeyRef {
  readonly name: string;
  readonly key: string;
  readonly optional?: boolean;
}
export interface EnvVar {
  readonly name: string;
  readonly value?: string;
  readonly valueFrom?: { readonly configMapKeyRef?: KeyRef; readonly secretKeyRef?: KeyRef } & Json;
}
export interface EnvFromSource {
  readonly prefix?: string;
  readonly configMapRef?: { readonly name: string; readonly optional?: boolean };
  readonly secretRef?: { readonly name: string; readonly optional?: boolean };
}
export interface Probe {
  readonly httpGet?: { readonly path?: string; readonly port: number | string; readonly scheme?: string };
  readonly initialDelaySeconds?: number;
  readonly periodSeconds?: number;
  readonly timeoutSeconds?: number;
  readonly failureThreshold?: number;
}
export interface Container {
  readonly name: string;
  readonly command?: readonly string[];
  readonly args?: readonly string[];
  readonly ports?: readonly { readonly name?: string; readonly containerPort: number }[];
  readonly env?: readonly EnvVar[];
  readonly envFrom?: readonly EnvFromSource[];
  readonly startupProbe?: Probe;
  readonly livenessProbe?: Probe;
  readonly readinessProbe?: Probe;
  readonly lifecycle?: { readonly preStop?: { readonly sleep?: { readonly seconds: number } } & Json };
  readonly volumeMounts?: readonly {
    readonly name: string;
    readonly mountPath: string;
    readonly subPath?: string;
  }[];
}
interface KeyItems {
  readonly items?: readonly { readonly key: string; readonly path: string }[];
  readonly optional?: boolean;
}
export interface Volume {
  readonly name: string;
  readonly configMap?: { readonly name: string } & KeyItems;
  readonly secret?: { readonly secretName: string } & KeyItems;
  readonly emptyDir?: Json;
}
export interface PodSpec {
  readonly containers: readonly Container[];
  readonly initContainers?: readonly Container[];
  readonly volumes?: readonly Volume[];
  readonly terminationGracePeriodSeconds?: number;
}

/** A ConfigMap's or Secret's keys and values (a Secret's `data` decoded, its `stringData` over it). */
function sourceData(
  objects: readonly K8sObject[],
  kind: 'ConfigMap' | 'Secret',
  name: string,
  optional: boolean | undefined,
  what: string,
): Readonly<Record<string, string>> | undefined {
  const object = objects.find((o) => o.kind === kind && o.metadata.name === name);
  if (object === undefined) {
    if (optional === true) return undefined;
    throw new Error(`${what}: the ${kind} ${name} is neither rendered nor provided; the pod would not start`);
  }
  if (kind === 'ConfigMap') return (object.data ?? {}) as Record<string, string>;
  const decoded = Object.fromEntries(
    Object.entries((object.data ?? {}) as Record<string, string>).map(([key, value]) => [
      key,
      Buffer.from(value, 'base64').toString('utf8'),
    ]),
  );
  return { ...decoded, ...((object.stringData ?? {}) as Record<string, string>) };
}

/** `$(NAME)` of a variable defined before it, `$$` for a literal `$`, as the kubelet expands a value. */
function expand(value: string, env: Readonly<Record<string, string>>): string {
  return value.replace(/\$\$|\$\(([^)]*)\)/g, (match, name: string | undefined) =>
    match === '$$' ? '$' : name !== undefined && Object.hasOwn(env, name) ? (env[name] as string) : match,
  );
}

/**
 * The container's own variables as the kubelet sets them: envFrom in order (a later source over an
 * earlier one, with its prefix), then env in order over them (values expanded, keys of ConfigMaps and
 * Secrets looked up). A missing source or key that is not optional stops the pod, so it fails here.
 */
export function containerEnvironment(
  container: Container,
  objects: readonly K8sObject[],
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const from of container.envFrom ?? []) {
    const data = from.configMapRef
      ? sourceData(objects, 'ConfigMap', from.configMapRef.name, from.configMapRef.optional, 'envFrom')
      : from.secretRef
        ? sourceData(objects, 'Secret', from.secretRef.name, from.secretRef.optional, 'envFrom')
        : undefined;
    for (const [key, value] of Object.entries(data ?? {})) env[`${from.prefix ?? ''}${key}`] = value;
  }
  for (const variable of container.env ?? []) {
    const from = variable.valueFrom;
    if (from === undefined) {
      env[variable.name] = expand(variable.value ?? '', env);
      continue;
    }
    const [kind, ref] = from.configMapKeyRef
      ? (['ConfigMap', from.configMapKeyRef] as const)
      : from.secretKeyRef
        ? (['Secret', from.secretKeyRef] as const)
        : [undefined, undefined];
    if (kind === undefined) {
      throw new Error(
        `${variable.name}: valueFrom ${Object.keys(from).join(', ')} is not resolved by containerEnvironment; teach it`,
      );
    }
    const data = sourceData(objects, kind, ref.name, ref.optional, variable.name);
    const value = data?.[ref.key];
    if (value !== undefined) env[variable.name] = value;
    else if (ref.optional !== true) {
      throw new Error(
        `${variable.name}: the ${kind} ${ref.name} has no key ${ref.key}; the pod would not start`,
      );
    }
  }
  return env;
}

/** The runtime image's ENV (the Dockerfile's last stage), which the container's variables override. */
export function imageEnvironment(): Record<string, string> {
  const dockerfile = parseDockerfile(readFileSync(join(repoRoot, 'Dockerfile'), 'utf8'));
  const env: Record<string, string> = {};
  for (const instruction of dockerfile.stages.at(-1)?.instructions ?? []) {
    if (instruction.keyword !== 'ENV') continue;
    for (const pair of instruction.args.split(/\s+/)) {
      const equals = pair.indexOf('=');
      if (equals <= 0 || /["'$\\]/.test(pair)) {
        throw new Error(
          `Dockerfile line ${instruction.line}: ENV ${instruction.args} is not read by imageEnvironment; write it as NAME=value`,
        );
      }
      env[pair.slice(0, equals)] = pair.slice(equals + 1);
    }
  }
  return env;
}

/**
 * Writes each volume the container mounts as the kubelet would (a ConfigMap's or Secret's keys as files,
 * an emptyDir as an empty folder) below `dir`; answers each mount path with the folder (or file, for a
 * subPath) that stands for it on this machine.
 */
export function writeVolumes(
  pod: PodSpec,
  container: Container,
  objects: readonly K8sObject[],
  dir: string,
): Map<string, string> {
  const mounts = new Map<string, string>();
  for (const mount of container.volumeMounts ?? []) {
    const volume = pod.volumes?.find((v) => v.name === mount.name);
    if (volume === undefined) throw new Error(`the mount ${mount.mountPath} names no volume of the pod`);
    const local = join(dir, volume.name);
    mkdirSync(local, { recursive: true });
    const source = volume.configMap
      ? {
          ...volume.configMap,
          data: sourceData(
            objects,
            'ConfigMap',
            volume.configMap.name,
            volume.configMap.optional,
            `volume ${volume.name}`,
          ),
        }
      : volume.secret
        ? {
            ...volume.secret,
            data: sourceData(
              objects,
              'Secret',
              volume.secret.secretName,
              volume.secret.optional,
              `volume ${volume.name}`,
            ),
          }
        : undefined;
    if (source === undefined && volume.emptyDir === undefined) {
      throw new Error(
        `volume ${volume.name}: only ConfigMap, Secret and emptyDir volumes are made by writeVolumes`,
      );
    }
    mounts.set(mount.mountPath, mount.subPath ? join(local, mount.subPath) : local);
    // An emptyDir, or an optional source that is missing, mounts an empty folder.
    const data = source?.data;
    if (data === undefined) continue;
    for (const item of source?.items ?? Object.keys(data).map((key) => ({ key, path: key }))) {
      const value = data[item.key];
      if (value === undefined)
        throw new Error(`volume ${volume.name}: no key ${item.key}; the pod would not start`);
      mkdirSync(dirname(join(local, item.path)), { recursive: true });
      writeFileSync(join(local, item.path), value);
    }
  }
  return mounts;
}

/** The pod's port a probe asks (a container port's name or number) and its path. */
export function probeTarget(probe: Probe | undefined, container: Container, what: string) {
  const get = probe?.httpGet;
  if (get === undefined)
    throw new Error(`the ${container.name} container's ${what} probe is not an httpGet probe`);
  if ((get.scheme ?? 'HTTP') !== 'HTTP')
    throw new Error(`the ${container.name} container's ${what} probe uses ${get.scheme}`);
  const podPort =
    typeof get.port === 'number' || /^\d+$/.test(get.port)
      ? Number(get.port)
      : container.ports?.find((port) => port.name === get.port)?.containerPort;
  if (podPort === undefined) {
    throw new Error(
      `the ${container.name} container's ${what} probe names the port ${get.port}, which it does not declare`,
    );
  }
  return { path: get.path ?? '/', podPort, timeoutMs: (probe?.timeoutSeconds ?? 1) * 1000 };
}
