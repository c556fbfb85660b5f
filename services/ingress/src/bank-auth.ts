import type { Participant, Participants } from '@rp/pipeline';
import { type AccessTokenOptions, accessTokenVerifier, tokenClient } from '@rp/runtime';

/** How banks prove who they are on the bank-facing routes: their access tokens' issuer and audience. */
export type BankAuthOptions = AccessTokenOptions;

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

/**
 * OAuth2 client credentials with JWT access tokens (RFC 9068): the token is verified against the identity
 * provider's JWKS (signature, `iss`, `aud`, `exp`, `nbf`), and its client (`client_id`, else `azp`, else
 * `sub`) must be a participant, matched on the participant's `clientId` or, without one, its member id.
 */
export function jwtBankAuthenticator(
  participants: Participants,
  options: BankAuthOptions,
): BankAuthenticator {
  const verify = accessTokenVerifier(options, 'a bank');
  const byClient = new Map<string, Participant>();
  for (const participant of participants.values()) {
    byClient.set(participant.clientId ?? participant.memberId, participant);
  }
  return async (authorization) => {
    const check = await verify(authorization);
    if (!check.ok) return check;
    const client = tokenClient(check.payload);
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
