export {
  actioningBankOf,
  createDispatchHandlers,
  creditorBankOf,
  type DispatchHandlers,
  initiatingBankOf,
  releasedAtHeader,
} from './app.ts';
export { type BankClient, type CallResult, createBankClient, describeCallError } from './bank-client.ts';
export { type Admission, BankGate, BankGates, type CallHealth } from './bank-gate.ts';
export { dispatcherConfigSpec } from './config.ts';
export {
  createDeliverer,
  type Deliverer,
  DeliveryDeferred,
  type DeliveryJob,
  type DispatchMessageType,
  type DispatchOperation,
  stateHeader,
} from './delivery.ts';
export { type DispatcherMetrics, dispatcherMetrics } from './metrics.ts';
export { backoffDelay, classifyStatus, nextAttemptAt, parseRetryAfter } from './retry.ts';
export { RetrySchedule } from './schedule.ts';
export {
  consumedTopics,
  createDispatcherService,
  type DispatcherDeps,
  type DispatcherOptions,
  type DispatcherService,
  producedTopics,
  serviceName,
} from './service.ts';
export {
  keysFor,
  parseSigningSecrets,
  requestHeaders,
  type SigningKeys,
  signature,
  signingKey,
  traceparentFor,
} from './signing.ts';
export { startDispatcher } from './start.ts';
