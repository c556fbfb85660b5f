import type { Participant, Participants } from '@rp/pipeline';
import {
  createLocalJWKSet,
  createRemoteJWKSet,
  errors,
  type JSONWebKeySet,
  type JWTPayload,
  type JWTVerifyGetKey,
  jwtVerify,
} from 'jose';

/** How banks prove who they are on the bank-facing routes. */
export interface BankAuthOptions {
  /** The identity provider's key set: its JWKS URL (fetched and cached) or the key set itself. */
  readonly jwks: URL | JSONWebKeySet;
  /** The `iss` every token must carry. */
  readonly issuer: string;
  /** The `aud` every token must carry: this engine's API. */
  readonly audience: string;
  /** Clock skew tolerated on `exp` and `nbf`, in seconds. Default 30. */
  readonly clockToleranceSeconds?: number;
}

export type BankAuthentication =
  | { ok: true; participant: Participant }
  /** 401: no bearer token, or one that does not verify (signature, issuer, audience, expiry). */
  | { ok: false; status: 401; error: 'missing' | 'invalid_token'; detail: string }
  /** 403: a valid token of a client that is no participant of this engine. */
  | { ok: false; status: 403; error: 'insufficient_scope'; detail: string }
  /** 503: the identity provider's keys could not be fetched; the token may well be good. */
  | { ok: false; status: 503; error: 'unavailable'; detail: string };

/** Verifies a bank's access token and names the participant it belongs to. */
export type BankAuthenticator = (authorization: string | null) => Promise<BankAuthentication>;

const algorithms = ['ES256', 'ES384', 'RS256', 'PS256', 'EdDSA'];

/**
 * OAuth2 client credentials with JWT access tokens (RFC 9068): the token is verified against the identity
 * provider's JWKS (signature, `iss`, `aud`, `exp`, `nbf`), and its client (`client_id`, else `azp`, else
 * `sub`) must be a participant, matched on the participant's `clientId` or, without one, its member id.
 */
export function jwtBankAuthenticator(
  participants: Participants,
  options: BankAuthOptions,
): BankAuthenticator {
  const keys: JWTVerifyGetKey =
    options.jwks instanceof URL
      ? createRemoteJWKSet(options.jwks, {
          cacheMaxAge: 10 * 60_000,
          cooldownDuration: 30_000,
          timeoutDuration: 5_000,
        })
      : createLocalJWKSet(options.jwks);
  const byClient = new Map<string, Participant>();
  for (const participant of participants.values()) {
    byClient.set(participant.clientId ?? participant.memberId, participant);
  }
  return async (authorization) => {
    const match = authorization === null ? null : /^Bearer\s+([A-Za-z0-9._~+/-]+=*)\s*$/i.exec(authorization);
    if (!match?.[1]) {
      return {
        ok: false,
        status: 401,
        error: 'missing',
        detail: 'This route takes a bank access token (Authorization: Bearer)',
      };
    }
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(match[1], keys, {
        issuer: options.issuer,
        audience: options.audience,
        algorithms,
        clockTolerance: options.clockToleranceSeconds ?? 30,
        requiredClaims: ['exp'],
      }));
    } catch (error) {
      if (error instanceof errors.JWKSTimeout || !(error instanceof errors.JOSEError)) {
        return {
          ok: false,
          status: 503,
          error: 'unavailable',
          detail: "The identity provider's keys could not be fetched to verify the access token",
        };
      }
      return { ok: false, status: 401, error: 'invalid_token', detail: refusal(error) };
    }
    const client = claim(payload, 'client_id') ?? claim(payload, 'azp') ?? payload.sub;
    const participant = client === undefined ? undefined : byClient.get(client);
    if (!participant) {
      return {
        ok: false,
        status: 403,
        error: 'insufficient_scope',
        detail: `The token's client ${client ?? '(none)'} is not a participant of this engine`,
      };
    }
    return { ok: true, participant };
  };
}

function claim(payload: JWTPayload, name: string): string | undefined {
  const value = payload[name];
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}

/** Why a token was refused, in words a bank's developer can act on (never the token itself). */
function refusal(error: unknown): string {
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
