import { topicNames as catalogue, type TopicName, topics } from '@rp/contracts';
import type { TopicSpec } from '@rp/kafka';

/** The physical name of every logical topic of the catalogue. */
export type TopicNames = { readonly [T in TopicName]: string };

/**
 * Physical topic names. In production they are the catalogue's names; a namespace prefixes each one so
 * that tests, benchmarks and a second pipeline on the same cluster never share topics.
 */
export function resolveTopicNames(namespace?: string): TopicNames {
  const prefix = namespace ? `${namespace}.` : '';
  return Object.fromEntries(catalogue.map((name) => [name, `${prefix}${name}`])) as unknown as TopicNames;
}

/** The declarations `ensureTopics` needs, from the catalogue (partitions overridable for small setups). */
export function topicSpecs(names: TopicNames, options: { partitions?: number } = {}): TopicSpec[] {
  return catalogue.map((name) => ({
    topic: names[name],
    partitions: options.partitions ?? topics[name].partitions,
    retentionMs: topics[name].retentionMs,
    cleanupPolicy: topics[name].cleanupPolicy,
  }));
}
