import { eventsApiVersion } from '../api-version.ts';
import type { SchemaSet } from '../avro/schema-set.ts';
import { type TopicDefinition, type TopicName, topics, valueSubject } from '../topics.ts';

type Json = Record<string, unknown>;

export const avroSchemaFormat = 'application/vnd.apache.avro+json;version=1.9.0';

/** A channel id for a topic name: rp.directdebit.received.v1 -> rp-directdebit-received-v1. */
function channelId(topic: string): string {
  return topic.replace(/[^A-Za-z0-9_-]/g, '-');
}

/** The AsyncAPI 3.0 document of the Kafka topics: channels, UETR keys, Avro payloads. */
export function buildAsyncApiDocument(set: SchemaSet): Json {
  const channels: Json = {};
  const operations: Json = {};
  const messages: Json = {};
  for (const topic of Object.keys(topics) as TopicName[]) {
    const definition: TopicDefinition = topics[topic];
    const id = channelId(topic);
    const messageName = definition.value;
    if (!messages[messageName]) {
      const { schema } = set.message(messageName);
      const doc = typeof schema === 'object' && !Array.isArray(schema) ? schema.doc : undefined;
      messages[messageName] = {
        name: messageName,
        title: messageName,
        ...(doc ? { summary: doc } : {}),
        contentType: 'application/vnd.apache.avro+binary',
        ...(definition.headers
          ? {
              headers: {
                type: 'object',
                properties: Object.fromEntries(
                  Object.entries(definition.headers).map(([name, description]) => [
                    name,
                    { type: 'string', description },
                  ]),
                ),
              },
            }
          : {}),
        payload: { schemaFormat: avroSchemaFormat, schema: set.expand(messageName) },
        bindings: {
          kafka: {
            key: { type: 'string', format: 'uuid', description: 'The transaction UETR (UTF-8 string).' },
            schemaIdLocation: 'payload',
            schemaIdPayloadEncoding: 'confluent',
            bindingVersion: '0.5.0',
          },
        },
      };
    }
    channels[id] = {
      address: topic,
      title: topic,
      description: `${definition.description} Values: ${messageName}, registered under the subject ${valueSubject(topic)}.`,
      messages: { [messageName]: { $ref: `#/components/messages/${messageName}` } },
      bindings: {
        kafka: {
          topic,
          partitions: definition.partitions,
          topicConfiguration: {
            'cleanup.policy': [definition.cleanupPolicy],
            'retention.ms': definition.retentionMs,
          },
          bindingVersion: '0.5.0',
        },
      },
    };
    operations[`send-${id}`] = {
      action: 'send',
      title: `Produce to ${topic}`,
      description: `Produced by: ${definition.producers.join(', ')}.`,
      channel: { $ref: `#/channels/${id}` },
      messages: [{ $ref: `#/channels/${id}/messages/${messageName}` }],
    };
    operations[`receive-${id}`] = {
      action: 'receive',
      title: `Consume ${topic}`,
      description: `Consumed by: ${definition.consumers.join(', ')}.`,
      channel: { $ref: `#/channels/${id}` },
      messages: [{ $ref: `#/channels/${id}/messages/${messageName}` }],
    };
  }
  return {
    asyncapi: '3.0.0',
    info: {
      title: 'Regulated Payments engine: Kafka topics',
      version: eventsApiVersion,
      description:
        'Every hop between the services of the payments engine. Every record is keyed by the transaction UETR so that one transaction lives on one partition, and its value is Avro in the Confluent wire format, registered in the schema registry under <topic>-value with BACKWARD compatibility. Record batches are compressed as the producing service is configured (KAFKA_COMPRESSION: none by default, zstd in the Kubernetes base); every current Kafka client reads zstd, and a kafkajs consumer needs a zstd codec registered.',
      license: { name: 'Apache 2.0', url: 'https://www.apache.org/licenses/LICENSE-2.0' },
    },
    defaultContentType: 'application/vnd.apache.avro+binary',
    channels,
    operations,
    components: { messages },
  };
}
