import { freePort } from '@rp/launcher';
import { type HttpServer, startHttpServer } from '@rp/runtime';
import { Hono } from 'hono';
import { consoleTargets, type Target } from '../src/upstream.ts';

/** How a fake service behaves: answers, fails with a status, or accepts the call and never answers. */
export type Behaviour = 'ok' | { status: number } | 'hang';

export interface FakeServices {
  /** Base URL of each target (a path prefix on one local server; a refused port for `refuse()`d ones). */
  readonly urls: Record<Target, string>;
  /** The /metrics text each target serves. */
  readonly metrics: Record<Target, string>;
  /**
   * Answers by `<target> <path without query>`: JSON, or a Response as it is. Without one, /metrics
   * serves `metrics`, /health/ready answers ready, and anything else is a 404.
   */
  readonly routes: Map<string, unknown>;
  /** Every call seen, as `<target> <path with query>` (with the Authorization header, if any). */
  readonly calls: { path: string; authorization: string | undefined; at: number }[];
  behave(target: Target, behaviour: Behaviour): void;
  /** Points a target at a port nobody listens on (connection refused). */
  refuse(target: Target): Promise<void>;
  close(): Promise<void>;
}

/**
 * The six services the console reads, as one local HTTP server: a real server over real sockets, with
 * each service under its own path prefix (`http://127.0.0.1:<port>/tracker/admin/...`).
 */
export async function startFakeServices(): Promise<FakeServices> {
  const metrics = Object.fromEntries(consoleTargets.map((target) => [target, ''])) as Record<Target, string>;
  const behaviours = new Map<Target, Behaviour>();
  const routes = new Map<string, unknown>();
  const calls: FakeServices['calls'] = [];
  const hanging = new Set<() => void>();
  const app = new Hono();
  app.all('/:target/*', async (c) => {
    const target = c.req.param('target') as Target;
    const url = new URL(c.req.url);
    const path = url.pathname.slice(target.length + 1);
    calls.push({
      path: `${target} ${path}${url.search}`,
      authorization: c.req.header('authorization'),
      at: performance.now(),
    });
    const behaviour = behaviours.get(target) ?? 'ok';
    if (behaviour === 'hang') {
      await new Promise<void>((resolve) => hanging.add(resolve));
      return c.text('too late', 500);
    }
    if (behaviour !== 'ok') {
      return c.json(
        { type: 'about:blank', title: 'Unavailable', status: behaviour.status, detail: 'broken on purpose' },
        behaviour.status as 500,
      );
    }
    const key = `${target} ${path}`;
    if (routes.has(key)) {
      const answer = routes.get(key);
      if (answer instanceof Response) return answer.clone();
      return c.json(answer as object);
    }
    if (path === '/metrics')
      return c.text(metrics[target], 200, { 'content-type': 'text/plain; version=0.0.4' });
    if (path === '/health/ready') return c.json({ status: 'ready', state: 'ready', checks: [] });
    return c.json({ title: 'Not found', status: 404, detail: `no ${key}` }, 404);
  });
  const server: HttpServer = await startHttpServer(app, { port: 0, host: '127.0.0.1', closeTimeoutMs: 200 });
  const urls = Object.fromEntries(
    consoleTargets.map((target) => [target, `${server.url}/${target}`]),
  ) as Record<Target, string>;
  return {
    urls,
    metrics,
    routes,
    calls,
    behave: (target, behaviour) => behaviours.set(target, behaviour),
    async refuse(target) {
      urls[target] = `http://127.0.0.1:${await freePort()}`;
    },
    async close() {
      for (const release of hanging) release();
      await server.close();
    },
  };
}
