import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type FakeServices, startFakeServices } from '../test/fake-services.ts';
import { mountConsole } from '../test/mount.ts';
import { sampleMetrics } from '../test/samples.ts';
import { audience, clients, startTokenEndpoint } from '../test/token-endpoint.ts';
import type { SignIn } from './app.ts';

let fake: FakeServices;
let tokens: Awaited<ReturnType<typeof startTokenEndpoint>>;

beforeAll(async () => {
  tokens = await startTokenEndpoint();
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

function consoleApp(options: { auth?: boolean; signIn?: SignIn | null } = {}) {
  const signIn = options.signIn === undefined ? { tokenUrl: tokens.url, audience } : options.signIn;
  return mountConsole({
    urls: fake.urls,
    upstreamTimeoutMs: 1_000,
    ...(options.auth === false ? {} : { operatorAuth: tokens.authenticate }),
    ...(signIn === null ? {} : { signIn }),
  });
}

const signInWith = (app: ReturnType<typeof consoleApp>['app'], body: unknown) =>
  app.request('/console/api/session', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

async function problem(response: Response) {
  expect(response.headers.get('content-type')).toBe('application/problem+json');
  return (await response.json()) as {
    status: number;
    code: string;
    detail: string;
    errors?: { pointer: string }[];
  };
}

describe('operators sign in to the console', () => {
  it('the page is open, but every API route needs an operator token: 401 with WWW-Authenticate', async () => {
    const { app } = consoleApp();
    expect((await app.request('/console/')).status).toBe(200);
    for (const path of [
      '/console/api/overview',
      '/console/api/session',
      '/console/api/transactions/7d3f1f8e-3b0a-4c55-8d51-2f9c6e4a1b20',
      '/console/api/transactions?endToEndId=E2E-1',
    ]) {
      const response = await app.request(path);
      expect(response.status, path).toBe(401);
      expect(response.headers.get('www-authenticate')).toBe('Bearer');
      expect((await problem(response)).code).toBe('UNAUTHORIZED');
    }
    // Nothing was asked of the services on a refused call.
    expect(fake.calls).toEqual([]);
  });

  it("signs an operator in with its client's credentials; the token then reads the console", async () => {
    const { app, lines } = consoleApp();
    const response = await signInWith(app, {
      clientId: 'ops-reader',
      clientSecret: clients['ops-reader']?.secret,
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    const session = (await response.json()) as {
      accessToken: string;
      expiresIn: number;
      operator: string;
      roles: string[];
    };
    expect(session).toMatchObject({ operator: 'ops-reader', roles: ['operator.read'], expiresIn: 300 });
    // The token was asked for the admin API's audience.
    expect(new URLSearchParams(tokens.requests.at(-1)).get('audience')).toBe(audience);

    const bearer = { headers: { authorization: `Bearer ${session.accessToken}` } };
    const who = await app.request('/console/api/session', bearer);
    expect(await who.json()).toEqual({
      operator: 'ops-reader',
      roles: ['operator.read'],
      authentication: 'oauth2',
      signIn: true,
    });
    expect((await app.request('/console/api/overview', bearer)).status).toBe(200);
    // The secret is in no log line.
    expect(JSON.stringify(lines)).not.toContain(clients['ops-reader']?.secret);
    expect(lines.some((line) => line.msg === 'operator signed in to the console')).toBe(true);
  });

  it('an operator who may replay is told both roles', async () => {
    const { app } = consoleApp();
    const response = await signInWith(app, {
      clientId: 'ops-admin',
      clientSecret: clients['ops-admin']?.secret,
    });
    expect(((await response.json()) as { roles: string[] }).roles).toEqual([
      'operator.read',
      'operator.replay',
    ]);
  });

  it('refuses a wrong secret (401), a client without an operator role (403) and a form without fields (422)', async () => {
    const { app, lines } = consoleApp();
    const wrong = await signInWith(app, { clientId: 'ops-reader', clientSecret: 'not-the-secret' });
    expect(wrong.status).toBe(401);
    expect((await problem(wrong)).detail).toBe('The identity provider refused this client id and secret');

    const bank = await signInWith(app, { clientId: '250655', clientSecret: clients['250655']?.secret });
    expect(bank.status).toBe(403);
    expect((await problem(bank)).detail).toContain('holds no operator role');

    const empty = await signInWith(app, { clientId: '' });
    expect(empty.status).toBe(422);
    expect((await problem(empty)).errors?.map((error) => error.pointer)).toEqual([
      '/clientId',
      '/clientSecret',
    ]);

    const notJson = await app.request('/console/api/session', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{',
    });
    expect(notJson.status).toBe(400);
    expect(JSON.stringify(lines)).not.toContain('not-the-secret');
  });

  it('answers 503 with Retry-After when the identity provider does not answer', async () => {
    const { app } = consoleApp({ signIn: { tokenUrl: 'http://127.0.0.1:9/oauth2/token', audience } });
    const response = await signInWith(app, {
      clientId: 'ops-reader',
      clientSecret: clients['ops-reader']?.secret,
    });
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBe('5');
  });

  it('without a token endpoint the form is refused (404) and a pasted token still works', async () => {
    const { app } = consoleApp({ signIn: null });
    const response = await signInWith(app, { clientId: 'ops-reader', clientSecret: 'x' });
    expect(response.status).toBe(404);
    expect((await problem(response)).detail).toContain('paste an access token');
  });

  it('with ADMIN_AUTH=none the console is open and says so', async () => {
    const { app } = consoleApp({ auth: false, signIn: null });
    const session = await app.request('/console/api/session');
    expect(await session.json()).toMatchObject({ authentication: 'none', operator: 'unauthenticated' });
    expect((await app.request('/console/api/overview')).status).toBe(200);
    expect((await signInWith(app, { clientId: 'a', clientSecret: 'b' })).status).toBe(409);
  });
});
