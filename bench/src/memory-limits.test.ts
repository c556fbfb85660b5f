import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pipelineServices } from '@rp/launcher';
import { describe, expect, it } from 'vitest';
import {
  kubernetesMemoryLimits,
  manifestMemoryLimit,
  memoryLimitRows,
  parseQuantity,
} from './memory-limits.ts';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

describe("the services' Kubernetes memory limits", () => {
  it('reads a quantity in Ki, Mi or Gi, and refuses any other', () => {
    expect(parseQuantity('768Mi')).toBe(768 * 2 ** 20);
    expect(parseQuantity('1Gi')).toBe(2 ** 30);
    expect(parseQuantity('512Ki')).toBe(512 * 2 ** 10);
    expect(() => parseQuantity('1G')).toThrow(/Ki, Mi or Gi/);
  });

  it("takes a container's limit, not its request", () => {
    const manifest = [
      'kind: Deployment',
      'spec:',
      '  template:',
      '    spec:',
      '      containers:',
      '        - name: tracker',
      '          resources:',
      '            requests:',
      '              cpu: 250m',
      '              memory: 384Mi',
      '            limits:',
      '              cpu: "1"',
      '              memory: 768Mi',
      '---',
      'kind: HorizontalPodAutoscaler',
      '',
    ].join('\n');
    expect(manifestMemoryLimit(manifest)).toBe(768 * 2 ** 20);
    expect(manifestMemoryLimit('kind: Service\n')).toBeUndefined();
  });

  it("reads every engine service's limit from its manifest, and none for the bank simulator", () => {
    const limits = kubernetesMemoryLimits(root, pipelineServices);
    const manifests = pipelineServices.filter((service) =>
      existsSync(resolve(root, 'infra', 'k8s', 'base', `${service}.yaml`)),
    );
    expect([...limits.keys()].sort()).toEqual([...manifests].sort());
    expect(limits.has('bank-simulator')).toBe(false);
    for (const bytes of limits.values()) expect(bytes).toBeGreaterThanOrEqual(256 * 2 ** 20);
  });

  it('gives each service its peak against its limit, the heap V8 chose and its OOM kills', () => {
    const [row] = memoryLimitRows(
      new Map([
        [
          'tracker',
          { limitBytes: 768 * 2 ** 20, peakBytes: 384 * 2 ** 20, oomKills: 0, heapLimitBytes: 432 * 2 ** 20 },
        ],
      ]),
    );
    expect(row).toMatchObject({
      name: 'memory under its Kubernetes limit, the whole run: tracker',
      value: 384,
    });
    expect(row?.detail).toBe(
      "of its manifest's 768 MiB limit (50%), page cache included; V8's heap limit from it 432 MB; 0 killed for want of memory",
    );
  });
});
