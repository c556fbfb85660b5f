import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type TopicDefinition, topicNames, topics } from '@rp/contracts';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { defaultKafkaTopicOptions, kafkaTopics, renderKafkaTopics } from '../src/kafka-topics.ts';
import { kafkaTopicsFile } from '../src/paths.ts';
import { checkGenerated } from './helpers.ts';

const check = (file?: string) => checkGenerated('kafka-topics.ts', file);

describe('KafkaTopics from the topic catalogue', () => {
  it('the committed infra/k8s/base/kafka-topics.yaml is current (else: npm run manifests -w @rp/deploy)', () => {
    expect(readFileSync(kafkaTopicsFile, 'utf8')).toBe(renderKafkaTopics());
    const result = check();
    expect(result.status, result.stderr).toBe(0);
  });

  it('the check fails on a stale file and names the fix', () => {
    const dir = mkdtempSync(join(tmpdir(), 'rp-topics-'));
    try {
      const stale = join(dir, 'kafka-topics.yaml');
      writeFileSync(stale, renderKafkaTopics().replace('partitions: 12', 'partitions: 6'));
      const result = check(stale);
      expect(result.status).toBe(1);
      expect(result.stderr).toContain('npm run manifests -w @rp/deploy');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('has one KafkaTopic per catalogue topic with its partitions, retention and cleanup policy', () => {
    const documents = parseAllDocuments(readFileSync(kafkaTopicsFile, 'utf8')).map((d) => d.toJS());
    expect(documents.map((d) => d.metadata.name)).toEqual(topicNames);
    for (const document of documents) {
      const topic = topics[document.metadata.name as keyof typeof topics];
      expect(document).toMatchObject({
        apiVersion: 'kafka.strimzi.io/v1beta2',
        kind: 'KafkaTopic',
        metadata: { labels: { 'strimzi.io/cluster': defaultKafkaTopicOptions.cluster } },
        spec: {
          topicName: document.metadata.name,
          partitions: topic.partitions,
          replicas: defaultKafkaTopicOptions.replicas,
          config: {
            'retention.ms': topic.retentionMs,
            'cleanup.policy': topic.cleanupPolicy,
            'min.insync.replicas': defaultKafkaTopicOptions.minInsyncReplicas,
          },
        },
      });
    }
  });

  it('follows the catalogue: a changed topic changes its resource', () => {
    const catalogue: Record<string, TopicDefinition> = {
      'x.compacted.v1': {
        ...topics['rp.events.v1'],
        partitions: 3,
        retentionMs: 1000,
        cleanupPolicy: 'compact',
      },
    };
    const [resource] = kafkaTopics(catalogue, { cluster: 'c', replicas: 1, minInsyncReplicas: 1 });
    expect(resource?.metadata.name).toBe('x.compacted.v1');
    expect(resource?.metadata.labels['strimzi.io/cluster']).toBe('c');
    expect(resource?.spec).toEqual({
      topicName: 'x.compacted.v1',
      partitions: 3,
      replicas: 1,
      config: { 'cleanup.policy': 'compact', 'retention.ms': 1000, 'min.insync.replicas': 1 },
    });
    expect(renderKafkaTopics(catalogue)).not.toBe(renderKafkaTopics());
  });

  it('keeps min.insync.replicas below the replication factor, so one broker may be down', () => {
    expect(defaultKafkaTopicOptions.minInsyncReplicas).toBeLessThan(defaultKafkaTopicOptions.replicas);
    expect(defaultKafkaTopicOptions.minInsyncReplicas).toBeGreaterThanOrEqual(2);
  });
});
