import { exportJWK, generateKeyPair, type JWTPayload, SignJWT } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from './config.ts';
import { createHealth } from './health.ts';
import { createHttpApp } from './http.ts';
import { memoryLogger } from './memory-logger.ts';
import { createMetrics } from './metrics.ts';
import {
  adminAuthConfig,
  jwtOperatorAuthenticator,
  type OperatorAuthenticator,
  operatorAuthenticatorFrom,
  operatorGuard,
  operatorOf,
  rolesOf,
} from './operator-auth.ts';

const issuer = 'https://idp.test/oauth2';
const audience = 'regulated-payments-admin';

type Signer = (claims: JWTPayload, options?: { audience?: string; expiresIn?: number }) => Promise<string>;

async function identityProvider(kid: string): Promise<{ jwks: { keys: object[] }; sign: Signer }> {
  const { privateKey, publicKey } = await generateKeyPair('ES256');
  const jwk = { ...(await exportJWK(publicKey)), kid, alg: 'ES256', use: 'sig' };
  const sign: Signer = (claims, options = {}) => {
    const now = Math.floor(Date.now() / 1000);
    const expiresIn = options.expiresIn ?? 300;
    return new SignJWT(claims)
      .setProtectedHeader({ alg: 'ES256', kid, typ: 'at+jwt' })
      .setIssuer(issuer)
      .setAudience(options.audience ?? audience)
      .setIssuedAt(Math.min(now, now + expiresIn - 1))
      .setExpirationTime(now + expiresIn)
      .sign(privateKey);
  };
  return { jwks: { keys: [jwk] }, sign };
}

function adminApp(authenticate: OperatorAuthenticator | undefined) {
  const { logger } = memoryLogger();
  const app = createHttpApp({
    health: createHealth(),
    metrics: createMetrics({ service: 'test', defaultMetrics: false }),
    logger,
  });
  app.use('/admin/*', operatorGuard(authenticate));
  app.get('/admin/things', (c) => c.json({ reader: operatorOf(c).id }));
  app.post('/admin/things/replay', (c) => c.json({ actor: operatorOf(c).id }));
  return app;
}

describe('operator authentication on /admin', () => {
  let trusted: Awaited<ReturnType<typeof identityProvider>>;
  let stranger: Awaited<ReturnType<typeof identityProvider>>;
  let app: ReturnType<typeof adminApp>;
  const bearer = (token: string) => ({ headers: { authorization: `Bearer ${token}` } });

  beforeAll(async () => {
    trusted = await identityProvider('k1');
    stranger = await identityProvider('k2');
    app = adminApp(jwtOperatorAuthenticator({ jwks: trusted.jwks as never, issuer, audience }));
  });

  it('a reader reads, and is refused an action with 403 naming the role it lacks', async () => {
    const token = await trusted.sign({ sub: 'alice', scope: 'operator.read' });
    const read = await app.request('/admin/things', bearer(token));
    expect(read.status).toBe(200);
    expect(await read.json()).toEqual({ reader: 'alice' });

    const act = await app.request('/admin/things/replay', { method: 'POST', ...bearer(token) });
    expect(act.status).toBe(403);
    expect(act.headers.get('content-type')).toBe('application/problem+json');
    expect(act.headers.get('www-authenticate')).toBe(
      'Bearer error="insufficient_scope", scope="operator.replay"',
    );
    expect(((await act.json()) as { detail: string }).detail).toContain('operator.replay');
  });

  it('an operator who may replay acts, under the name of the token (the audit actor), and reads too', async () => {
    const token = await trusted.sign({ sub: 'bob', roles: ['operator.replay'] });
    const act = await app.request('/admin/things/replay', { method: 'POST', ...bearer(token) });
    expect(act.status).toBe(200);
    expect(await act.json()).toEqual({ actor: 'bob' });
    expect((await app.request('/admin/things', bearer(token))).status).toBe(200);
  });

  it.each([
    ['no token', async () => ({}), 'Bearer', 'access token'],
    [
      'a malformed header',
      async () => ({ headers: { authorization: 'Basic abc' } }),
      'Bearer',
      'access token',
    ],
    [
      'an expired token',
      async () => bearer(await trusted.sign({ sub: 'carol', scope: 'operator.replay' }, { expiresIn: -120 })),
      'Bearer error="invalid_token"',
      'expired',
    ],
    [
      'a token for another audience (a bank token)',
      async () =>
        bearer(
          await trusted.sign({ sub: 'bank-a', scope: 'operator.replay' }, { audience: 'regulated-payments' }),
        ),
      'Bearer error="invalid_token"',
      'aud',
    ],
    [
      'a token signed by a key the provider does not publish',
      async () => bearer(await stranger.sign({ sub: 'mallory', scope: 'operator.replay' })),
      'Bearer error="invalid_token"',
      'does not publish',
    ],
  ])('%s: 401 problem+json with a challenge, the route never runs', async (_case, init, challenge, words) => {
    for (const [path, method] of [
      ['/admin/things', 'GET'],
      ['/admin/things/replay', 'POST'],
    ] as const) {
      const response = await app.request(path, { method, ...(await init()) });
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toBe(challenge);
      const problem = (await response.json()) as { detail: string; status: number };
      expect(problem.status).toBe(401);
      expect(problem.detail).toContain(words);
    }
  });

  it('a valid token with no operator role reads nothing', async () => {
    const token = await trusted.sign({ sub: 'bank-a', scope: 'payments' });
    const response = await app.request('/admin/things', bearer(token));
    expect(response.status).toBe(403);
    expect(((await response.json()) as { detail: string }).detail).toContain('no operator role');
  });

  it('ADMIN_AUTH=none lets everyone in as "unauthenticated"', async () => {
    const open = adminApp(undefined);
    const response = await open.request('/admin/things/replay', { method: 'POST' });
    expect(await response.json()).toEqual({ actor: 'unauthenticated' });
  });
});

describe('roles and configuration', () => {
  it('reads roles from a roles array or from scope words; replay includes read; others are ignored', () => {
    expect([...rolesOf({ scope: 'payments operator.read' })]).toEqual(['operator.read']);
    expect(rolesOf({ roles: ['operator.replay', 'admin'] })).toEqual(
      new Set(['operator.replay', 'operator.read']),
    );
    expect(rolesOf({ roles: 'operator.replay' as never, scope: '' }).size).toBe(0);
    expect(rolesOf({}).size).toBe(0);
  });

  it('refuses ADMIN_AUTH=oauth2 without its JWKS URL and issuer, naming both', () => {
    const config = loadConfig(adminAuthConfig, {});
    expect(() => operatorAuthenticatorFrom(config)).toThrowError(
      /ADMIN_AUTH_JWKS_URL and ADMIN_AUTH_ISSUER required with ADMIN_AUTH=oauth2/,
    );
    expect(operatorAuthenticatorFrom(loadConfig(adminAuthConfig, { ADMIN_AUTH: 'none' }))).toBeUndefined();
    expect(
      operatorAuthenticatorFrom(
        loadConfig(adminAuthConfig, { ADMIN_AUTH_JWKS_URL: `${issuer}/jwks`, ADMIN_AUTH_ISSUER: issuer }),
      ),
    ).toBeTypeOf('function');
  });
});
