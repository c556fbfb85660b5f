import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { accessTokenVerifier } from './access-token.ts';

const issuer = 'https://idp.test/oauth2';
const audience = 'regulated-payments';

let jwks: { keys: object[] };
let sign: (expiresIn: number) => Promise<string>;

beforeAll(async () => {
  const { privateKey, publicKey } = await generateKeyPair('ES256');
  jwks = { keys: [{ ...(await exportJWK(publicKey)), kid: 'k1', alg: 'ES256', use: 'sig' }] };
  sign = (expiresIn) => {
    const now = Math.floor(Date.now() / 1000);
    return new SignJWT({ client_id: '250655' })
      .setProtectedHeader({ alg: 'ES256', kid: 'k1', typ: 'at+jwt' })
      .setIssuer(issuer)
      .setAudience(audience)
      .setIssuedAt(now)
      .setExpirationTime(now + expiresIn)
      .sign(privateKey);
  };
});

afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

describe('access tokens verified once', () => {
  it('checks a token signature once, then takes it as verified until the cache time is up', async () => {
    const verify = vi.spyOn(globalThis.crypto.subtle, 'verify');
    const check = accessTokenVerifier(
      { jwks: jwks as never, issuer, audience, verifiedCacheMs: 60_000, clockToleranceSeconds: 0 },
      'a bank',
    );
    const token = await sign(600);
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
    const first = await check(`Bearer ${token}`);
    expect(first.ok && first.payload.client_id).toBe('250655');
    expect(await check(`Bearer ${token}`)).toMatchObject({ ok: true });
    expect(verify).toHaveBeenCalledTimes(1);
    vi.setSystemTime(Date.now() + 61_000);
    expect(await check(`Bearer ${token}`)).toMatchObject({ ok: true });
    expect(verify).toHaveBeenCalledTimes(2);
  });

  it('refuses a remembered token once it has expired, as expired', async () => {
    const check = accessTokenVerifier(
      { jwks: jwks as never, issuer, audience, clockToleranceSeconds: 5 },
      'a bank',
    );
    const token = await sign(10);
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
    expect(await check(`Bearer ${token}`)).toMatchObject({ ok: true });
    vi.setSystemTime(Date.now() + 12_000);
    expect(await check(`Bearer ${token}`)).toMatchObject({ ok: true });
    vi.setSystemTime(Date.now() + 5_000);
    expect(await check(`Bearer ${token}`)).toEqual({
      ok: false,
      status: 401,
      error: 'invalid_token',
      detail: 'The access token has expired',
    });
  });

  it('remembers only tokens that verified, and at most the configured number', async () => {
    const verify = vi.spyOn(globalThis.crypto.subtle, 'verify');
    const check = accessTokenVerifier({ jwks: jwks as never, issuer, audience }, 'a bank');
    const token = await sign(600);
    const forged = `${token.slice(0, token.lastIndexOf('.'))}.${'A'.repeat(86)}`;
    for (let attempt = 0; attempt < 2; attempt += 1) {
      expect(await check(`Bearer ${forged}`)).toMatchObject({ ok: false, status: 401 });
      expect(await check(`Bearer ${token}`)).toMatchObject({ ok: true });
    }
    // The forged token checked twice, the good one once.
    expect(verify).toHaveBeenCalledTimes(3);

    verify.mockClear();
    const one = accessTokenVerifier(
      { jwks: jwks as never, issuer, audience, verifiedCacheSize: 1 },
      'a bank',
    );
    const other = await sign(601);
    for (const next of [token, other, token]) expect(await one(`Bearer ${next}`)).toMatchObject({ ok: true });
    // One remembered at most: the first was dropped for the second and checked again.
    expect(verify).toHaveBeenCalledTimes(3);
  });

  it('checks every request when the cache is off', async () => {
    const verify = vi.spyOn(globalThis.crypto.subtle, 'verify');
    const check = accessTokenVerifier(
      { jwks: jwks as never, issuer, audience, verifiedCacheMs: 0 },
      'a bank',
    );
    const token = await sign(600);
    await check(`Bearer ${token}`);
    await check(`Bearer ${token}`);
    expect(verify).toHaveBeenCalledTimes(2);
  });
});
