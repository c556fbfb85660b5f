import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { topicNames, topics } from '@rp/contracts';
import { type EngineService, engineConfigSpec, serviceEnvironment } from '@rp/engine';
import { parseParticipants } from '@rp/pipeline';
import { loadConfig, serviceScope } from '@rp/runtime';
import { describe, expect, it } from 'vitest';
import { parseDockerfile } from '../src/dockerfile.ts';
import { defaultKafkaTopicOptions } from '../src/kafka-topics.ts';
import { operatorExampleObjects } from '../src/operator-examples.ts';
import { k8sDir, type Overlay, overlayDir, overlays, repoRoot } from '../src/paths.ts';
import { containerEnvironment, type Container as PodContainer } from '../src/pod.ts';
import { describeProblems, type K8sObject } from '../src/render.ts';
import { consumedTopics, deployedServiceNames, hostServices, partitionCap } from '../src/services.ts';
import { at, byKind, named, render } from './helpers.ts';
import { serviceSpecs } from './service-specs.ts';

/** Services that run as exactly one instance, never autoscaled, and why. */
const singleInstance: Readonly<Record<string, string>> = {
  scheduler: 'one instance runs the windows (services/scheduler README, Limits)',
  'bank-simulator': 'keeps its records in memory',
};
/** Only for demos and test clusters. */
const simulators = ['bank-simulator'];
/** What the operator provides; the repository holds none of it. */
const operatorProvided = {
  secret: 'rp-secrets',
  configMaps: ['rp-admin-auth', 'rp-bank-auth', 'rp-cdv-tables', 'rp-console-auth', 'rp-participants'],
};
/** Variables that carry credentials although their spec type is not secret() (a URI with a password). */
const credentialVariables = ['MONGODB_URI'];
const productionServices = deployedServiceNames().filter((s) => !simulators.includes(s));
/** The services in the engine's pods where an overlay runs them together (components/engine). */
const inEngine = ['tracker', 'validator', 'dispatcher', 'ingress'];
const expected: Record<
  Overlay,
  { namespace: string; services: string[]; deployments: string[]; topicReplicas: number }
> = {
  production: {
    namespace: 'rp',
    services: productionServices,
    deployments: productionServices,
    topicReplicas: defaultKafkaTopicOptions.replicas,
  },
  'production-engine': {
    namespace: 'rp',
    services: productionServices,
    deployments: [...productionServices.filter((s) => !inEngine.includes(s)), 'engine'],
    topicReplicas: defaultKafkaTopicOptions.replicas,
  },
  demo: {
    namespace: 'rp-demo',
    services: deployedServiceNames(),
    deployments: deployedServiceNames(),
    topicReplicas: 1,
  },
};

const dockerfile = parseDockerfile(readFileSync(join(repoRoot, 'Dockerfile'), 'utf8'));
const imageUid = Number(
  dockerfile.stages
    .at(-1)
    ?.instructions.filter((i) => i.keyword === 'USER')
    .at(-1)
    ?.args.split(':')[0],
);
const readme = readFileSync(join(k8sDir, 'README.md'), 'utf8');

type Json = Record<string, unknown>;
interface Container {
  name: string;
  image: string;
  args?: string[];
  ports?: { name?: string; containerPort: number }[];
  env?: { name: string; value?: string; valueFrom?: Json }[];
  envFrom?: { configMapRef?: { name: string }; secretRef?: { name: string } }[];
  resources?: { requests?: Record<string, string | number>; limits?: Record<string, string | number> };
  livenessProbe?: Json;
  readinessProbe?: Json;
  startupProbe?: Json;
  lifecycle?: Json;
  securityContext?: Json;
  volumeMounts?: { name: string; mountPath: string; readOnly?: boolean }[];
}
interface PodSpec {
  containers: Container[];
  volumes?: ({ name: string } & Json)[];
  securityContext?: Json;
  serviceAccountName?: string;
  automountServiceAccountToken?: boolean;
  enableServiceLinks?: boolean;
  terminationGracePeriodSeconds?: number;
}

