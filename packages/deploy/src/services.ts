import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type TopicName, topicNames, topics } from '@rp/contracts';
import { repoRoot } from './paths.ts';

/** The folders under services/ that are workspace packages: every service the image must run. */
export function serviceNames(): string[] {
  const dir = join(repoRoot, 'services');
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(join(dir, entry.name, 'package.json')))
    .map((entry) => entry.name)
    .sort();
}

/**
 * The folders under services/ whose process runs other services' code: the engine (`@rp/engine`) runs the
 * pipeline's services together in one process, each on its own port. The image carries it; the
 * Kubernetes base deploys each service in pods of its own, and `components/engine` runs some of them in
 * the engine's pods instead.
 */
export const hostServices: readonly string[] = ['engine'];

/** The services deployed each in pods of its own: every folder under services/ but the hosts. */
export function deployedServiceNames(): string[] {
  return serviceNames().filter((service) => !hostServices.includes(service));
}

export function servicePackage(service: string): {
  name: string;
  scripts?: Record<string, string>;
  dependencies?: Record<string, string>;
} {
  return JSON.parse(readFileSync(join(repoRoot, 'services', service, 'package.json'), 'utf8'));
}

/**
 * The topics a service consumes: its own `consumedTopics` declaration (src/service.ts) together with the
 * catalogue's `consumers` lists naming it. Either may name a topic the other misses; the union is safe for
 * sizing (a consumer's useful replicas stop at the smallest partition count it reads).
 */
export function consumedTopics(service: string): TopicName[] {
  const declared = new Set<string>();
  const source = join(repoRoot, 'services', service, 'src', 'service.ts');
  if (existsSync(source)) {
    const match = /export const consumedTopics\b[^=]*=\s*\[([^\]]*)\]/.exec(readFileSync(source, 'utf8'));
    for (const name of match?.[1]?.matchAll(/'([^']+)'/g) ?? []) declared.add(name[1] as string);
  }
  for (const name of topicNames) {
    if ((topics[name].consumers as readonly string[]).includes(service)) declared.add(name);
  }
  for (const name of declared) {
    if (!(topicNames as readonly string[]).includes(name))
      throw new Error(`${service} consumes ${name}, not in the catalogue`);
  }
  return topicNames.filter((name) => declared.has(name));
}

/** The most consumers of one group that all get a partition: the smallest partition count it reads. */
export function partitionCap(service: string): number | undefined {
  const counts = consumedTopics(service).map((name) => topics[name].partitions);
  return counts.length === 0 ? undefined : Math.min(...counts);
}
