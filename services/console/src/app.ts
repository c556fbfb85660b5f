import {
  type AppEnv,
  AppError,
  createProblemJsonErrorHandler,
  isAppError,
  type Logger,
  notFoundHandler,
  type OperatorAuthenticator,
  operatorGuard,
  operatorOf,
  requestClientCredentialsToken,
} from '@rp/runtime';
import { Hono } from 'hono';
import type { Asset, AssetName } from './assets.ts';
import type { OverviewBuilder } from './overview.ts';
import type { TransactionReader } from './transactions.ts';

export interface ConsoleRoutesDeps {
  readonly overview: Pick<OverviewBuilder, 'build'>;
  readonly transactions: Pick<TransactionReader, 'journey' | 'byEndToEndId'>;
  readonly assets: ReadonlyMap<AssetName, Asset>;
  /**
   * Verifies the operator's access token on /console/api/* (every route there is a read: `operator.read`);
   * unset: anyone may read (`ADMIN_AUTH=none`, development only).
   */
  readonly operatorAuth?: OperatorAuthenticator;
  /** The sign-in form's token endpoint; unset: operators paste an access token. */
  readonly signIn?: SignIn;
  readonly logger: Logger;
}

/** Where an operator's client credentials are exchanged for an access token, and for which API. */
export interface SignIn {
  readonly tokenUrl: string;
  /** The admin API's audience (`ADMIN_AUTH_AUDIENCE`). */
  readonly audience: string;
  /** Longest wait for the token endpoint. Default 10 s. */
  readonly timeoutMs?: number;
}

/** What `GET` and `POST /console/api/session` say of the operator signed in. */
export interface SessionView {
  readonly operator: string;
  readonly roles: readonly string[];
  /** `none`: the console runs without authentication (`ADMIN_AUTH=none`). */
  readonly authentication: 'oauth2' | 'none';
  /** Whether the sign-in form may exchange client credentials here. */
  readonly signIn: boolean;
}

/**
 * The page allows only its own script, style sheet and API: no inline script, no other origin, no frame.
 * Everything the page shows from the engine goes in as text, never as markup.
 */
export const contentSecurityPolicy = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * - GET /console/: the page; GET /console/assets/console.js and console.css
 * - GET /console/api/overview: the pipeline now (always 200; `status: degraded` says what did not answer)
 * - GET /console/api/transactions/:uetr: a transaction's journey
 * - GET /console/api/transactions?endToEndId=&limit=: transactions by end-to-end id
 * - GET /console/api/session: who the access token names and the roles it grants
 * - POST /console/api/session `{ clientId, clientSecret }`: signs an operator in with its OAuth2 client
 *   credentials at the identity provider (the page cannot reach another origin); answers the access token
 *
 * Every /console/api route but the sign-in takes an operator's access token with `operator.read`.
 */