const podSpec = (deployment: K8sObject) => at(deployment, 'spec', 'template', 'spec') as PodSpec;
const mainContainer = (deployment: K8sObject) => {
  const containers = podSpec(deployment).containers;
  expect(containers.map((c) => c.name)).toEqual([deployment.metadata.name]);
  return containers[0] as Container;
};

/** A quantity in base units (cores, bytes). */
function quantity(value: string | number): number {
  if (typeof value === 'number') return value;
  const match = /^([0-9.]+)(m|k|M|G|Ki|Mi|Gi)?$/.exec(value);
  if (!match) throw new Error(`unsupported quantity ${value}`);
  const factor =
    { m: 1e-3, k: 1e3, M: 1e6, G: 1e9, Ki: 1024, Mi: 1024 ** 2, Gi: 1024 ** 3 }[match[2] ?? ''] ?? 1;
  return Number(match[1]) * factor;
}

/**
 * The environment a container starts with, as the kubelet resolves it (`@rp/deploy/pod`), the operator's
 * objects being the README's examples. A Secret only through secretKeyRef, one variable at a time, and
 * every variable either a value or a secretKeyRef.
 */
function containerEnv(container: Container, objects: readonly K8sObject[]): Record<string, string> {
  for (const from of container.envFrom ?? []) {
    if (from.secretRef) throw new Error(`${container.name}: envFrom a Secret; use secretKeyRef per variable`);
  }
  for (const variable of container.env ?? []) {
    if (variable.value === undefined && !at(variable.valueFrom, 'secretKeyRef')) {
      throw new Error(`${container.name}: ${variable.name} has neither a value nor a secretKeyRef`);
    }
  }
  return containerEnvironment(container as PodContainer, [...objects, ...operatorExampleObjects()]);
}

/** Whether a Deployment runs the engine (`args: ["engine"]`), hosting several services. */
const isHost = (deployment: K8sObject) => hostServices.includes(mainContainer(deployment).args?.[0] ?? '');

/** The services a Deployment's pods run: its own, or those of the engine's RP_SERVICES. */
function servicesOf(deployment: K8sObject, objects: readonly K8sObject[]): string[] {
  const container = mainContainer(deployment);
  if (!isHost(deployment)) return [container.args?.[0] ?? ''];
  const services = containerEnv(container, objects).RP_SERVICES?.split(',') ?? [];
  expect(services.length, `${deployment.metadata.name} names its services in RP_SERVICES`).toBeGreaterThan(0);
  return services;
}

/** The environment one service reads in a Deployment's pods: the container's, or its share of the engine's. */
function serviceEnv(deployment: K8sObject, service: string, objects: readonly K8sObject[]) {
  const env = containerEnv(mainContainer(deployment), objects);
  return isHost(deployment) ? serviceEnvironment(env, service as EngineService) : env;
}

/** The port a service listens on in a Deployment's pods. */
function servicePort(deployment: K8sObject, service: string, objects: readonly K8sObject[]): number {
  const port = serviceEnv(deployment, service, objects).PORT ?? serviceSpecs[service]?.PORT?.defaultValue;
  return Number(port);
}

