import { checkAdminAnswer, consoleAdmin } from '@rp/contracts';
import { jwtOperatorAuthenticator } from '@rp/runtime';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type FakeServices, startFakeServices } from '../test/fake-services.ts';
import { mountConsole } from '../test/mount.ts';
import {
  sampleDeliveries,
  sampleLanes,
  sampleMetrics,
  sampleQueue,
  sampleReconciliation,
  sampleSnapshot,
  sampleWindows,
} from '../test/samples.ts';
import { audience, clients, issuer, startTokenEndpoint, tokenFor } from '../test/token-endpoint.ts';
import type { SignIn } from './app.ts';
import { consoleTargets } from './upstream.ts';

// The console's JSON API against its part of the operators' OpenAPI document
// (packages/contracts/src/docs/admin/console.ts): every route it registers under /console/api is
// documented, every answer it gives here is one the document describes, and every documented answer is
// given at least once.

const uetr = '7d3f1f8e-3b0a-4c55-8d51-2f9c6e4a1b20';
let fake: FakeServices;
let tokens: Awaited<ReturnType<typeof startTokenEndpoint>>;
/** Bearer headers: an operator who reads, and a bank's client (a token that verifies, without a role). */
let reader: string;
let bank: string;

/** `METHOD path-template status` of every answer checked against the document. */
const answered = new Set<string>();

beforeAll(async () => {
  tokens = await startTokenEndpoint();
  reader = `Bearer ${await tokenFor(tokens.url, 'ops-reader')}`;
  bank = `Bearer ${await tokenFor(tokens.url, '250655')}`;
});

afterAll(async () => {
  await tokens.close();
});

beforeEach(async () => {
  fake = await startFakeServices();
  Object.assign(fake.metrics, sampleMetrics(1));
});

afterEach(async () => {
  await fake.close();
});

function consoleApp(
  options: { auth?: 'tokens' | 'none' | 'keys-gone'; signIn?: SignIn | null; timeoutMs?: number } = {},
) {
  const auth = options.auth ?? 'tokens';
  const operatorAuth =
    auth === 'tokens'
      ? tokens.authenticate
      : auth === 'keys-gone'
        ? // Nothing listens on port 9 of this host: the keys cannot be fetched.
          jwtOperatorAuthenticator({ jwks: new URL('http://127.0.0.1:9/jwks.json'), issuer, audience })
        : undefined;
  const signIn = options.signIn === undefined ? { tokenUrl: tokens.url, audience } : options.signIn;
  return mountConsole({
    urls: fake.urls,
    upstreamTimeoutMs: options.timeoutMs ?? 1_000,
    ...(operatorAuth ? { operatorAuth } : {}),
    ...(signIn === null ? {} : { signIn }),
  });
}

type App = ReturnType<typeof consoleApp>['app'];

/**
 * Calls the console (as the reading operator unless `authorization` says otherwise; null: no token) and
 * expects the answer to be one the document describes: status, media type and body.
 */
async function call<T = Record<string, unknown>>(
  app: App,
  method: 'GET' | 'POST',
  path: string,
  options: { authorization?: string | null; body?: string; contentType?: string } = {},
): Promise<{ status: number; headers: Headers; body: T }> {
  const authorization = options.authorization === undefined ? reader : options.authorization;
  const headers: Record<string, string> = {};
  if (authorization !== null) headers.authorization = authorization;
  if (options.body !== undefined) headers['content-type'] = options.contentType ?? 'application/json';
  const response = await app.request(path, {
    method,
    headers,
    ...(options.body === undefined ? {} : { body: options.body }),
  });
  const { body, problems, operation } = await checkAdminAnswer('console', method, path, response);
  expect(problems, `${method} ${path} answered ${response.status}: ${JSON.stringify(body)}`).toEqual([]);
  answered.add(`${operation} ${response.status}`);
  return { status: response.status, headers: response.headers, body: body as T };
}

const signIn = (app: App, credentials: unknown, authorization: string | null = null) =>
  call(app, 'POST', '/console/api/session', { authorization, body: JSON.stringify(credentials) });

