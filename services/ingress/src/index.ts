export { stateHeader } from './app.ts';
export { readJsonBody } from './body.ts';
export {
  type CallerOutcome,
  type CallerRequest,
  type CallerResolver,
  messageCallerResolver,
} from './caller.ts';
export { ingressConfigSpec } from './config.ts';
export { canonicalJson, idempotencyKey, payloadHash, schemeIdempotencyKey } from './idempotency.ts';
export { type IngressMetrics, ingressMetrics } from './metrics.ts';
export {
  authenticateScheme,
  loadSchemeClients,
  parseSchemeClients,
  type SchemeAuthentication,
  type SchemeClient,
  type SchemeClients,
  tokenSha256,
} from './schemes.ts';
export {
  createIngressService,
  type IngressDeps,
  type IngressService,
  producedTopics,
  serviceName,
} from './service.ts';
export { startIngress } from './start.ts';
