export {
  type AvroCodec,
  type AvroSchemaJson,
  type AvroSerde,
  type AvroSerdeOptions,
  type AvroTypeOptions,
  createAvroSerde,
  type DecodeOutcome,
} from './avro-serde.ts';
export { patchBatchChecksum } from './batch-checksum.ts';
export {
  compressionType,
  defaultCompression,
  type KafkaCompression,
  kafkaCompressions,
  registerZstd,
  zstdCodec,
} from './compression.ts';
export type { ConsumerOptions, ConsumerRunner } from './consumer.ts';
export {
  type ConsumerObserver,
  kafkaConsumerMetrics,
  kafkaMetrics,
  type LagReading,
} from './consumer-metrics.ts';
export {
  type DeadLetterAdmin,
  type DeadLetterRecord,
  type DeadLetterTopic,
  isDeadLetterTopic,
} from './dead-letters.ts';
export {
  isKafkaError,
  isRetriableFailure,
  KafkaError,
  type KafkaErrorReason,
  kafkaErrorReasons,
} from './errors.ts';
export type { BatchContext, BatchHandler, ConsumedRecord, HandlerContext, RecordHandler } from './handler.ts';
export { createKafka, type KafkaClient, type KafkaOptions, patchKafkajs, type TopicSpec } from './kafka.ts';
export type { Logger } from './logger.ts';
export {
  clientIdFor,
  consumerGroupName,
  deadLetterTopicName,
  retryTopicName,
  valueSubject,
} from './names.ts';
export { type OneOffReadOptions, readOnce } from './one-off-read.ts';
export {
  defaultLingerMs,
  type Producer,
  type ProducerOptions,
  type ProducerRecord,
  type TopicCodecs,
} from './producer.ts';
export {
  positionKey,
  type ReadAtOptions,
  type RecordPosition,
  type StoredRecord,
} from './reader.ts';
export { type KafkaRequestEvent, kafkaRequestMetrics } from './request-metrics.ts';
export { retryHeader } from './retry-headers.ts';
export {
  type DeadLetterReason,
  deadLetterReasons,
  defaultRetryPolicy,
  outageRetryPolicy,
  type RetryPolicy,
} from './retry-policy.ts';
export { withShippedKafkajs } from './shipped-kafkajs.ts';
