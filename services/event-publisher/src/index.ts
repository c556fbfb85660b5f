export { createPlainCodecs, plainCodec } from '@rp/pipeline';
export { type AdminRoutesDeps, type BankDelivery, createAdminRoutes } from './app.ts';
export { type AttemptResult, BankClient, classifyStatus } from './bank-client.ts';
export { BankGate, BankGates, type BankHealth } from './bank-gate.ts';
export { eventPublisherConfigSpec } from './config.ts';
export { createPostingHandler, PartitionPositions } from './consumer.ts';
export { Delivery } from './delivery.ts';
export {
  DeliveryStore,
  type Lane,
  type LaneEntry,
  publisherCollections,
  publisherIndexes,
  type StoredPosting,
} from './delivery-store.ts';
export { LaneIndex } from './lane-index.ts';
export { type PublisherMetrics, postingReadMetrics, publisherMetrics } from './metrics.ts';
export {
  deliveryId,
  describePosting,
  esmEventId,
  laneId,
  normaliseEventId,
  type OutgoingPosting,
} from './postings.ts';
export {
  type EventsHandlerOptions,
  eventsHandler,
  type Receipt,
  type ReceivedRequest,
  receivePosting,
  SeenEvents,
  verifyPosting,
} from './receiver.ts';
export { parseReplayRequest, type ReplayRequest, type ReplayResult } from './replay.ts';
export {
  defaultRetrySchedule,
  nextAttempt,
  parseRetryAfter,
  type RetrySchedule,
  retryDelayMs,
} from './retry-schedule.ts';
export {
  consumedTopics,
  consumerRetryPolicy,
  createEventPublisherService,
  type EventPublisherDeps,
  type EventPublisherOptions,
  type EventPublisherService,
  serviceName,
} from './service.ts';
export { BankSigner, parseSigningSecrets, type SigningSecrets, signingKey } from './signing.ts';
export { startEventPublisher } from './start.ts';
export { eventsEndpoint, type Subscriber, Subscriptions } from './subscribers.ts';
