/**
 * The services under the memory limits of their Kubernetes manifests, as pods would run them: each
 * service in a memory cgroup of its own with the limit of `infra/k8s/base/<service>.yaml`, started
 * inside it so that V8 sizes its heap from the limit as it does in a pod, and read at the end for the
 * most it used, how often it reached the limit and whether the kernel killed it. Linux with the memory
 * controller (cgroup v1 or v2), as root; elsewhere the bench refuses the option.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { PipelineService } from '@rp/launcher';
import type { Row } from './report.ts';
import { round } from './stats.ts';

const mib = 2 ** 20;

/** `768Mi` → bytes; the quantities the manifests use (Ki, Mi, Gi). */
export function parseQuantity(quantity: string): number {
  const match = /^(\d+)(Ki|Mi|Gi)$/.exec(quantity.trim());
  if (!match) throw new Error(`a memory quantity in Ki, Mi or Gi, not "${quantity}"`);
  const units = { Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30 } as const;
  return Number(match[1]) * units[match[2] as keyof typeof units];
}

/** The memory limit of the container a manifest declares (its `resources.limits.memory`), in bytes. */
export function manifestMemoryLimit(manifest: string): number | undefined {
  const limits = /\n([ \t]*)limits:[ \t]*\n((?:\1[ \t]+\S.*\n)+)/.exec(manifest);
  const memory = limits ? /^\s+memory:\s*"?([^"\s]+)"?\s*$/m.exec(limits[2] ?? '') : null;
  return memory ? parseQuantity(memory[1] as string) : undefined;
}

/** Each service's memory limit from `infra/k8s/base/<service>.yaml`; a service without a manifest has none. */
export function kubernetesMemoryLimits(
  root: string,
  services: readonly PipelineService[],
): Map<PipelineService, number> {
  const limits = new Map<PipelineService, number>();
  for (const service of services) {
    const file = join(root, 'infra', 'k8s', 'base', `${service}.yaml`);
    if (!existsSync(file)) continue;
    const limit = manifestMemoryLimit(readFileSync(file, 'utf8'));
    if (limit !== undefined) limits.set(service, limit);
  }
  return limits;
}

/** What a cgroup says of a service at the end. */
export interface CgroupMemory {
  readonly limitBytes: number;
  /** The most it held at once (v1 `memory.max_usage_in_bytes`, v2 `memory.peak`); undefined if unread. */
  readonly peakBytes: number | undefined;
  /** Times its processes were killed for want of memory. */
  readonly oomKills: number;
  /** The heap limit V8 chose for a process started in it (`heap_size_limit`). */
  readonly heapLimitBytes: number | undefined;
}

interface Layout {
  readonly version: 1 | 2;
  /** The directory under which the run's cgroups are made. */
  readonly base: string;
}

function layout(): Layout {
  if (existsSync('/sys/fs/cgroup/memory/cgroup.procs')) return { version: 1, base: '/sys/fs/cgroup/memory' };
  const controllers = '/sys/fs/cgroup/cgroup.controllers';
  if (existsSync(controllers) && readFileSync(controllers, 'utf8').split(/\s+/).includes('memory'))
    return { version: 2, base: '/sys/fs/cgroup' };
  throw new Error('--k8s-memory needs the memory cgroup controller (Linux, cgroup v1 or v2)');
}

const readNumber = (file: string): number | undefined => {
  try {
    const value = Number(readFileSync(file, 'utf8').trim());
    return Number.isFinite(value) ? value : undefined;
  } catch {
    return undefined;
  }
};

/** `oom_kill N` of v1's `memory.oom_control` or v2's `memory.events`. */
const oomKills = (file: string): number => {
  try {
    return Number(/^oom_kill (\d+)$/m.exec(readFileSync(file, 'utf8'))?.[1] ?? 0);
  } catch {
    return 0;
  }
};

export class MemoryCgroups {
  readonly #layout: Layout;
  readonly #root: string;
  readonly #limits: ReadonlyMap<PipelineService, number>;
  readonly #heapLimits = new Map<PipelineService, number>();

