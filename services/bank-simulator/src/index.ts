export { registerSimulatorRoutes, type SimulatorRouteDeps, uetrOfPosting } from './app.ts';
export { BankSimulatorClient } from './client.ts';
export { bankSimulatorConfigSpec } from './config.ts';
export {
  type FaultAction,
  type FaultMode,
  type FaultRoute,
  type FaultRule,
  FaultTable,
  faultRoutes,
  parseFaultRule,
  type ReportingRoute,
  reportingRoutes,
} from './faults.ts';
export {
  type BankRequest,
  type ExchangedMessage,
  type MessageKind,
  type MessageRoute,
  messageKinds,
  messageRoutes,
  type ReceivedPosting,
  type RequestAnswer,
  type ResponseDelivery,
  type RouteCounters,
  SimulatorRecords,
  type SimulatorStats,
} from './records.ts';
export {
  type AnsweredMessage,
  buildCreditAuthorizationResponse,
  buildInboundResponse,
  buildResponse,
  creditorAccountOf,
  debtorAccountOf,
  defaultResponderRetry,
  InboundResponder,
  newMessageIdentification,
  type ResponderRetry,
} from './responder.ts';
export { type BankSimulator, type BankSimulatorConfig, createBankSimulator, serviceName } from './service.ts';
export { type SignatureCheck, signingKey, signPosting, verifySignature } from './signature.ts';
