export { eventsApiVersion } from './api-version.ts';
export { avroSchema, avroType, decodeAvro, encodeAvro, parseAvroSchema } from './avro/codec.ts';
export { avroTypeOptions } from './avro/logical-types.ts';
export type { RawSchema as AvroSchema } from './avro/raw-schema.ts';
export {
  type AdminExchange,
  adminResponseProblems,
  type CheckedAdminAnswer,
  checkAdminAnswer,
} from './docs/admin/check.ts';
export { consoleAdmin } from './docs/admin/console.ts';
export { eventPublisherAdmin } from './docs/admin/event-publisher.ts';
export { schedulerAdmin } from './docs/admin/scheduler.ts';
export type { AdminOperation, AdminService, AdminServiceDoc } from './docs/admin/shape.ts';
export { trackerAdmin } from './docs/admin/tracker.ts';
export { adminServiceDocs } from './docs/admin-openapi.ts';
export { adminOpenApiDocument, asyncApiDocument, openApiDocument } from './docs/documents.ts';
export { type ContractError, type ContractErrorCode, isContractError } from './errors.ts';
export {
  allowedEventTypes,
  completedDebitJourney,
  type EngineService,
  type EventClass,
  type EventClassInfo,
  type EventTypeInfo,
  engineServices,
  eventClasses,
  isFinalState,
  type KnownEventType,
  type KnownTransactionState,
  nextState,
  type StateEmitter,
  serviceStartOrder,
  type TransactionStateInfo,
  type Transition,
  transactionEventTypes,
  transactionStates,
  transactionTransitions,
} from './event-types.ts';
export * from './generated/types.ts';
export {
  apiPrefix,
  bankPaths,
  deliveryHeaders,
  maxRequestBodyBytes,
  readPaths,
  servicePaths,
} from './http/endpoints.ts';
export {
  type ProblemKind,
  problem,
  problemContentType,
  problemTypes,
  validationProblem,
} from './http/problems.ts';
export {
  type ExactNumber,
  isExactNumber,
  jsonNumber,
  parseJsonExact,
  stringifyJsonExact,
} from './json/exact-json.ts';
export { fromStoredJson, jsonSchema, toJson } from './json/message-json.ts';
export {
  type ValidationResult,
  validate,
  validateCreditTransfer,
  validateDirectDebit,
  validatePaymentStatusReport,
} from './json/validate.ts';
export { currencyMinorUnits } from './money/currencies.ts';
export {
  addDecimals,
  compareDecimals,
  decimalPlaces,
  fromMinorUnits,
  isDecimal,
  normalizeDecimal,
  subtractDecimals,
  toMinorUnits,
} from './money/decimal.ts';
export {
  type KnownReconciliationCode,
  type ReconciliationRow,
  reconciliationCodeOfRow,
  reconciliationRows,
} from './reconciliation.ts';
export {
  type Compatibility,
  type CompatibilityResult,
  checkCompatibility,
  type RegisterSchemaOptions,
  type RegisterSchemasOptions,
  registerSchema,
  registerSchemas,
} from './registry.ts';
export type { DecimalString, IsoDate, IsoDateTime, Uuid } from './scalars.ts';
export {
  type CleanupPolicy,
  type TopicDefinition,
  type TopicName,
  type TopicValue,
  type TopicValueName,
  topicNames,
  topicSubjects,
  topics,
  valueSubject,
} from './topics.ts';