describe.each(overlays)('overlay %s', (overlay) => {
  const want = expected[overlay];

  it('renders, and kubeconform -strict accepts every object against the offline schemas', async () => {
    const { objects, report } = await render(overlay);
    expect(describeProblems(report)).toEqual([]);
    expect(report.code).toBe(0);
    expect(report.summary).toEqual({ valid: objects.length, invalid: 0, errors: 0, skipped: 0 });
    expect(objects.length).toBeGreaterThan(30);
  });

  it('deploys every service (the bank simulator only outside production)', async () => {
    const { objects } = await render(overlay);
    const deployments = byKind(objects, 'Deployment');
    expect(deployments.map((d) => d.metadata.name).sort()).toEqual([...want.deployments].sort());
    expect(deployments.flatMap((d) => servicesOf(d, objects)).sort()).toEqual([...want.services].sort());
  });

  it('puts everything in its namespace, which enforces the restricted Pod Security Standard', async () => {
    const { objects } = await render(overlay);
    const namespace = named(objects, 'Namespace', want.namespace);
    expect(namespace?.metadata.labels?.['pod-security.kubernetes.io/enforce']).toBe('restricted');
    for (const object of objects.filter((o) => o.kind !== 'Namespace')) {
      expect(object.metadata.namespace, `${object.kind}/${object.metadata.name}`).toBe(want.namespace);
    }
  });

  it('runs each service from the image with its probes, resources and a locked-down security context', async () => {
    const { objects } = await render(overlay);
    const images = new Set<string>();
    for (const deployment of byKind(objects, 'Deployment')) {
      const service = deployment.metadata.name;
      const pod = podSpec(deployment);
      const container = mainContainer(deployment);
      images.add(container.image);
      expect(container.args, service).toEqual([service]);

      // The port the service listens on is the named port the probes, the Service and Prometheus use. The
      // engine's own port (its probes over its services) is its http; each service's has the service's name.
      const env = containerEnv(container, objects);
      const hosted = servicesOf(deployment, objects);
      if (isHost(deployment)) {
        const byName = (a: { name?: string }, b: { name?: string }) =>
          (a.name ?? '').localeCompare(b.name ?? '');
        expect([...(container.ports ?? [])].sort(byName), service).toEqual(
          [
            { name: 'http', containerPort: Number(env.ENGINE_PORT) },
            ...hosted.map((name) => ({ name, containerPort: servicePort(deployment, name, objects) })),
          ].sort(byName),
        );
      } else expect(container.ports, service).toEqual([{ name: 'http', containerPort: Number(env.PORT) }]);
      expect(at(container.startupProbe, 'httpGet'), service).toEqual({ path: '/health/live', port: 'http' });
      expect(at(container.livenessProbe, 'httpGet'), service).toEqual({ path: '/health/live', port: 'http' });
      expect(at(container.readinessProbe, 'httpGet'), service).toEqual({
        path: '/health/ready',
        port: 'http',
      });

      for (const resource of ['cpu', 'memory']) {
        const request = container.resources?.requests?.[resource];
        const limit = container.resources?.limits?.[resource];
        expect(request, `${service} ${resource} request`).toBeDefined();
        expect(limit, `${service} ${resource} limit`).toBeDefined();
        expect(quantity(request as string), `${service} ${resource}`).toBeLessThanOrEqual(
          quantity(limit as string),
        );
      }

      expect(pod.securityContext, service).toMatchObject({
        runAsNonRoot: true,
        runAsUser: imageUid,
        seccompProfile: { type: 'RuntimeDefault' },
      });
      expect(container.securityContext, service).toEqual({
        allowPrivilegeEscalation: false,
        readOnlyRootFilesystem: true,
        capabilities: { drop: ['ALL'] },
      });
      expect(pod.serviceAccountName, service).toBe('rp-service');
      expect(pod.automountServiceAccountToken, service).toBe(false);
      // The namespace's Services add no variables (as ENGINE_PORT=tcp://... would for a Service "engine").
      expect(pod.enableServiceLinks, service).toBe(false);
      expect(named(objects, 'ServiceAccount', 'rp-service')).toBeDefined();

      // Read-only root: /tmp is the one writable place; every mount has its volume and the reverse.
      const volumes = (pod.volumes ?? []).map((v) => v.name).sort();
      const mounts = container.volumeMounts ?? [];
      expect(mounts.map((m) => m.name).sort(), service).toEqual(volumes);
      expect(mounts.find((m) => m.mountPath === '/tmp')?.name, service).toBe('tmp');
      expect(
        at(
          pod.volumes?.find((v) => v.name === 'tmp'),
          'emptyDir',
        ),
        service,
      ).toBeDefined();
      for (const mount of mounts.filter((m) => m.mountPath !== '/tmp'))
        expect(mount.readOnly, mount.name).toBe(true);

      // Enough time to drain: the preStop pause and the services' own shutdown budgets, one after another.
      const drains = hosted.map((name) => {
        const config = loadConfig(serviceSpecs[name] ?? {}, serviceEnv(deployment, name, objects));
        return (config as { SHUTDOWN_TIMEOUT?: number }).SHUTDOWN_TIMEOUT ?? 0;
      });
      const preStop = Number(at(container.lifecycle, 'preStop', 'sleep', 'seconds') ?? 0);
      const budget = preStop + drains.reduce((sum, ms) => sum + ms, 0) / 1000;
      expect(pod.terminationGracePeriodSeconds, service).toBeGreaterThan(budget);
    }
    expect(images.size).toBe(1);
    const [image] = [...images];
    if (overlay !== 'demo') {
      expect(image).toMatch(/^[\w.-]+(?::\d+)?\/[\w./-]+:[\w.-]+$/);
      expect(image).not.toMatch(/:latest$/);
    } else expect(image).toBe('regulated-payments:dev');
  });

  it('protects each Deployment with a PodDisruptionBudget that still lets a node drain', async () => {
    const { objects } = await render(overlay);
    for (const deployment of byKind(objects, 'Deployment')) {
      const service = deployment.metadata.name;
      const selector = at(deployment, 'spec', 'selector', 'matchLabels');
      const budgets = byKind(objects, 'PodDisruptionBudget').filter((p) =>
        Object.entries(at(p, 'spec', 'selector', 'matchLabels') as Json).every(
          ([key, value]) => (selector as Json)[key] === value,
        ),
      );
      expect(
        budgets.map((b) => b.metadata.name),
        service,
      ).toEqual([service]);
      const budget = budgets[0] as K8sObject;
      const hpa = named(objects, 'HorizontalPodAutoscaler', service);
      const fewest = Number(hpa ? at(hpa, 'spec', 'minReplicas') : at(deployment, 'spec', 'replicas'));
      const maxUnavailable = at(budget, 'spec', 'maxUnavailable');
      const minAvailable = at(budget, 'spec', 'minAvailable');
      const disruptable =
        maxUnavailable !== undefined ? Number(maxUnavailable) : fewest - Number(minAvailable);
      expect(disruptable, service).toBeGreaterThanOrEqual(1);
    }
  });

  it('gives each Deployment a Service on its named port, scraped at /metrics by the ServiceMonitor', async () => {
    const { objects } = await render(overlay);
    const monitors = byKind(objects, 'ServiceMonitor');
    expect(monitors).toHaveLength(1);
    const monitor = monitors[0] as K8sObject;
    expect(at(monitor, 'spec', 'endpoints')).toEqual([
      expect.objectContaining({ port: 'http', path: '/metrics' }),
    ]);
    // The alerts select the engine's targets by these (app_kubernetes_io_part_of, ..._component).
    expect(at(monitor, 'spec', 'targetLabels')).toEqual([
      'app.kubernetes.io/part-of',
      'app.kubernetes.io/component',
    ]);
    const monitored = at(monitor, 'spec', 'selector', 'matchLabels') as Json;
    for (const deployment of byKind(objects, 'Deployment')) {
      // Each service its own Service, on the pods that run it, at the port it listens on. The engine's own
      // port serves its probes only, and has no Service.
      for (const name of servicesOf(deployment, objects)) {
        const service = named(objects, 'Service', name);
        expect(service, name).toBeDefined();
        expect(at(service, 'spec', 'selector'), name).toEqual(
          at(deployment, 'spec', 'selector', 'matchLabels'),
        );
        expect(at(service, 'spec', 'ports'), name).toEqual([
          {
            name: 'http',
            port: servicePort(deployment, name, objects),
            targetPort: isHost(deployment) ? name : 'http',
          },
        ]);
        for (const [key, value] of Object.entries(monitored)) {
          expect(service?.metadata.labels?.[key], `${name} label ${key}`).toBe(value);
        }
      }
      // The pods carry the Deployment's selector labels, so the Service finds them.
      const podLabels = at(deployment, 'spec', 'template', 'metadata', 'labels') as Json;
      expect(podLabels).toMatchObject(at(deployment, 'spec', 'selector', 'matchLabels') as Json);
    }
  });

  it('autoscales every Kafka consumer, capped at the partitions of the topics it consumes', async () => {
    const { objects } = await render(overlay);
    const partitions = new Map(
      byKind(objects, 'KafkaTopic').map((t) => [
        String(at(t, 'spec', 'topicName')),
        Number(at(t, 'spec', 'partitions')),
      ]),
    );
    const consumers = want.services.filter((service) => partitionCap(service) !== undefined);
    expect(consumers).toEqual(
      expect.arrayContaining(['validator', 'scheduler', 'dispatcher', 'tracker', 'event-publisher']),
    );
    for (const deployment of byKind(objects, 'Deployment')) {
      const service = deployment.metadata.name;
      const hosted = servicesOf(deployment, objects);
      const hpa = named(objects, 'HorizontalPodAutoscaler', service);
      const single = hosted.find((name) => name in singleInstance);
      if (single !== undefined) {
        expect(hpa, `${service}: ${single}: ${singleInstance[single]}`).toBeUndefined();
        expect(at(deployment, 'spec', 'replicas'), service).toBe(1);
        if (hosted.some((name) => partitionCap(name) !== undefined))
          expect(at(deployment, 'spec', 'strategy', 'type'), service).toBe('Recreate');
        continue;
      }
      expect(hpa, service).toBeDefined();
      // The autoscaler owns the count: a replicas field would fight it on every apply.
      expect(at(deployment, 'spec', 'replicas'), service).toBeUndefined();
      expect(at(hpa, 'spec', 'scaleTargetRef')).toEqual({
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        name: service,
      });
      const min = Number(at(hpa, 'spec', 'minReplicas'));
      const max = Number(at(hpa, 'spec', 'maxReplicas'));
      expect(min, service).toBeGreaterThanOrEqual(1);
      expect(min, service).toBeLessThanOrEqual(max);
      for (const name of hosted) {
        const cap = partitionCap(name);
        if (cap === undefined) continue;
        expect(max, `${service}: ${name} reads ${consumedTopics(name).join(', ')}`).toBeLessThanOrEqual(cap);
        for (const topic of consumedTopics(name)) {
          expect(max, `${service}: ${name} vs the KafkaTopic ${topic}`).toBeLessThanOrEqual(
            partitions.get(topic) ?? 0,
          );
        }
      }
    }
  });

  it('declares every catalogue topic as a Strimzi KafkaTopic', async () => {
    const { objects } = await render(overlay);
    const kafkaTopics = byKind(objects, 'KafkaTopic');
    expect(kafkaTopics.map((t) => at(t, 'spec', 'topicName')).sort()).toEqual([...topicNames].sort());
    for (const resource of kafkaTopics) {
      const topic = topics[at(resource, 'spec', 'topicName') as keyof typeof topics];
      expect(resource.apiVersion).toBe('kafka.strimzi.io/v1beta2');
      expect(resource.metadata.labels?.['strimzi.io/cluster']).toBe(defaultKafkaTopicOptions.cluster);
      expect(at(resource, 'spec', 'partitions')).toBe(topic.partitions);
      expect(at(resource, 'spec', 'replicas')).toBe(want.topicReplicas);
      expect(at(resource, 'spec', 'config', 'retention.ms')).toBe(topic.retentionMs);
      expect(at(resource, 'spec', 'config', 'cleanup.policy')).toBe(topic.cleanupPolicy);
      const minInsync = Number(at(resource, 'spec', 'config', 'min.insync.replicas'));
      expect(minInsync).toBeLessThanOrEqual(Math.max(1, want.topicReplicas - 1));
    }
  });

  it('gives each service an environment its own config loader accepts, and nothing it does not read', async () => {
    const { objects } = await render(overlay);
    for (const deployment of byKind(objects, 'Deployment')) {
      const host = isHost(deployment);
      const hosted = servicesOf(deployment, objects);
      const reads = (service: string, name: string) => {
        const spec = serviceSpecs[service] ?? {};
        return name in spec || (name.endsWith('_FILE') && spec[name.slice(0, -5)]?.secret === true);
      };
      const env = containerEnv(mainContainer(deployment), objects);
      for (const name of Object.keys(env)) {
        // In the engine: its own settings, a service's scoped ones, or shared ones some service reads.
        const scoped = hosted.find((service) => name.startsWith(serviceScope(service)));
        const known = !host
          ? reads(hosted[0] ?? '', name)
          : name in engineConfigSpec ||
            (scoped !== undefined
              ? reads(scoped, name.slice(serviceScope(scoped).length))
              : hosted.some((service) => reads(service, name)));
        expect(known, `${deployment.metadata.name} is given ${name}, which it does not read`).toBe(true);
      }
      if (host) loadConfig(engineConfigSpec, env);
      for (const service of hosted) {
        const spec = serviceSpecs[service];
        expect(spec, `add ${service} to test/service-specs.ts`).toBeDefined();
        try {
          loadConfig(spec ?? {}, serviceEnv(deployment, service, objects));
        } catch (error) {
          expect.fail(`${service}: ${(error as Error).message}`);
        }
      }
    }
  });

  it('takes secrets only by reference from the Secret the operator provides, and holds none', async () => {
    const { objects } = await render(overlay);
    expect(byKind(objects, 'Secret')).toEqual([]);
    for (const deployment of byKind(objects, 'Deployment')) {
      const service = deployment.metadata.name;
      const spec = Object.assign(
        {},
        ...servicesOf(deployment, objects).map((name) => serviceSpecs[name] ?? {}),
      );
      for (const variable of mainContainer(deployment).env ?? []) {
        const ref = at(variable.valueFrom, 'secretKeyRef') as
          | { name: string; key: string; optional?: boolean }
          | undefined;
        if (ref) {
          expect(ref.name, `${service} ${variable.name}`).toBe(operatorProvided.secret);
          expect(
            ref.optional,
            `${service} ${variable.name}: a missing key must stop the pod`,
          ).toBeUndefined();
          expect(readme, `the README documents the key ${ref.key}`).toContain(`\`${ref.key}\``);
        }
        if (spec[variable.name]?.secret || credentialVariables.includes(variable.name)) {
          expect(ref, `${service} ${variable.name} must come from ${operatorProvided.secret}`).toBeDefined();
        }
      }
    }
  });

  it('refers only to ConfigMaps it renders, or to the ones the operator provides', async () => {
    const { objects } = await render(overlay);
    const rendered = new Set(byKind(objects, 'ConfigMap').map((m) => m.metadata.name));
    const missing = new Set<string>();
    for (const deployment of byKind(objects, 'Deployment')) {
      const pod = podSpec(deployment);
      const names = [
        ...(mainContainer(deployment).envFrom ?? []).map((f) => f.configMapRef?.name),
        ...(pod.volumes ?? []).map((v) => at(v, 'configMap', 'name') as string | undefined),
      ].filter((name): name is string => name !== undefined);
      for (const name of names) if (!rendered.has(name)) missing.add(name);
    }
    for (const name of missing) {
      expect(operatorProvided.configMaps, `${name} is neither rendered nor operator-provided`).toContain(
        name,
      );
      expect(readme, `the README documents ${name}`).toContain(`\`${name}\``);
    }
    if (overlay !== 'demo') expect([...missing].sort()).toEqual(operatorProvided.configMaps);
  });
});

