import { randomUUID, timingSafeEqual } from 'node:crypto';
import type { AppEnv } from '@rp/runtime';
import type { Hono } from 'hono';
import { type CryptoKey, exportJWK, generateKeyPair, type JWK, SignJWT } from 'jose';

export interface IdentityProviderOptions {
  /** The `iss` of its tokens; its routes are `{issuer}/token` and `{issuer}/jwks` on this server. */
  readonly issuer: string;
  /** The `aud` of its tokens unless a request asks for another (`audience`). */
  readonly audience: string;
  /** Client id to client secret: one client per bank (by default the bank's member id), and operators. */
  readonly clients: Readonly<Record<string, string>>;
  /**
   * Client id to the scopes it may be granted, space-separated (e.g. `operator.read operator.replay` for
   * an operator); a client not named here gets `payments` (a bank).
   */
  readonly scopes?: Readonly<Record<string, string>>;
  /** Lifetime of an access token. Default 300 s. */
  readonly tokenTtlSeconds?: number;
}

export interface TokenRequest {
  readonly clientId: string;
  readonly audience?: string;
  /** Space-separated scopes; default: all the client may be granted. */
  readonly scope?: string;
  /** Seconds from now until `exp`; negative gives an expired token (tests). */
  readonly expiresInSeconds?: number;
}

/**
 * The banks' identity provider, played by the simulator: OAuth2 client credentials (RFC 6749 4.4) issuing
 * JWT access tokens (RFC 9068) signed with an ES256 key made at start, its public half published as a JWKS.
 * The engine's ingress verifies bank tokens against that JWKS exactly as it would a real provider's.
 */
export class IdentityProvider {
  readonly #options: IdentityProviderOptions;
  readonly #kid = randomUUID();
  #keys: Promise<{ privateKey: CryptoKey; jwk: JWK }> | undefined;

  constructor(options: IdentityProviderOptions) {
    this.#options = options;
  }

