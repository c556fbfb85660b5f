import type { AppEnv } from '@rp/runtime';
import { Hono } from 'hono';
import { createLocalJWKSet, decodeJwt, jwtVerify } from 'jose';
import { describe, expect, it } from 'vitest';
import { IdentityProvider, registerIdentityProviderRoutes } from './identity-provider.ts';

const issuer = 'http://127.0.0.1:1/oauth2';

function provider() {
  const idp = new IdentityProvider({
    issuer,
    audience: 'regulated-payments',
    clients: { '250655': 'bank-secret', 'ops-admin': 'ops-secret' },
    scopes: { 'ops-admin': 'operator.read operator.replay' },
  });
  const app = new Hono<AppEnv>();
  registerIdentityProviderRoutes(app, idp, '/oauth2');
  const token = (client: string, secret: string, extra: Record<string, string> = {}) =>
    app.request('/oauth2/token', {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`${client}:${secret}`).toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({ grant_type: 'client_credentials', ...extra }).toString(),
    });
  return { app, token };
}

describe('the simulated identity provider: scopes', () => {
  it('grants a bank payments, and an operator client its roles (all, or the ones it asks for)', async () => {
    const { app, token } = provider();
    const bank = (await (await token('250655', 'bank-secret')).json()) as {
      access_token: string;
      scope: string;
    };
    expect(bank.scope).toBe('payments');
    expect(decodeJwt(bank.access_token).scope).toBe('payments');

    const all = (await (
      await token('ops-admin', 'ops-secret', { audience: 'regulated-payments-admin' })
    ).json()) as {
      access_token: string;
      scope: string;
    };
    expect(all.scope).toBe('operator.read operator.replay');
    const keys = createLocalJWKSet((await (await app.request('/oauth2/jwks')).json()) as never);
    const { payload } = await jwtVerify(all.access_token, keys, {
      issuer,
      audience: 'regulated-payments-admin',
    });
    expect(payload).toMatchObject({ sub: 'ops-admin', scope: 'operator.read operator.replay' });

    const narrowed = (await (await token('ops-admin', 'ops-secret', { scope: 'operator.read' })).json()) as {
      scope: string;
    };
    expect(narrowed.scope).toBe('operator.read');
  });

  it('refuses a scope the client may not have with invalid_scope, and issues nothing', async () => {
    const { token } = provider();
    const response = await token('250655', 'bank-secret', { scope: 'payments operator.replay' });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      error: 'invalid_scope',
      error_description: 'client 250655 may not be granted payments operator.replay',
    });
  });
});
