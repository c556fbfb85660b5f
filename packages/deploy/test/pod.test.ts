import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { configMapObject } from '../src/operator-examples.ts';
import { type Container, containerEnvironment, type PodSpec, probeTarget, writeVolumes } from '../src/pod.ts';
import type { K8sObject } from '../src/render.ts';

const configMap = configMapObject;
const secret = (
  name: string,
  data: Record<string, string>,
  stringData?: Record<string, string>,
): K8sObject => ({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name },
  data: Object.fromEntries(
    Object.entries(data).map(([key, value]) => [key, Buffer.from(value).toString('base64')]),
  ),
  ...(stringData ? { stringData } : {}),
});

describe('containerEnvironment', () => {
  const objects = [
    configMap('config', { LOG_LEVEL: 'info', KAFKA_BROKERS: 'kafka:9092' }),
    configMap('later', { LOG_LEVEL: 'debug' }),
    secret(
      'secrets',
      { 'mongodb-uri': 'mongodb://user:pw@mongo/', token: 'from-data' },
      { token: 'from-stringData' },
    ),
  ];

  it('sets envFrom in order, then env over it, as the kubelet does', () => {
    const container: Container = {
      name: 'engine',
      envFrom: [{ configMapRef: { name: 'config' } }, { configMapRef: { name: 'later' }, prefix: 'X_' }],
      env: [
        { name: 'KAFKA_BROKERS', value: 'broker:9093' },
        { name: 'MONGODB_URI', valueFrom: { secretKeyRef: { name: 'secrets', key: 'mongodb-uri' } } },
        { name: 'TOKEN', valueFrom: { secretKeyRef: { name: 'secrets', key: 'token' } } },
        { name: 'LEVEL', valueFrom: { configMapKeyRef: { name: 'config', key: 'LOG_LEVEL' } } },
      ],
    };
    expect(containerEnvironment(container, objects)).toEqual({
      LOG_LEVEL: 'info',
      X_LOG_LEVEL: 'debug',
      KAFKA_BROKERS: 'broker:9093',
      MONGODB_URI: 'mongodb://user:pw@mongo/',
      TOKEN: 'from-stringData',
      LEVEL: 'info',
    });
  });

  it('expands $(NAME) of a variable set before it and $$ to $, and leaves an unknown one as written', () => {
    const container: Container = {
      name: 'engine',
      env: [
        { name: 'HOST', value: 'kafka' },
        { name: 'BROKERS', value: '$(HOST):9092,$(LATER):9092' },
        { name: 'PRICE', value: '$$(HOST)' },
        { name: 'LATER', value: 'other' },
      ],
    };
    expect(containerEnvironment(container, [])).toEqual({
      HOST: 'kafka',
      BROKERS: 'kafka:9092,$(LATER):9092',
      PRICE: '$(HOST)',
      LATER: 'other',
    });
  });

  it('fails on a source or key the pod needs and nobody provides, and skips optional ones', () => {
    const missingMap: Container = { name: 'engine', envFrom: [{ configMapRef: { name: 'absent' } }] };
    expect(() => containerEnvironment(missingMap, objects)).toThrow(
      'envFrom: the ConfigMap absent is neither rendered nor provided; the pod would not start',
    );
    const missingKey: Container = {
      name: 'engine',
      env: [{ name: 'SECRET', valueFrom: { secretKeyRef: { name: 'secrets', key: 'absent' } } }],
    };
    expect(() => containerEnvironment(missingKey, objects)).toThrow(
      'SECRET: the Secret secrets has no key absent; the pod would not start',
    );
    const optional: Container = {
      name: 'engine',
      envFrom: [{ secretRef: { name: 'absent', optional: true } }],
      env: [
        { name: 'SECRET', valueFrom: { secretKeyRef: { name: 'secrets', key: 'absent', optional: true } } },
      ],
    };
    expect(containerEnvironment(optional, objects)).toEqual({});
  });

  it('refuses a valueFrom it does not resolve, by name', () => {
    const container: Container = {
      name: 'engine',
      env: [{ name: 'POD_IP', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } }],
    };
    expect(() => containerEnvironment(container, [])).toThrow('POD_IP: valueFrom fieldRef');
  });
});

