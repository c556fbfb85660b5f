import { createHash, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { AppError } from '@rp/runtime';

/**
 * A payment scheme or clearing house allowed to submit credit transfer authorisations and inbound off-us
 * direct debits. It has credentials of its own, separate from the banks': it speaks for the scheme, never
 * for a participant.
 */
export interface SchemeClient {
  /** How the engine names the scheme: in idempotency keys, logs and problem details. */
  readonly id: string;
  /** SHA-256 of the scheme's bearer token. Only the digest is configured, so the configuration leaks no token. */
  readonly tokenSha256: Buffer;
}

export type SchemeClients = readonly SchemeClient[];

/** The variable configuring the schemes (see `ingressConfigSpec`). */
export const schemeClientsVariable = 'SCHEME_CLIENTS';

/** Scheme ids end up in idempotency keys (`scheme:<id>:<messageIdentification>`): no colon, no spaces. */
const schemeIdPattern = /^[A-Za-z0-9._-]{1,64}$/;
const sha256Hex = /^[0-9a-fA-F]{64}$/;

/** The hex SHA-256 of a bearer token, as `SCHEME_CLIENTS` holds it. */
export function tokenSha256(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

function refuse(where: string, detail: string): never {
  throw new AppError('CONFIG_INVALID', `${where}: ${detail}`, {
    details: [{ pointer: `/${schemeClientsVariable}`, detail: `${where}: ${detail}` }],
  });
}

/**
 * Reads the schemes from JSON: `[{ "id": "...", "tokenSha256": "<64 hex digits>" }]`. Fails with an error
 * naming the variable, the entry and the member, so a broken setting stops the service at start-up.
 */
export function parseSchemeClients(json: string): SchemeClients {
  let raw: unknown;
  try {
    raw = JSON.parse(json);
  } catch {
    return refuse(schemeClientsVariable, 'not JSON');
  }
  if (!Array.isArray(raw)) {
    return refuse(schemeClientsVariable, 'expected a JSON array of { id, tokenSha256 }');
  }
  const ids = new Set<string>();
  const digests = new Set<string>();
  return raw.map((entry: unknown, index): SchemeClient => {
    const where = `${schemeClientsVariable}[${index}]`;
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
      return refuse(where, 'expected an object { id, tokenSha256 }');
    }
    const { id, tokenSha256: digest, ...unknown } = entry as Record<string, unknown>;
    const extra = Object.keys(unknown)[0];
    if (extra !== undefined) return refuse(`${where}.${extra}`, 'is not a member of a scheme client');
    if (typeof id !== 'string' || !schemeIdPattern.test(id)) {
      return refuse(`${where}.id`, 'expected 1 to 64 letters, digits, dots, dashes or underscores');
    }
    if (ids.has(id)) return refuse(`${where}.id`, `${id} is listed twice`);
    if (typeof digest !== 'string' || !sha256Hex.test(digest)) {
      return refuse(`${where}.tokenSha256`, 'expected the SHA-256 of the bearer token as 64 hex digits');
    }
    const normalised = digest.toLowerCase();
    // One token naming two schemes would make the sender ambiguous.
    if (digests.has(normalised)) return refuse(`${where}.tokenSha256`, "is another scheme's token");
    ids.add(id);
    digests.add(normalised);
    return { id, tokenSha256: Buffer.from(normalised, 'hex') };
  });
}

/**
 * `SCHEME_CLIENTS` as configured: the JSON array itself or the path of a JSON file.
 * Unset: no scheme, and the scheme-facing route refuses every request.
 */
export function loadSchemeClients(value: string | undefined): SchemeClients {
  if (value === undefined) return [];
  // JSON text (an object included, refused with a clear message) rather than the name of a file.
  if (/^\s*[[{]/.test(value)) return parseSchemeClients(value);
  let text: string;
  try {
    text = readFileSync(value, 'utf8');
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    return refuse(
      schemeClientsVariable,
      `cannot read the file ${JSON.stringify(value)} (${typeof code === 'string' ? code : 'error'})`,
    );
  }
  return parseSchemeClients(text);
}

export type SchemeAuthentication =
  | { ok: true; scheme: SchemeClient }
  /**
   * `missing`: no bearer credentials (no Authorization header, or another authentication scheme);
   * `invalid`: a bearer token that is malformed or names no configured scheme.
   */
  | { ok: false; reason: 'missing' | 'invalid' };

/** RFC 6750 credentials: `Bearer` (any case), then the token (b64token syntax). */
const bearerCredentials = /^Bearer(?: +([A-Za-z0-9\-._~+/]+=*))? *$/i;

/**
 * The scheme whose bearer token the `Authorization` header carries. The token's digest is compared with
 * every configured digest in constant time, and with all of them, so the answer's timing tells a caller
 * nothing about how close a guess came or which entry matched.
 */
export function authenticateScheme(
  schemes: SchemeClients,
  authorization: string | null,
): SchemeAuthentication {
  const credentials = authorization?.trim() ?? '';
  if (!/^Bearer(?: |$)/i.test(credentials)) return { ok: false, reason: 'missing' };
  const token = bearerCredentials.exec(credentials)?.[1];
  if (token === undefined) return { ok: false, reason: 'invalid' };
  const presented = createHash('sha256').update(token, 'utf8').digest();
  let found: SchemeClient | undefined;
  for (const scheme of schemes) {
    if (timingSafeEqual(presented, scheme.tokenSha256) && found === undefined) found = scheme;
  }
  return found === undefined ? { ok: false, reason: 'invalid' } : { ok: true, scheme: found };
}
