import { maxRequestBodyBytes, type TopicName } from '@rp/contracts';
import { createStateEmitter, type Participants, type PipelineProducer } from '@rp/pipeline';
import {
  type AppEnv,
  type Clock,
  createHealth,
  createHttpApp,
  createMetrics,
  type Health,
  type Logger,
  type Metrics,
  purgeInRounds,
  systemClock,
  type Tracing,
} from '@rp/runtime';
import type { Store } from '@rp/store';
import type { Hono } from 'hono';
import { registerIngressRoutes } from './app.ts';
import { type BankAuthOptions, jwtBankAuthenticator } from './bank-auth.ts';
import { type CallerResolver, messageCallerResolver } from './caller.ts';
import { ingressMetrics } from './metrics.ts';
import { ProducedMarkers, type ProducedMarkersOptions } from './produced-markers.ts';
import { type RateLimitOptions, SenderRateLimiter } from './rate-limit.ts';
import type { SchemeClients } from './schemes.ts';

export const serviceName = 'ingress';

/** The topics the ingress writes: its producer needs a codec for each. */
export const producedTopics: readonly TopicName[] = [
  'rp.transaction.state.v1',
  'rp.directdebit.received.v1',
  'rp.statusreport.received.v1',
  'rp.credittransfer.received.v1',
];

export interface IngressDeps {
  /**
   * Writes the state topic, `rp.directdebit.received.v1`, `rp.statusreport.received.v1` and
   * `rp.credittransfer.received.v1` (codecs for `producedTopics`). Owned by the caller, which disconnects
   * it after `stop()`.
   */
  readonly producer: PipelineProducer;
  readonly store: Pick<Store, 'idempotency' | 'transactions'>;
  readonly participants: Participants;
  /**
   * The payment schemes allowed to submit credit transfer authorisations and inbound off-us direct debits,
   * with their own credentials. Default none: the scheme-facing routes then refuse every request (401).
   */
  readonly schemes?: SchemeClients;
  readonly logger: Logger;
  /** Server spans for its HTTP routes (see `createHttpApp`). */
  readonly tracing?: Tracing;
  /** Defaults to a registry of its own without process metrics. */
  readonly metrics?: Metrics;
  readonly health?: Health;
  readonly clock?: Clock;
  /** Who sent a message; defaults to the message's instructingAgent (see caller.ts). */
  readonly resolveCaller?: CallerResolver;
  /**
   * Bank authentication with OAuth2 access tokens (JWTs checked against the identity provider's JWKS).
   * Absent: a bank is named by its message's instructing agent (`resolveCaller`), which nothing proves.
   */
  readonly bankAuth?: BankAuthOptions;
  /** Messages in progress at most; beyond it new ones get 503 with Retry-After. Default 1,000. */
  readonly maxInFlight?: number;
  /** Claimed transactions remembered for the banks' reports on them (see IngressRoutesOptions). Default 20,000. */
  readonly claimCacheSize?: number;
  /** Acknowledged transactions remembered for reads before their snapshots exist (see IngressRoutesOptions). Default 5,000. */
  readonly acceptedCacheSize?: number;
  /**
   * Each sender's rate of messages (per second, and the burst after a quiet time), and each bank's rate of
   * reads, counted apart at the same rate; default unlimited.
   */
  readonly rateLimit?: RateLimitOptions;
  /** Retry-After of every 503. Default 5 seconds. */
  readonly retryAfterSeconds?: number;
  /** Default: the contracts' maxRequestBodyBytes. */
  readonly maxBodyBytes?: number;
  /** How the "produced" markers are written behind (default: within 1 s, 100 a command). */
  readonly producedMarkers?: Partial<ProducedMarkersOptions>;
  /**
   * How long message claims and "produced" markers are kept after their receipt: a message sent again
   * later is taken as new, but for one that starts a transaction, which its UETR's key (kept) still
   * knows. Undefined (the default): kept. See `IdempotencyRepository.purge`.
   */
  readonly idempotencyRetentionMs?: number;
  /** How often the keys past their retention are purged (also once at start). Default an hour. */
  readonly idempotencyPurgeIntervalMs?: number;
}

export interface IngressService {
  /** The HTTP app: the bank- and scheme-facing routes plus health and metrics. The caller serves it. */
  readonly app: Hono<AppEnv>;
  start(): Promise<void>;
  /**
   * Refuses new messages and reads (503) and resolves once those in progress are answered, the
   * "produced" markers written and a purge of idempotency keys in progress has ended its round.
   */
  stop(): Promise<void>;
}

