import { type TopicDefinition, type TopicName, topicNames, topics } from '@rp/contracts';
import { stringify } from 'yaml';

/** How the generated topics are placed: the Strimzi cluster that owns them and their durability. */
export interface KafkaTopicOptions {
  /** Name of the Strimzi `Kafka` resource (the `strimzi.io/cluster` label the Topic Operator selects on). */
  readonly cluster: string;
  /** Replication factor of every topic. */
  readonly replicas: number;
  /** min.insync.replicas: with acks=all, a write needs this many replicas in sync. */
  readonly minInsyncReplicas: number;
}

/** Production durability: three replicas, two in sync for a write (one broker may be down). */
export const defaultKafkaTopicOptions: KafkaTopicOptions = {
  cluster: 'rp-kafka',
  replicas: 3,
  minInsyncReplicas: 2,
};

export interface KafkaTopicResource {
  readonly apiVersion: 'kafka.strimzi.io/v1beta2';
  readonly kind: 'KafkaTopic';
  readonly metadata: {
    readonly name: string;
    readonly labels: Readonly<Record<string, string>>;
    readonly annotations: Readonly<Record<string, string>>;
  };
  readonly spec: {
    readonly topicName: string;
    readonly partitions: number;
    readonly replicas: number;
    readonly config: Readonly<Record<string, string | number>>;
  };
}

const annotationPrefix = 'regulated-payments';

/** The KafkaTopic of one catalogue topic. */
export function kafkaTopic(
  name: string,
  topic: TopicDefinition,
  options: KafkaTopicOptions = defaultKafkaTopicOptions,
): KafkaTopicResource {
  return {
    apiVersion: 'kafka.strimzi.io/v1beta2',
    kind: 'KafkaTopic',
    metadata: {
      name,
      labels: { 'strimzi.io/cluster': options.cluster, 'app.kubernetes.io/component': 'topic' },
      annotations: {
        [`${annotationPrefix}/description`]: topic.description,
        [`${annotationPrefix}/key`]: topic.key,
        [`${annotationPrefix}/value`]: topic.value,
      },
    },
    spec: {
      topicName: name,
      partitions: topic.partitions,
      replicas: options.replicas,
      config: {
        'cleanup.policy': topic.cleanupPolicy,
        'retention.ms': topic.retentionMs,
        'min.insync.replicas': options.minInsyncReplicas,
      },
    },
  };
}

/** Every topic of the catalogue, in catalogue order. */
export function kafkaTopics(
  catalogue: Readonly<Record<string, TopicDefinition>> = topics,
  options: KafkaTopicOptions = defaultKafkaTopicOptions,
): KafkaTopicResource[] {
  const names = catalogue === topics ? (topicNames as readonly TopicName[]) : Object.keys(catalogue);
  return names.map((name) => kafkaTopic(name, catalogue[name] as TopicDefinition, options));
}

/** The file infra/k8s/base/kafka-topics.yaml: one KafkaTopic per catalogue topic, multi-document YAML. */
export function renderKafkaTopics(
  catalogue: Readonly<Record<string, TopicDefinition>> = topics,
  options: KafkaTopicOptions = defaultKafkaTopicOptions,
): string {
  const header = [
    '# Generated from the topic catalogue of @rp/contracts (packages/contracts/src/topics.ts): do not edit.',
    '# Regenerate with `npm run manifests -w @rp/deploy`; the deploy tests fail while this file is stale.',
    '# Retry tiers and dead-letter topics are not listed: each consumer group creates its own at start-up.',
  ].join('\n');
  const documents = kafkaTopics(catalogue, options).map((resource) =>
    stringify(resource, { lineWidth: 0 }).trimEnd(),
  );
  return `${header}\n${documents.map((document) => `---\n${document}`).join('\n')}\n`;
}