  /** Makes a cgroup a service under `<base>/<run>`, each with its limit. */
  constructor(run: string, limits: ReadonlyMap<PipelineService, number>) {
    this.#layout = layout();
    this.#root = join(this.#layout.base, `rp-${run}`);
    this.#limits = limits;
    try {
      mkdirSync(this.#root);
      if (this.#layout.version === 2) writeFileSync(join(this.#root, 'cgroup.subtree_control'), '+memory');
      for (const [service, bytes] of limits) {
        const dir = this.#dir(service);
        mkdirSync(dir);
        writeFileSync(
          join(dir, this.#layout.version === 1 ? 'memory.limit_in_bytes' : 'memory.max'),
          String(bytes),
        );
        // No swap to spill into: a pod has none.
        const swap = join(
          dir,
          this.#layout.version === 1 ? 'memory.memsw.limit_in_bytes' : 'memory.swap.max',
        );
        if (existsSync(swap)) writeFileSync(swap, this.#layout.version === 1 ? String(bytes) : '0');
        const heap = Number(
          execFileSync(
            '/bin/sh',
            [
              ...this.#joining(service),
              process.execPath,
              '-e',
              'process.stdout.write(String(require("node:v8").getHeapStatistics().heap_size_limit))',
            ],
            { encoding: 'utf8' },
          ),
        );
        if (Number.isFinite(heap)) this.#heapLimits.set(service, heap);
      }
    } catch (error) {
      this.remove();
      throw new Error(
        `--k8s-memory: could not make the services' memory cgroups: ${(error as Error).message}`,
      );
    }
  }

  #dir(service: PipelineService): string {
    return join(this.#root, service);
  }

  /** `-c <script> <cgroup.procs>`: a shell that joins the service's cgroup and execs what follows. */
  #joining(service: PipelineService): string[] {
    return ['-c', 'echo $$ > "$0" && exec "$@"', join(this.#dir(service), 'cgroup.procs')];
  }

  /** The command a service starts under (the launcher appends its `node main.js`); none without a limit. */
  wrap(service: PipelineService): readonly string[] | undefined {
    return this.#limits.has(service) ? ['/bin/sh', ...this.#joining(service)] : undefined;
  }

  read(): Map<PipelineService, CgroupMemory> {
    const read = new Map<PipelineService, CgroupMemory>();
    for (const [service, limitBytes] of this.#limits) {
      const dir = this.#dir(service);
      const v1 = this.#layout.version === 1;
      read.set(service, {
        limitBytes,
        peakBytes: readNumber(join(dir, v1 ? 'memory.max_usage_in_bytes' : 'memory.peak')),
        oomKills: oomKills(join(dir, v1 ? 'memory.oom_control' : 'memory.events')),
        heapLimitBytes: this.#heapLimits.get(service),
      });
    }
    return read;
  }

  /** Removes the run's cgroups (once their processes have exited); what cannot be removed is left. */
  remove(): void {
    for (const service of this.#limits.keys()) {
      try {
        rmdirSync(this.#dir(service));
      } catch {}
    }
    try {
      rmdirSync(this.#root);
    } catch {}
  }
}

/** A row a service: the most it held against its limit, the heap V8 chose from the limit, OOM kills. */
export function memoryLimitRows(read: ReadonlyMap<PipelineService, CgroupMemory>): Row[] {
  return [...read].map(([service, memory]) => ({
    group: 'pipeline',
    name: `memory under its Kubernetes limit, the whole run: ${service}`,
    value: memory.peakBytes === undefined ? Number.NaN : round(memory.peakBytes / mib, 0),
    unit: 'MB at most',
    detail: `of its manifest's ${round(memory.limitBytes / mib, 0)} MiB limit (${memory.peakBytes === undefined ? 'peak not read' : `${round((100 * memory.peakBytes) / memory.limitBytes, 0)}%`}), page cache included; V8's heap limit from it ${memory.heapLimitBytes === undefined ? 'not read' : `${round(memory.heapLimitBytes / mib, 0)} MB`}; ${memory.oomKills} killed for want of memory`,
  }));
}