export function createConsoleRoutes(deps: ConsoleRoutesDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.onError(createProblemJsonErrorHandler({ logger: deps.logger }));
  app.notFound(notFoundHandler);

  app.use('/console/*', async (c, next) => {
    await next();
    c.header('Content-Security-Policy', contentSecurityPolicy);
    c.header('X-Content-Type-Options', 'nosniff');
    c.header('Referrer-Policy', 'no-referrer');
    c.header('X-Frame-Options', 'DENY');
  });
  app.use('/console/api/*', async (c, next) => {
    await next();
    c.header('Cache-Control', 'no-store');
  });
  const guard = operatorGuard(deps.operatorAuth);
  app.use('/console/api/*', (c, next) =>
    c.req.method === 'POST' && c.req.path === '/console/api/session' ? next() : guard(c, next),
  );

  const serve = (name: AssetName) => {
    const asset = deps.assets.get(name);
    if (!asset) throw new AppError('NOT_FOUND', `no asset ${name}`);
    return new Response(asset.body, {
      headers: { 'Content-Type': asset.contentType, 'Cache-Control': 'no-cache' },
    });
  };
  app.get('/', (c) => c.redirect('/console/'));
  app.get('/console', (c) => c.redirect('/console/'));
  app.get('/console/', () => serve('index.html'));
  app.get('/console/assets/:name', (c) => {
    const name = c.req.param('name');
    if (name !== 'console.js' && name !== 'console.css') {
      throw new AppError('NOT_FOUND', `no asset ${name}`);
    }
    return serve(name);
  });

  const authentication = deps.operatorAuth === undefined ? 'none' : 'oauth2';
  app.get('/console/api/session', (c) => {
    const operator = operatorOf(c);
    const view: SessionView = {
      operator: operator.id,
      roles: [...operator.roles].sort(),
      authentication,
      signIn: deps.signIn !== undefined,
    };
    return c.json(view);
  });
  app.post('/console/api/session', async (c) => {
    const { operatorAuth, signIn } = deps;
    if (operatorAuth === undefined) {
      throw new AppError('CONFLICT', 'This console runs without authentication (ADMIN_AUTH=none)');
    }
    if (signIn === undefined) {
      throw new AppError(
        'NOT_FOUND',
        'Sign-in with client credentials is not set up here (ADMIN_AUTH_TOKEN_URL): paste an access token',
      );
    }
    const credentials = parseSignIn(await jsonBody(c.req.raw));
    let issued: Awaited<ReturnType<typeof requestClientCredentialsToken>>;
    try {
      issued = await requestClientCredentialsToken({
        tokenUrl: signIn.tokenUrl,
        clientId: credentials.clientId,
        clientSecret: credentials.clientSecret,
        audience: signIn.audience,
        ...(signIn.timeoutMs === undefined ? {} : { timeoutMs: signIn.timeoutMs }),
      });
    } catch (error) {
      if (isAppError(error, 'DOWNSTREAM_REJECTED') && (error.status === 400 || error.status === 401)) {
        c.header('WWW-Authenticate', 'Bearer');
        throw new AppError('UNAUTHORIZED', 'The identity provider refused this client id and secret');
      }
      throw new AppError('DOWNSTREAM_TIMEOUT', 'The identity provider could not be asked for a token', {
        status: 503,
        retryAfterSeconds: 5,
        cause: error,
      });
    }
    // The token is checked as every later call will check it: a client that is no operator is told now.
    const checked = await operatorAuth(`Bearer ${issued.accessToken}`);
    if (!checked.ok) {
      throw new AppError(
        'UNAUTHORIZED',
        `The identity provider's token is not accepted here: ${checked.detail}`,
      );
    }
    if (!checked.operator.roles.has('operator.read')) {
      throw new AppError(
        'FORBIDDEN',
        `Client ${credentials.clientId} holds no operator role (operator.read)`,
      );
    }
    c.var.logger.info({ operator: checked.operator.id }, 'operator signed in to the console');
    return c.json({
      accessToken: issued.accessToken,
      tokenType: 'Bearer',
      expiresIn: issued.expiresIn,
      operator: checked.operator.id,
      roles: [...checked.operator.roles].sort(),
      authentication,
      signIn: true,
    });
  });

  app.get('/console/api/overview', async (c) => c.json(await deps.overview.build(c.get('requestId'))));
  app.get('/console/api/transactions/:uetr', async (c) =>
    c.json(await deps.transactions.journey(c.req.param('uetr'), c.get('requestId'))),
  );
  app.get('/console/api/transactions', async (c) => {
    const transactions = await deps.transactions.byEndToEndId(
      c.req.query('endToEndId'),
      c.req.query('limit'),
      c.get('requestId'),
    );
    return c.json({ transactions });
  });
  return app;
}

/** The sign-in form's body: an operator's OAuth2 client id and secret. */
function parseSignIn(body: unknown): { clientId: string; clientSecret: string } {
  const object =
    typeof body === 'object' && body !== null && !Array.isArray(body)
      ? (body as Record<string, unknown>)
      : {};
  const problems: { pointer: string; detail: string }[] = [];
  if (object !== body) problems.push({ pointer: '', detail: 'must be a JSON object' });
  const field = (name: 'clientId' | 'clientSecret', max: number) => {
    const value = object[name];
    if (typeof value !== 'string' || value.length === 0 || value.length > max) {
      problems.push({ pointer: `/${name}`, detail: `required: 1 to ${max} characters` });
      return '';
    }
    return value;
  };
  const credentials = { clientId: field('clientId', 200), clientSecret: field('clientSecret', 500) };
  if (problems.length > 0) {
    throw new AppError('VALIDATION_FAILED', 'The sign-in needs a client id and secret', {
      details: problems,
    });
  }
  return credentials;
}

/** The request's JSON (at most 16 kB), or a 400/413/415 problem. */
async function jsonBody(request: Request): Promise<unknown> {
  if (!(request.headers.get('content-type') ?? '').toLowerCase().startsWith('application/json')) {
    throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'The sign-in takes application/json');
  }
  const text = await request.text();
  if (text.length > 16_384) throw new AppError('PAYLOAD_TOO_LARGE', 'The sign-in body is over 16 kB');
  try {
    return JSON.parse(text);
  } catch {
    throw new AppError('MALFORMED_JSON', 'The sign-in body is not JSON');
  }
}