describe("the console's API and its document", () => {
  it('the routes the console registers under /console/api are the operations the document describes', () => {
    const registered = consoleApp()
      .routes.filter(
        (route) =>
          (route.method === 'GET' || route.method === 'POST') && route.path.startsWith('/console/api'),
      )
      .map((route) => `${route.method} ${route.path.replace(/:([A-Za-z0-9_]+)/g, '{$1}')}`);
    const documented = consoleAdmin.operations.map(
      (operation) => `${operation.method.toUpperCase()} ${operation.path}`,
    );
    expect(registered.length).toBeGreaterThan(0);
    expect([...new Set(registered)].sort()).toEqual([...documented].sort());
    for (const name of Object.keys(consoleAdmin.schemas)) expect(name).toMatch(/^Console[A-Z]/);
  });

  it('the session: who the token names; a missing token, a token without a role, keys that cannot be had', async () => {
    const { app } = consoleApp();
    const session = await call(app, 'GET', '/console/api/session');
    expect(session.body).toEqual({
      operator: 'ops-reader',
      roles: ['operator.read'],
      authentication: 'oauth2',
      signIn: true,
    });
    expect((await call(app, 'GET', '/console/api/session', { authorization: null })).status).toBe(401);
    expect((await call(app, 'GET', '/console/api/session', { authorization: bank })).status).toBe(403);
    const gone = await call(consoleApp({ auth: 'keys-gone' }).app, 'GET', '/console/api/session');
    expect(gone.status).toBe(503);
    expect(gone.headers.get('retry-after')).toBe('5');
    const open = await call(consoleApp({ auth: 'none' }).app, 'GET', '/console/api/session', {
      authorization: null,
    });
    expect(open.body).toMatchObject({ authentication: 'none', signIn: true });
  });

  it('the sign-in: a token for an operator, and every refusal the document names', async () => {
    const { app } = consoleApp();
    const signedIn = await signIn(app, {
      clientId: 'ops-reader',
      clientSecret: clients['ops-reader']?.secret,
    });
    expect(signedIn.status).toBe(200);
    expect(signedIn.body).toMatchObject({ tokenType: 'Bearer', expiresIn: 300, operator: 'ops-reader' });
    // The sign-in takes no token, and a bad one is not looked at.
    expect((await signIn(app, { clientId: 'ops-reader', clientSecret: 'wrong' }, 'Bearer x')).status).toBe(
      401,
    );
    expect((await signIn(app, { clientId: '250655', clientSecret: clients['250655']?.secret })).status).toBe(
      403,
    );
    expect((await signIn(app, { clientId: '' })).status).toBe(422);
    const malformed = await call(app, 'POST', '/console/api/session', { authorization: null, body: '{' });
    expect(malformed.status).toBe(400);
    const notJson = await call(app, 'POST', '/console/api/session', {
      authorization: null,
      body: 'clientId=a',
      contentType: 'application/x-www-form-urlencoded',
    });
    expect(notJson.status).toBe(415);
    const large = await call(app, 'POST', '/console/api/session', {
      authorization: null,
      body: JSON.stringify({ clientId: 'a', clientSecret: 'b'.repeat(17_000) }),
    });
    expect(large.status).toBe(413);

    const noForm = consoleApp({ signIn: null }).app;
    expect((await signIn(noForm, { clientId: 'a', clientSecret: 'b' })).status).toBe(404);
    const open = consoleApp({ auth: 'none', signIn: null }).app;
    expect((await signIn(open, { clientId: 'a', clientSecret: 'b' })).status).toBe(409);
    const providerGone = consoleApp({
      signIn: { tokenUrl: 'http://127.0.0.1:9/oauth2/token', audience },
    }).app;
    const unavailable = await signIn(providerGone, { clientId: 'a', clientSecret: 'b' });
    expect(unavailable.status).toBe(503);
    expect(unavailable.headers.get('retry-after')).toBe('5');
  });

  it('the overview with every section, with none, and behind the guard', async () => {
    fake.routes.set('scheduler /admin/queue', sampleQueue);
    fake.routes.set('scheduler /admin/windows', sampleWindows);
    fake.routes.set('scheduler /admin/reconciliation', sampleReconciliation);
    fake.routes.set('event-publisher /admin/events/lanes', sampleLanes);
    const { app } = consoleApp();
    const whole = await call<{ status: string; banks: { available: boolean; items: unknown[] } }>(
      app,
      'GET',
      '/console/api/overview',
    );
    expect(whole.body.status).toBe('ok');
    expect(whole.body.banks.items.length).toBeGreaterThan(0);

    for (const target of consoleTargets) await fake.refuse(target);
    const none = await call<{ status: string; queue: { available: boolean } }>(
      app,
      'GET',
      '/console/api/overview',
    );
    expect(none.body.status).toBe('degraded');
    expect(none.body.queue.available).toBe(false);

    expect((await call(app, 'GET', '/console/api/overview', { authorization: null })).status).toBe(401);
    expect((await call(app, 'GET', '/console/api/overview', { authorization: bank })).status).toBe(403);
    const gone = consoleApp({ auth: 'keys-gone' }).app;
    expect((await call(gone, 'GET', '/console/api/overview')).status).toBe(503);
  });

  it("a transaction's journey, whole and degraded, and each way the tracker can fail it", async () => {
    fake.routes.set(`tracker /admin/transactions/${uetr}`, sampleSnapshot(uetr));
    sampleDeliveries(fake.routes, uetr);
    const { app } = consoleApp({ timeoutMs: 300 });
    const path = `/console/api/transactions/${uetr}`;
    const whole = await call<{ status: string; states: unknown[] }>(app, 'GET', path);
    expect(whole.body.status).toBe('ok');
    expect(whole.body.states).toHaveLength(9);
    fake.behave('event-publisher', { status: 500 });
    const degraded = await call<{ status: string; states: { postings: unknown }[] }>(app, 'GET', path);
    expect(degraded.body.status).toBe('degraded');
    expect(degraded.body.states[0]?.postings).toBeNull();

    const unknown = '0b8c6a4e-2f4d-4c1b-9d7e-3a5f6b7c8d9e';
    expect((await call(app, 'GET', `/console/api/transactions/${unknown}`)).status).toBe(404);
    expect((await call(app, 'GET', '/console/api/transactions/not-a-uuid')).status).toBe(422);
    fake.behave('tracker', { status: 500 });
    expect((await call(app, 'GET', path)).status).toBe(502);
    fake.behave('tracker', 'hang');
    expect((await call(app, 'GET', path)).status).toBe(504);
    await fake.refuse('tracker');
    const unreachable = await call(app, 'GET', path);
    expect(unreachable.status).toBe(503);
    expect(unreachable.headers.get('retry-after')).toBe('5');
    expect((await call(app, 'GET', path, { authorization: null })).status).toBe(401);
    expect((await call(app, 'GET', path, { authorization: bank })).status).toBe(403);
  });

  it('the search by end-to-end identification, and each way it is refused', async () => {
    const snapshot = sampleSnapshot(uetr);
    fake.routes.set('tracker /admin/transactions', { transactions: [snapshot] });
    const { app } = consoleApp({ timeoutMs: 300 });
    const found = await call<{ transactions: { uetr: string }[] }>(
      app,
      'GET',
      '/console/api/transactions?endToEndId=E2E-SAMPLE&limit=5',
    );
    expect(found.body.transactions.map((transaction) => transaction.uetr)).toEqual([uetr]);
    expect((await call(app, 'GET', '/console/api/transactions')).status).toBe(422);
    expect((await call(app, 'GET', '/console/api/transactions?endToEndId=E2E&limit=1000')).status).toBe(422);
    fake.behave('tracker', { status: 503 });
    expect((await call(app, 'GET', '/console/api/transactions?endToEndId=E2E')).status).toBe(502);
    fake.behave('tracker', 'hang');
    expect((await call(app, 'GET', '/console/api/transactions?endToEndId=E2E')).status).toBe(504);
    await fake.refuse('tracker');
    expect((await call(app, 'GET', '/console/api/transactions?endToEndId=E2E')).status).toBe(503);
    const path = '/console/api/transactions?endToEndId=E2E';
    expect((await call(app, 'GET', path, { authorization: null })).status).toBe(401);
    expect((await call(app, 'GET', path, { authorization: bank })).status).toBe(403);
    const gone = consoleApp({ auth: 'keys-gone' }).app;
    expect((await call(gone, 'GET', path)).status).toBe(503);
  });

  it('every status each operation documents (but 500) was answered above', () => {
    const documented = consoleAdmin.operations.flatMap((operation) =>
      Object.keys(operation.responses)
        .filter((status) => status !== '500')
        .map((status) => `${operation.method.toUpperCase()} ${operation.path} ${status}`),
    );
    expect(documented.filter((entry) => !answered.has(entry))).toEqual([]);
  });
});