describe('writeVolumes', () => {
  let dir: string | undefined;
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  });

  it("writes a ConfigMap's items and a Secret's keys as files, and answers each mount path with its folder or file", () => {
    dir = mkdtempSync(join(tmpdir(), 'rp-pod-'));
    const pod: PodSpec = {
      containers: [],
      volumes: [
        {
          name: 'tables',
          configMap: { name: 'cdv', items: [{ key: 'parameters', path: 'nested/params.csv' }] },
        },
        { name: 'keys', secret: { secretName: 'secrets' } },
        { name: 'scratch', emptyDir: {} },
        { name: 'maybe', configMap: { name: 'absent', optional: true } },
      ],
    };
    const container: Container = {
      name: 'engine',
      volumeMounts: [
        { name: 'tables', mountPath: '/etc/rp/cdv' },
        { name: 'keys', mountPath: '/etc/rp/token', subPath: 'token' },
        { name: 'scratch', mountPath: '/tmp' },
        { name: 'maybe', mountPath: '/etc/rp/maybe' },
      ],
    };
    const objects = [
      configMap('cdv', { parameters: 'p1\n', branches: 'b1\n' }),
      secret('secrets', { token: 'secret-token' }),
    ];
    const mounts = writeVolumes(pod, container, objects, dir);
    expect(readFileSync(join(mounts.get('/etc/rp/cdv') ?? '', 'nested', 'params.csv'), 'utf8')).toBe('p1\n');
    expect(readdirSync(mounts.get('/etc/rp/cdv') ?? '')).toEqual(['nested']);
    expect(readFileSync(mounts.get('/etc/rp/token') ?? '', 'utf8')).toBe('secret-token');
    expect(readdirSync(mounts.get('/tmp') ?? '')).toEqual([]);
    expect(readdirSync(mounts.get('/etc/rp/maybe') ?? '')).toEqual([]);
  });

  it('fails on a mount without a volume and on an item whose key is missing', () => {
    dir = mkdtempSync(join(tmpdir(), 'rp-pod-'));
    const container: Container = {
      name: 'engine',
      volumeMounts: [{ name: 'tables', mountPath: '/etc/rp/cdv' }],
    };
    expect(() => writeVolumes({ containers: [] }, container, [], dir ?? '')).toThrow(
      'the mount /etc/rp/cdv names no volume of the pod',
    );
    const pod: PodSpec = {
      containers: [],
      volumes: [{ name: 'tables', configMap: { name: 'cdv', items: [{ key: 'absent', path: 'x' }] } }],
    };
    expect(() => writeVolumes(pod, container, [configMap('cdv', {})], dir ?? '')).toThrow(
      'volume tables: no key absent; the pod would not start',
    );
  });
});

describe('probeTarget', () => {
  const container: Container = { name: 'engine', ports: [{ name: 'http', containerPort: 8088 }] };

  it('answers the pod port a probe names, by name or number, its path and timeout', () => {
    expect(
      probeTarget(
        { httpGet: { path: '/health/ready', port: 'http' }, timeoutSeconds: 3 },
        container,
        'readiness',
      ),
    ).toEqual({ path: '/health/ready', podPort: 8088, timeoutMs: 3000 });
    expect(probeTarget({ httpGet: { port: 9090 } }, container, 'liveness')).toEqual({
      path: '/',
      podPort: 9090,
      timeoutMs: 1000,
    });
  });

  it('refuses a probe that is not an HTTP get, or that names a port the container does not declare', () => {
    expect(() => probeTarget(undefined, container, 'startup')).toThrow(
      "the engine container's startup probe is not an httpGet probe",
    );
    expect(() => probeTarget({ httpGet: { port: 'metrics' } }, container, 'readiness')).toThrow(
      "the engine container's readiness probe names the port metrics, which it does not declare",
    );
  });
});
