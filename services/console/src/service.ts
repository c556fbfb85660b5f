import type { AppEnv, Logger, Metrics, OperatorAuthenticator } from '@rp/runtime';
import type { Hono } from 'hono';
import { createConsoleRoutes, type SignIn } from './app.ts';
import { type Asset, type AssetName, loadAssets } from './assets.ts';
import { OverviewBuilder } from './overview.ts';
import { RateTracker } from './rates.ts';
import { TransactionReader } from './transactions.ts';
import type { Target } from './upstream.ts';
import { Upstreams } from './upstream.ts';

export const serviceName = 'console';

export interface ConsoleOptions {
  /** Base URL of each service the console reads. */
  readonly urls: Readonly<Record<Target, string>>;
  /** Longest wait for one call to another service. */
  readonly upstreamTimeoutMs: number;
  /**
   * The console's own `Authorization` header for the services' /admin routes (its OAuth2 client's token);
   * unset: it calls them without one (services with `ADMIN_AUTH=none`).
   */
  readonly upstreamAuthorization?: () => Promise<string>;
  /**
   * Verifies the operator's access token on /console/api/* (`operator.read`); unset: the console is open
   * (`ADMIN_AUTH=none`, development only).
   */
  readonly operatorAuth?: OperatorAuthenticator;
  /** Where the sign-in form exchanges an operator's client credentials; unset: operators paste a token. */
  readonly signIn?: SignIn;
  readonly logger: Logger;
  readonly metrics: Metrics;
  /** The page's files; default: `public/` of this package. */
  readonly assets?: ReadonlyMap<AssetName, Asset>;
}

export interface ConsoleService {
  /** Mount with `httpApp.route('/', console.app)`. */
  readonly app: Hono<AppEnv>;
  readonly overview: OverviewBuilder;
  readonly transactions: TransactionReader;
}

/** The console: its page, and the JSON API that reads the other services on the page's behalf. */
export function createConsoleService(options: ConsoleOptions): ConsoleService {
  const calls = options.metrics.counter(
    'rp_console_upstream_calls_total',
    'Calls to the other services, by service and how they ended',
    ['target', 'outcome'],
  );
  const duration = options.metrics.histogram(
    'rp_console_upstream_call_duration_seconds',
    'Duration of one call to another service',
    ['target'],
    { buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5] },
  );
  const upstreams = new Upstreams({
    urls: options.urls,
    timeoutMs: options.upstreamTimeoutMs,
    ...(options.upstreamAuthorization === undefined ? {} : { authorization: options.upstreamAuthorization }),
    onCall(target, outcome, seconds) {
      calls.inc({ target, outcome });
      duration.observe({ target }, seconds);
    },
  });
  const overview = new OverviewBuilder({ upstreams, rates: new RateTracker() });
  const transactions = new TransactionReader({ upstreams });
  const app = createConsoleRoutes({
    overview,
    transactions,
    assets: options.assets ?? loadAssets(),
    ...(options.operatorAuth === undefined ? {} : { operatorAuth: options.operatorAuth }),
    ...(options.signIn === undefined ? {} : { signIn: options.signIn }),
    logger: options.logger,
  });
  return { app, overview, transactions };
}
