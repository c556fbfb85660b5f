import {
  type AppEnv,
  AppError,
  createProblemJsonErrorHandler,
  type Logger,
  notFoundHandler,
} from '@rp/runtime';
import { Hono } from 'hono';
import type { Asset, AssetName } from './assets.ts';
import type { OverviewBuilder } from './overview.ts';
import type { TransactionReader } from './transactions.ts';

export interface ConsoleRoutesDeps {
  readonly overview: Pick<OverviewBuilder, 'build'>;
  readonly transactions: Pick<TransactionReader, 'journey' | 'byEndToEndId'>;
  readonly assets: ReadonlyMap<AssetName, Asset>;
  readonly logger: Logger;
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
