import { duration, serviceBase } from '@rp/runtime';
import { infra, uniqueName } from '@rp/testkit';
import { Kafka, logLevel } from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { streamConfig } from './config.ts';
import { connectStream, startProducer } from './stream.ts';

const spec = { ...streamConfig(), SHUTDOWN_TIMEOUT: duration({ default: 5_000 }) };

describe('connectStream', () => {
  it("connects a service to its stream: the catalogue's topics, its topics' codecs registered, its requests counted, closed by its lifecycle", async () => {
    const { kafkaBrokers, schemaRegistryUrl } = await infra();
    const namespace = uniqueName('stream');
    const base = serviceBase(
      'validator',
      spec,
      {
        LOG_LEVEL: 'silent',
        KAFKA_BROKERS: kafkaBrokers.join(','),
        SCHEMA_REGISTRY_URL: schemaRegistryUrl,
        TOPIC_NAMESPACE: namespace,
        TOPIC_PARTITIONS: '2',
      },
      { signals: false },
    );

    const stream = await connectStream('validator', base, ['rp.directdebit.received.v1', 'rp.events.v1']);
    expect(Object.keys(stream.codecs).sort()).toEqual(['rp.directdebit.received.v1', 'rp.events.v1']);
    expect(stream.names['rp.directdebit.received.v1']).toBe(`${namespace}.rp.directdebit.received.v1`);

    // Every topic of the catalogue, in the namespace, with the partitions asked for.
    const admin = new Kafka({ brokers: [...kafkaBrokers], logLevel: logLevel.NOTHING }).admin();
    await admin.connect();
    try {
      const metadata = await admin.fetchTopicMetadata({ topics: Object.values(stream.names) });
      expect(metadata.topics.map((topic) => topic.partitions.length)).toEqual(
        Object.values(stream.names).map(() => 2),
      );
    } finally {
      await admin.disconnect();
    }

    // The topics' value schemas, registered BACKWARD before they are used.
    const subject = encodeURIComponent(`${namespace}.rp.events.v1-value`);
    const config = await fetch(`${schemaRegistryUrl}/config/${subject}`);
    expect(await config.json()).toMatchObject({ compatibilityLevel: 'BACKWARD' });

    const producer = startProducer(stream, 5_000, base.lifecycle);
    // It writes the topics whose codecs the service asked for, and no others.
    expect(() => producer.send('rp.reconciliation.v1', [])).toThrow(/no codec registered/);
    expect(await base.metrics.registry.metrics()).toMatch(/rp_kafka_requests_total\{[^}]*api="CreateTopics"/);

    expect(await base.lifecycle.shutdown('test')).toEqual({ ok: true, failures: [] });
  });
});
