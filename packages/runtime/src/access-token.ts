import {
  createLocalJWKSet,
  createRemoteJWKSet,
  errors,
  type JSONWebKeySet,
  type JWTPayload,
  type JWTVerifyGetKey,
  jwtVerify,
} from 'jose';

/** Where an access token's issuer is, and what the token must say to be accepted here. */
export interface AccessTokenOptions {
  /** The identity provider's key set: its JWKS URL (fetched and cached) or the key set itself. */
  readonly jwks: URL | JSONWebKeySet;
  /** The `iss` every token must carry. */
  readonly issuer: string;
  /** The `aud` every token must carry: the API it is meant for. */
  readonly audience: string;
  /** Clock skew tolerated on `exp` and `nbf`, in seconds. Default 30. */
  readonly clockToleranceSeconds?: number;
  /**
   * How long a token that verified is taken as verified again without its signature being checked, in
   * milliseconds (never past its `exp`). Default 60 s; 0 checks every request. The key set itself is
   * cached for ten minutes, so a key withdrawn by the provider is not noticed sooner either way.
   */
  readonly verifiedCacheMs?: number;
  /** Tokens remembered as verified at most (the oldest goes first). Default 1,000. */
  readonly verifiedCacheSize?: number;
}

export type AccessTokenCheck =
  | { ok: true; payload: JWTPayload }
  /** 401: no bearer token, or one that does not verify (signature, issuer, audience, expiry). */
  | { ok: false; status: 401; error: 'missing' | 'invalid_token'; detail: string }
  /** 503: the identity provider's keys could not be fetched; the token may well be good. */
  | { ok: false; status: 503; error: 'unavailable'; detail: string };

/** Verifies the `Authorization` header's bearer token; never throws, never echoes the token. */
export type AccessTokenVerifier = (authorization: string | null | undefined) => Promise<AccessTokenCheck>;

const algorithms = ['ES256', 'ES384', 'RS256', 'PS256', 'EdDSA'];

/**
 * JWT access tokens (RFC 9068), as an OAuth2 authorisation server issues them to clients: the bearer token
 * is verified against the server's JWKS (signature, `iss`, `aud`, `exp`, `nbf`; `exp` required). `who`
 * names the kind of caller in the refusal (`a bank`, `an operator`).
 */
export function accessTokenVerifier(options: AccessTokenOptions, who: string): AccessTokenVerifier {
  const keys: JWTVerifyGetKey =
    options.jwks instanceof URL
      ? createRemoteJWKSet(options.jwks, {
          cacheMaxAge: 10 * 60_000,
          cooldownDuration: 30_000,
          timeoutDuration: 5_000,
        })
      : createLocalJWKSet(options.jwks);
  const tolerance = options.clockToleranceSeconds ?? 30;
  const cacheMs = Math.max(0, options.verifiedCacheMs ?? 60_000);
  const cacheSize = Math.max(1, options.verifiedCacheSize ?? 1_000);
  /**
   * Tokens that verified, until when they count as verified: a bank's client sends the same token with
   * every call until it renews it, and checking its signature (an ECDSA verification) was a twentieth of
   * the ingress's CPU. The same token string is the same signed claims; only time changes what they say.
   */
  const verified = new Map<string, { payload: JWTPayload; until: number }>();
  return async (authorization) => {
    const match =
      authorization === null || authorization === undefined
        ? null
        : /^Bearer\s+([A-Za-z0-9._~+/-]+=*)\s*$/i.exec(authorization);
    if (!match?.[1]) {
      return {
        ok: false,
        status: 401,
        error: 'missing',
        detail: `This route takes ${who}'s access token (Authorization: Bearer)`,
      };
    }
    const token = match[1];
    const known = verified.get(token);
    if (known !== undefined) {
      if (Date.now() < known.until) return { ok: true, payload: known.payload };
      verified.delete(token);
    }
    try {
      const { payload } = await jwtVerify(token, keys, {
        issuer: options.issuer,
        audience: options.audience,
        algorithms,
        clockTolerance: tolerance,
        requiredClaims: ['exp'],
      });
      Object.freeze(payload);
      if (cacheMs > 0) {
        // `exp` is required and verified: the token is taken as verified until it expires, at the latest.
        const until = Math.min(Date.now() + cacheMs, ((payload.exp as number) + tolerance) * 1000);
        if (verified.size >= cacheSize) verified.delete(verified.keys().next().value as string);
        verified.set(token, { payload, until });
      }
      return { ok: true, payload };
    } catch (error) {
      if (error instanceof errors.JWKSTimeout || !(error instanceof errors.JOSEError)) {
        return {
          ok: false,
          status: 503,
          error: 'unavailable',
          detail: "The identity provider's keys could not be fetched to verify the access token",
        };
      }
      return { ok: false, status: 401, error: 'invalid_token', detail: tokenRefusal(error) };
    }
  };
}

/** A string claim of the token, when it has one that is not empty. */
export function stringClaim(payload: JWTPayload, name: string): string | undefined {
  const value = payload[name];
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}

/** The OAuth2 client the token was issued to: `client_id`, else `azp`, else `sub`. */
export function tokenClient(payload: JWTPayload): string | undefined {
  return stringClaim(payload, 'client_id') ?? stringClaim(payload, 'azp') ?? stringClaim(payload, 'sub');
}

/** The `WWW-Authenticate` challenge for a refused bearer token (RFC 6750 3). */
export function bearerChallenge(check: {
  error: 'missing' | 'invalid_token' | 'insufficient_scope';
}): string {
  return check.error === 'missing' ? 'Bearer' : `Bearer error="${check.error}"`;
}

/** Why a token was refused, in words a caller's developer can act on (never the token itself). */
function tokenRefusal(error: unknown): string {
  if (error instanceof errors.JWTExpired) return 'The access token has expired';
  if (error instanceof errors.JWTClaimValidationFailed) {
    return `The access token's ${error.claim} claim is not accepted here (${error.reason})`;
  }
  if (error instanceof errors.JWKSNoMatchingKey)
    return 'The access token is signed with a key the identity provider does not publish';
  if (error instanceof errors.JWSSignatureVerificationFailed)
    return 'The access token signature does not verify';
  if (error instanceof errors.JOSEAlgNotAllowed)
    return 'The access token is signed with an algorithm not accepted here';
  if (error instanceof errors.JOSEError) return `The access token could not be verified (${error.code})`;
  return 'The access token could not be verified';
}
