export { stateHeader } from './app.ts';
export { readJsonBody } from './body.ts';
export {
  type CallerOutcome,
  type CallerRequest,
  type CallerResolver,
  messageCallerResolver,
} from './caller.ts';
export { ingressConfigSpec } from './config.ts';
export { canonicalJson, idempotencyKey, payloadHash } from './idempotency.ts';
export {
  createIngressService,
  type IngressDeps,
  type IngressService,
  producedTopics,
  serviceName,
} from './service.ts';