  #keyPair(): Promise<{ privateKey: CryptoKey; jwk: JWK }> {
    this.#keys ??= (async () => {
      const { privateKey, publicKey } = await generateKeyPair('ES256');
      const jwk = { ...(await exportJWK(publicKey)), kid: this.#kid, alg: 'ES256', use: 'sig' };
      return { privateKey, jwk };
    })();
    return this.#keys;
  }

  async jwks(): Promise<{ keys: JWK[] }> {
    return { keys: [(await this.#keyPair()).jwk] };
  }

  /** An access token for a client (the simulator's own calls as a bank use it too). */
  async issue(request: TokenRequest): Promise<{ accessToken: string; expiresIn: number }> {
    const { privateKey } = await this.#keyPair();
    const expiresIn = request.expiresInSeconds ?? this.#options.tokenTtlSeconds ?? 300;
    const now = Math.floor(Date.now() / 1000);
    const scope = request.scope ?? this.allowedScope(request.clientId);
    const accessToken = await new SignJWT({ client_id: request.clientId, scope })
      .setProtectedHeader({ alg: 'ES256', kid: this.#kid, typ: 'at+jwt' })
      .setIssuer(this.#options.issuer)
      .setSubject(request.clientId)
      .setAudience(request.audience ?? this.#options.audience)
      .setIssuedAt(Math.min(now, now + expiresIn - 1))
      .setExpirationTime(now + expiresIn)
      .setJti(randomUUID())
      .sign(privateKey);
    return { accessToken, expiresIn };
  }

  /** The scopes a client may be granted. */
  allowedScope(clientId: string): string {
    return this.#options.scopes?.[clientId] ?? 'payments';
  }

  /**
   * What a token request's `scope` comes to for a client: all it may have when it asks for none, the
   * words it asks for when it may have each, else undefined (RFC 6749 5.2 invalid_scope).
   */
  grant(clientId: string, requested: string | null): string | undefined {
    const allowed = this.allowedScope(clientId).split(/\s+/);
    if (requested === null || requested.trim() === '') return allowed.join(' ');
    const asked = [...new Set(requested.trim().split(/\s+/))];
    return asked.every((word) => allowed.includes(word)) ? asked.join(' ') : undefined;
  }

  /** Whether the client's secret is right, compared in constant time. */
  authenticates(clientId: string, secret: string): boolean {
    const expected = this.#options.clients[clientId];
    if (expected === undefined) return false;
    const a = Buffer.from(expected);
    const b = Buffer.from(secret);
    return a.length === b.length && timingSafeEqual(a, b);
  }
}

/** Where the provider's routes live on the simulator, from its issuer URL. */
export function identityProviderPath(issuer: string): string {
  return new URL(issuer).pathname.replace(/\/+$/, '');
}

/**
 * `POST {path}/token` (grant_type=client_credentials; the client by HTTP Basic or client_id and
 * client_secret in the form; optional `scope` and `audience`) and `GET {path}/jwks`; `POST /sim/oauth2/tokens`
 * `{ clientId, audience?, scope?, expiresInSeconds? }` mints a token without the secret, for tests of refusals.
 */
export function registerIdentityProviderRoutes(
  app: Hono<AppEnv>,
  provider: IdentityProvider,
  path: string,
): void {
  app.get(`${path}/jwks`, async (c) =>
    c.json(await provider.jwks(), 200, { 'Cache-Control': 'max-age=300' }),
  );
  app.post(`${path}/token`, async (c) => {
    const oauthError = (status: 400 | 401, error: string, description: string) =>
      c.json({ error, error_description: description }, status, {
        'Cache-Control': 'no-store',
        ...(status === 401 ? { 'WWW-Authenticate': 'Basic realm="token"' } : {}),
      });
    const form = new URLSearchParams(await c.req.text());
    if (form.get('grant_type') !== 'client_credentials') {
      return oauthError(400, 'unsupported_grant_type', 'only client_credentials is supported');
    }
    let clientId = form.get('client_id') ?? '';
    let secret = form.get('client_secret') ?? '';
    const basic = /^Basic\s+(.+)$/i.exec(c.req.header('authorization') ?? '');
    if (basic?.[1]) {
      const decoded = Buffer.from(basic[1], 'base64').toString('utf8');
      const colon = decoded.indexOf(':');
      clientId = decodeURIComponent(decoded.slice(0, colon));
      secret = decodeURIComponent(decoded.slice(colon + 1));
    }
    if (!provider.authenticates(clientId, secret)) {
      return oauthError(401, 'invalid_client', 'unknown client or wrong secret');
    }
    const scope = provider.grant(clientId, form.get('scope'));
    if (scope === undefined) {
      return oauthError(400, 'invalid_scope', `client ${clientId} may not be granted ${form.get('scope')}`);
    }
    const audience = form.get('audience') ?? undefined;
    const token = await provider.issue({ clientId, scope, ...(audience ? { audience } : {}) });
    return c.json(
      {
        access_token: token.accessToken,
        token_type: 'Bearer',
        expires_in: token.expiresIn,
        scope,
      },
      200,
      { 'Cache-Control': 'no-store' },
    );
  });
  app.post('/sim/oauth2/tokens', async (c) => {
    const body = (await c.req.json().catch(() => ({}))) as Partial<TokenRequest>;
    if (typeof body.clientId !== 'string' || body.clientId.length === 0) {
      return c.json({ error: 'clientId is required' }, 400);
    }
    const token = await provider.issue({
      clientId: body.clientId,
      ...(typeof body.audience === 'string' ? { audience: body.audience } : {}),
      ...(typeof body.scope === 'string' ? { scope: body.scope } : {}),
      ...(typeof body.expiresInSeconds === 'number' ? { expiresInSeconds: body.expiresInSeconds } : {}),
    });
    return c.json({ access_token: token.accessToken, expires_in: token.expiresIn });
  });
}