describe('the demo overlay', () => {
  it('points the participants at the bank simulator, and the simulator at the ingress', async () => {
    const { objects } = await render('demo');
    const participants = parseParticipants(
      readFileSync(join(overlayDir('demo'), 'participants.json'), 'utf8'),
    );
    expect(participants.size).toBeGreaterThan(0);
    const port = (name: string) => at(named(objects, 'Service', name), 'spec', 'ports', 0, 'port');
    for (const participant of participants.values()) {
      for (const url of [participant.baseUrl, participant.eventsUrl]) {
        const parsed = new URL(url ?? '');
        expect(parsed.hostname).toBe('bank-simulator');
        expect(Number(parsed.port)).toBe(port('bank-simulator'));
      }
    }
    const simulator = named(objects, 'Deployment', 'bank-simulator') as K8sObject;
    const engineUrl = new URL(containerEnv(mainContainer(simulator), objects).ENGINE_URL ?? '');
    expect(engineUrl.hostname).toBe('ingress');
    expect(Number(engineUrl.port)).toBe(port('ingress'));
  });

  it('runs the validator on the synthetic CDV tables, without the CDV volume', async () => {
    const { objects } = await render('demo');
    const validator = named(objects, 'Deployment', 'validator') as K8sObject;
    const env = containerEnv(mainContainer(validator), objects);
    expect(env.RP_ALLOW_SYNTHETIC_CDV).toBe('true');
    expect(env.CDV_PARAMETER_FILE).toBeUndefined();
    expect(podSpec(validator).volumes?.map((v) => v.name)).not.toContain('cdv-tables');
  });
});

