export { pipelineConfig, streamConfig } from './config.ts';
export { postingIdHeader, stateEventId, uuidV5 } from './event-id.ts';
export { originHeader, resentHeader, schemeOrigin } from './headers.ts';
export { loadParticipants, type Participant, type Participants, parseParticipants } from './participants.ts';
export { createPlainCodecs, plainCodec } from './plain-codecs.ts';
export {
  createPipelineProducer,
  type PipelineCodecs,
  type PipelineProducer,
} from './producer.ts';
export {
  buildStateChange,
  createStateEmitter,
  type StateChangeInput,
  type StateEmitter,
  uetrOf,
} from './state.ts';
export { connectStream, type ServiceStream, type StreamSettings, startProducer } from './stream.ts';
export { resolveTopicNames, type TopicNames, topicSpecs } from './topics.ts';
