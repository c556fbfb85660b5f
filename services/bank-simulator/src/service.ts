import {
  type AppEnv,
  type Clock,
  createHealth,
  createHttpApp,
  createLogger,
  createMetrics,
  type Health,
  type HttpServer,
  type Logger,
  type Metrics,
  renewAfterSeconds,
  startHttpServer,
  systemClock,
} from '@rp/runtime';
import type { Hono } from 'hono';
import { registerSimulatorRoutes } from './app.ts';
import { type FaultRule, FaultTable } from './faults.ts';
import {
  IdentityProvider,
  type IdentityProviderOptions,
  identityProviderPath,
  registerIdentityProviderRoutes,
} from './identity-provider.ts';
import { simulatorMetrics } from './metrics.ts';
import { SimulatorRecords } from './records.ts';
import {
  type BankAuthorization,
  defaultResponderRetry,
  InboundResponder,
  type ResponderRetry,
} from './responder.ts';

export const serviceName = 'bank-simulator';

export interface BankSimulatorConfig {
  /** Listen port for `start()`; 0 (default) takes a free one. */
  port?: number;
  host?: string;
  /**
   * The engine's base URL (its ingress): inbound debits and credit transfer authorisations are answered
   * there. Absent: they are stored, not answered.
   */
  engineUrl?: string;
  /** How long after an inbound debit or credit the bank reports (ms). Default 50. */
  responseDelayMs?: number;
  /** Debtor account numbers answered RJCT AM04 (insufficient funds). */
  insufficientFundsAccounts?: readonly string[];
  /** Creditor account numbers whose credits are answered RJCT AC04 (closed account). */
  closedAccounts?: readonly string[];
  /**
   * Signing secrets per member id; several during a rotation. A bank without any accepts unsigned postings
   * and credits.
   */
  signingSecrets?: Readonly<Record<string, readonly string[]>>;
  /** Largest accepted age of a posting's webhook-timestamp, in seconds; absent: not checked. */
  signatureToleranceSeconds?: number;
  /** Faults in force from the start. */
  faults?: readonly FaultRule[];
  /** Retries of the simulator's own reports to the engine. */
  retry?: Partial<ResponderRetry>;
  /** Longest long poll of /sim/postings/wait (ms). Default 120,000. */
  maxWaitMs?: number;
  /** Requests the request log (`/sim/requests`) keeps. Default 10,000. */
  requestLogSize?: number;
  /** Event postings kept for inspection (`/sim/postings`). Default 100,000. */
  postingLogSize?: number;
  /** Messages kept for inspection (`/sim/messages`) and for spotting resends. Default 100,000. */
  messageLogSize?: number;
  logger?: Logger;
  metrics?: Metrics;
  health?: Health;
  clock?: Clock;
  /**
   * Plays the banks' identity provider too (OAuth2 client credentials, JWT access tokens, a JWKS), and
   * authenticates the banks' own calls to the engine with its tokens.
   */
  identity?: IdentityProviderOptions;
  /** Random source for error rates (tests make it deterministic). */
  random?: () => number;
}

export interface BankSimulator {
  readonly app: Hono<AppEnv>;
  /** Listens on the configured port. */
  start(): Promise<void>;
  /** Ends hanging requests and long polls, abandons pending reports, closes the server. */
  stop(): Promise<void>;
  /** The listening URL (after `start`). */
  readonly url: string;
  /** A bank's baseUrl (and eventsUrl) as a participant entry names it (after `start`). */
  bankUrl(memberId: string): string;
  readonly records: SimulatorRecords;
  readonly faults: FaultTable;
}

/**
 * A process that plays any number of participating banks: each bank's endpoints live under
 * `/banks/<memberId>`, so a participant's baseUrl and eventsUrl are `<url>/banks/<memberId>`.
 */
export function createBankSimulator(config: BankSimulatorConfig = {}): BankSimulator {
  const logger = config.logger ?? createLogger({ service: serviceName, level: 'warn' });
  const metrics = config.metrics ?? createMetrics({ service: serviceName, defaultMetrics: false });
  const health = config.health ?? createHealth();
  const clock = config.clock ?? systemClock;
  const records = new SimulatorRecords({
    ...(config.requestLogSize === undefined ? {} : { requestLogSize: config.requestLogSize }),
    ...(config.postingLogSize === undefined ? {} : { postingLogSize: config.postingLogSize }),
    ...(config.messageLogSize === undefined ? {} : { messageLogSize: config.messageLogSize }),
  });
  const faults = new FaultTable(config.random);
  for (const rule of config.faults ?? []) faults.add(rule);
  const stopping = new AbortController();
  const provider = config.identity ? new IdentityProvider(config.identity) : undefined;
  const responder = new InboundResponder({
    engineUrl: config.engineUrl,
    ...(provider ? { authorization: bearerTokens(provider) } : {}),
    responseDelayMs: config.responseDelayMs ?? 50,
    insufficientFunds: new Set(config.insufficientFundsAccounts ?? []),
    closedAccounts: new Set(config.closedAccounts ?? []),
    retry: { ...defaultResponderRetry, ...config.retry },
    records,
    clock,
    logger,
  });
  const app = createHttpApp({ health, metrics, logger });
  registerSimulatorRoutes(app, {
    records,
    faults,
    responder,
    signingSecrets: new Map(Object.entries(config.signingSecrets ?? {})),
    signatureToleranceSeconds: config.signatureToleranceSeconds,
    clock,
    logger,
    metrics: simulatorMetrics(metrics),
    stopping: stopping.signal,
    maxWaitMs: config.maxWaitMs ?? 120_000,
  });
  if (provider && config.identity) {
    registerIdentityProviderRoutes(app, provider, identityProviderPath(config.identity.issuer));
  }
  let server: HttpServer | undefined;

  const url = () => {
    if (!server) throw new Error('the bank simulator is not started');
    return server.url;
  };

  return {
    app,
    records,
    faults,
    get url() {
      return url();
    },
    bankUrl: (memberId) => `${url()}/banks/${encodeURIComponent(memberId)}`,
    async start() {
      if (server) return;
      server = await startHttpServer(app, {
        port: config.port ?? 0,
        ...(config.host === undefined ? {} : { host: config.host }),
        closeTimeoutMs: 1_000,
      });
      if (health.state === 'starting') health.markReady();
      logger.info({ url: server.url }, 'bank simulator listening');
    },
    async stop() {
      stopping.abort();
      records.wakeAll();
      await responder.stop();
      const running = server;
      server = undefined;
      if (running) {
        running.server.closeAllConnections();
        await running.close();
      }
    },
  };
}

/**
 * Each bank's bearer token for its calls to the engine, renewed at half its lifetime; `refused` drops a
 * token the engine answered 401 to, so the next attempt takes a new one.
 */
function bearerTokens(provider: IdentityProvider): BankAuthorization {
  const cached = new Map<string, { header: string; renewAt: number }>();
  const authorization = async (memberId: string) => {
    const held = cached.get(memberId);
    if (held && held.renewAt > Date.now()) return held.header;
    const token = await provider.issue({ clientId: memberId });
    const header = `Bearer ${token.accessToken}`;
    cached.set(memberId, { header, renewAt: Date.now() + renewAfterSeconds(token.expiresIn) * 1000 });
    return header;
  };
  return Object.assign(authorization, {
    refused(memberId: string, header: string) {
      if (cached.get(memberId)?.header === header) cached.delete(memberId);
    },
  });
}
