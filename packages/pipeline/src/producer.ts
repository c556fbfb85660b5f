import type { TopicName, TopicValue } from '@rp/contracts';
import type { AvroCodec, KafkaClient, Producer, ProducerOptions, ProducerRecord } from '@rp/kafka';
import type { TopicNames } from './topics.ts';

/** A producer addressed by logical topic name; each topic's record type follows from the catalogue. */
export interface PipelineProducer {
  send<T extends TopicName>(topic: T, records: readonly ProducerRecord<TopicValue<T>>[]): Promise<void>;
  flush(): Promise<void>;
  disconnect(): Promise<void>;
}

export type PipelineCodecs = { readonly [T in TopicName]: AvroCodec<TopicValue<T>> };

/** Wraps the kafka package's producer so callers use logical names and get the catalogue's types. */
export function createPipelineProducer(
  kafka: KafkaClient,
  names: TopicNames,
  codecs: Partial<PipelineCodecs>,
  options: Omit<ProducerOptions<Record<string, unknown>>, 'codecs'> = {},
): PipelineProducer {
  const physical: Record<string, AvroCodec<unknown>> = {};
  for (const [name, codec] of Object.entries(codecs)) {
    physical[names[name as TopicName]] = codec as AvroCodec<unknown>;
  }
  const producer: Producer<Record<string, unknown>> = kafka.createProducer({ ...options, codecs: physical });
  return {
    send(topic, records) {
      if (!physical[names[topic]]) throw new Error(`no codec registered for topic ${topic}`);
      return producer.send(names[topic], records as readonly ProducerRecord<unknown>[]);
    },
    flush: () => producer.flush(),
    disconnect: () => producer.disconnect(),
  };
}