export function createIngressService(deps: IngressDeps): IngressService {
  const metrics = deps.metrics ?? createMetrics({ service: serviceName, defaultMetrics: false });
  const health = deps.health ?? createHealth();
  const clock = deps.clock ?? systemClock;
  const app = createHttpApp({
    health,
    metrics,
    logger: deps.logger,
    ...(deps.tracing ? { tracing: deps.tracing } : {}),
  });
  const routeMetrics = ingressMetrics(metrics);
  const emitter = createStateEmitter({
    service: serviceName,
    producer: deps.producer,
    now: () => clock.now(),
  });

  const markers = new ProducedMarkers({
    idempotency: deps.store.idempotency,
    metrics: routeMetrics,
    logger: deps.logger,
    ...(deps.producedMarkers ? { options: deps.producedMarkers } : {}),
  });

  let accepting = false;
  let inFlight = 0;
  const maxInFlight = deps.maxInFlight ?? 1_000;
  let drained: (() => void) | undefined;

  registerIngressRoutes(app, {
    producer: deps.producer,
    emitter,
    idempotency: deps.store.idempotency,
    markers,
    transactions: deps.store.transactions,
    participants: deps.participants,
    schemes: deps.schemes ?? [],
    resolveCaller: deps.resolveCaller ?? messageCallerResolver(deps.participants),
    ...(deps.bankAuth ? { authenticateBank: jwtBankAuthenticator(deps.participants, deps.bankAuth) } : {}),
    clock,
    metrics: routeMetrics,
    retryAfterSeconds: deps.retryAfterSeconds ?? 5,
    claimCacheSize: deps.claimCacheSize ?? 20_000,
    acceptedCacheSize: deps.acceptedCacheSize ?? 5_000,
    maxBodyBytes: deps.maxBodyBytes ?? maxRequestBodyBytes,
    isAccepting: () => accepting,
    hasCapacity: () => inFlight <= maxInFlight,
    // Reads have a budget of their own at the same rate: a bank following its transactions never gets its
    // payments refused for it, and no bank can hammer the store.
    ...(deps.rateLimit
      ? {
          rateLimiter: new SenderRateLimiter(deps.rateLimit),
          readRateLimiter: new SenderRateLimiter(deps.rateLimit),
        }
      : {}),
    async track(work) {
      inFlight += 1;
      try {
        return await work();
      } finally {
        inFlight -= 1;
        if (inFlight === 0) drained?.();
      }
    },
  });

  const retentionMs = idempotencyRetention(deps.idempotencyRetentionMs);
  let purgeTimer: NodeJS.Timeout | undefined;
  const purging = new AbortController();
  let purge: Promise<number> | undefined;
  const purgeOnce = (retention: number) => {
    purge ??= purgeInRounds(
      { clock, logger: deps.logger, retentionMs: retention, batch: 1_000 },
      'idempotency keys',
      (before, limit) => deps.store.idempotency.purge(before, limit),
      (deleted) => routeMetrics.idempotencyKeysPurged(deleted),
      purging.signal,
    ).finally(() => {
      purge = undefined;
    });
  };

  return {
    app,
    async start() {
      if (retentionMs !== undefined) {
        await deps.store.idempotency.ensurePurgeIndex();
        purgeOnce(retentionMs);
        purgeTimer = setInterval(() => purgeOnce(retentionMs), deps.idempotencyPurgeIntervalMs ?? 3_600_000);
        purgeTimer.unref();
      }
      accepting = true;
    },
    async stop() {
      accepting = false;
      // A purge stops after its current round; the requests in progress are not kept waiting for it.
      clearInterval(purgeTimer);
      purging.abort();
      if (inFlight > 0) {
        await new Promise<void>((resolve) => {
          drained = resolve;
        });
        drained = undefined;
      }
      await markers.flush();
      await purge;
    },
  };
}

/** The retention of message claims and markers: undefined keeps them; a retention must be positive. */
export function idempotencyRetention(retentionMs: number | undefined): number | undefined {
  if (retentionMs === undefined) return undefined;
  if (!(retentionMs > 0)) {
    throw new RangeError(`idempotency key retention (${retentionMs} ms) must be longer than nothing`);
  }
  return retentionMs;
}