describe.each(['production', 'production-engine'] as const)('the %s overlay', (overlay) => {
  it('reads the CDV tables from the operator-provided files', async () => {
    const { objects } = await render(overlay);
    const validator = byKind(objects, 'Deployment').find((d) =>
      servicesOf(d, objects).includes('validator'),
    ) as K8sObject;
    const env = serviceEnv(validator, 'validator', objects);
    expect(env.RP_ALLOW_SYNTHETIC_CDV).toBeUndefined();
    const mount = mainContainer(validator).volumeMounts?.find((m) => m.name === 'cdv-tables')?.mountPath;
    expect(env.CDV_PARAMETER_FILE?.startsWith(`${mount}/`)).toBe(true);
    expect(env.CDV_BRANCH_FILE?.startsWith(`${mount}/`)).toBe(true);
  });
});

describe('the production-engine overlay', () => {
  it('is production with the services of the hot path in the engine: everything else as production has it', async () => {
    const production = (await render('production')).objects;
    const { objects } = await render('production-engine');
    const engine = named(objects, 'Deployment', 'engine') as K8sObject;
    expect(servicesOf(engine, objects).sort()).toEqual([...inEngine].sort());
    const key = (o: K8sObject) => `${o.kind}/${o.metadata.name}`;
    // What the component changes: the four services' Deployments, autoscalers and budgets give way to the
    // engine's; their Services point at the engine's pods.
    const changed = new Set(
      ['Deployment', 'HorizontalPodAutoscaler', 'PodDisruptionBudget', 'Service'].flatMap((kind) =>
        [...inEngine, 'engine'].map((name) => `${kind}/${name}`),
      ),
    );
    const rest = (list: readonly K8sObject[]) =>
      list.filter((o) => !changed.has(key(o))).sort((a, b) => key(a).localeCompare(key(b)));
    expect(rest(objects)).toEqual(rest(production));
    for (const name of inEngine) {
      expect(named(objects, 'Deployment', name), name).toBeUndefined();
      expect(named(objects, 'HorizontalPodAutoscaler', name), name).toBeUndefined();
      expect(named(objects, 'PodDisruptionBudget', name), name).toBeUndefined();
      const service = named(objects, 'Service', name) as K8sObject;
      const before = named(production, 'Service', name) as K8sObject;
      expect(at(service, 'spec', 'ports', 0, 'port'), name).toBe(at(before, 'spec', 'ports', 0, 'port'));
      expect(service.metadata.labels, name).toEqual(before.metadata.labels);
    }
    // The engine's pods are probed on the engine's own port, whose readiness covers all four.
    expect(at(mainContainer(engine).readinessProbe, 'httpGet')).toEqual({
      path: '/health/ready',
      port: 'http',
    });
    expect(named(objects, 'Service', 'engine')).toBeUndefined();
  });
});
