import { AppError } from './errors.ts';

/** An OAuth2 client of the identity provider, and what it asks for. */
export interface ClientCredentials {
  /** The provider's token endpoint. */
  readonly tokenUrl: string;
  readonly clientId: string;
  readonly clientSecret: string;
  /** Space-separated scopes to ask for (e.g. `operator.read`); unset: the client's default. */
  readonly scope?: string;
  /** The API the token is for, when the provider issues tokens for several. */
  readonly audience?: string;
  /** Longest wait for the token endpoint. Default 10 s. */
  readonly timeoutMs?: number;
}

/** An access token the token endpoint issued. */
export interface IssuedToken {
  readonly accessToken: string;
  /** Seconds it is valid for, as the endpoint says (60 when it does not). */
  readonly expiresIn: number;
  /** The scopes granted, when the endpoint says. */
  readonly scope?: string;
}

/**
 * One OAuth2 client credentials grant (RFC 6749 4.4; the client by HTTP Basic). The secret is sent only
 * to the token endpoint and never appears in an error. Throws `DOWNSTREAM_TIMEOUT` when the endpoint does
 * not answer, and `DOWNSTREAM_REJECTED` when it refuses: with the endpoint's own status when that is 400
 * or 401 (the client or its request is at fault: RFC 6749 5.2), else 502.
 */
export async function requestClientCredentialsToken(client: ClientCredentials): Promise<IssuedToken> {
  const basic = Buffer.from(
    `${encodeURIComponent(client.clientId)}:${encodeURIComponent(client.clientSecret)}`,
  ).toString('base64');
  const form = new URLSearchParams({ grant_type: 'client_credentials' });
  if (client.scope) form.set('scope', client.scope);
  if (client.audience) form.set('audience', client.audience);
  let response: Response;
  try {
    response = await fetch(client.tokenUrl, {
      method: 'POST',
      headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: form.toString(),
      signal: AbortSignal.timeout(client.timeoutMs ?? 10_000),
    });
  } catch (error) {
    throw new AppError('DOWNSTREAM_TIMEOUT', `the token endpoint ${client.tokenUrl} did not answer`, {
      cause: error,
    });
  }
  const text = await response.text();
  if (!response.ok) {
    throw new AppError(
      'DOWNSTREAM_REJECTED',
      `the token endpoint refused client ${client.clientId}: HTTP ${response.status}${oauthErrorOf(text)}`,
      { status: response.status === 400 || response.status === 401 ? response.status : 502 },
    );
  }
  let token: { access_token?: unknown; expires_in?: unknown; scope?: unknown };
  try {
    token = JSON.parse(text) as typeof token;
  } catch {
    throw new AppError('DOWNSTREAM_REJECTED', 'the token endpoint answered something that is not JSON');
  }
  if (typeof token.access_token !== 'string' || token.access_token.length === 0) {
    throw new AppError('DOWNSTREAM_REJECTED', 'the token endpoint answered without an access_token');
  }
  return {
    accessToken: token.access_token,
    expiresIn: typeof token.expires_in === 'number' && token.expires_in > 0 ? token.expires_in : 60,
    ...(typeof token.scope === 'string' ? { scope: token.scope } : {}),
  };
}

/** `: invalid_client (unknown client)` from an RFC 6749 5.2 error body; nothing from anything else. */
function oauthErrorOf(body: string): string {
  try {
    const answer = JSON.parse(body) as { error?: unknown; error_description?: unknown };
    if (typeof answer.error !== 'string') return '';
    const description =
      typeof answer.error_description === 'string' ? ` (${answer.error_description.slice(0, 200)})` : '';
    return `: ${answer.error.slice(0, 100)}${description}`;
  } catch {
    return '';
  }
}

/**
 * `Authorization` header values from the OAuth2 client credentials grant: one token is kept for half its
 * lifetime (see `renewAfterSeconds`), and callers at the same time share one request.
 */
export function clientCredentialsTokens(client: ClientCredentials): () => Promise<string> {
  let held: { header: string; renewAt: number } | undefined;
  let pending: Promise<string> | undefined;
  const fetchToken = async (): Promise<string> => {
    const token = await requestClientCredentialsToken(client);
    const header = `Bearer ${token.accessToken}`;
    held = { header, renewAt: Date.now() + renewAfterSeconds(token.expiresIn) * 1000 };
    return header;
  };
  return async () => {
    if (held && held.renewAt > Date.now()) return held.header;
    pending ??= fetchToken().finally(() => {
      pending = undefined;
    });
    return pending;
  };
}

/**
 * When to take a new token: at half its lifetime, at most a minute before it expires. A token used near
 * its end is refused as expired when a loaded caller or server takes long to send or check it; half a
 * lifetime of slack covers that.
 */
export function renewAfterSeconds(expiresInSeconds: number): number {
  return Math.max(0, Math.min(expiresInSeconds / 2, expiresInSeconds - 60));
}
