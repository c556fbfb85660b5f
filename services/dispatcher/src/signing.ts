import { createHmac, createSecretKey, type KeyObject, randomBytes } from 'node:crypto';
import { deliveryHeaders } from '@rp/contracts';

/**
 * Signing keys of one bank, newest first. Several keys sign during a rotation: the bank accepts the
 * message when any signature verifies. A key written `whsec_<base64>` (Standard Webhooks) is those bytes;
 * any other text is used as its UTF-8 bytes. Prepared as KeyObjects once: an HMAC keyed by a KeyObject
 * costs a sixth of one keyed by the raw bytes (measured).
 */
export type SigningKeys = readonly KeyObject[];

export function signingKey(secret: string): Buffer {
  return secret.startsWith('whsec_')
    ? Buffer.from(secret.slice('whsec_'.length), 'base64')
    : Buffer.from(secret, 'utf8');
}

/**
 * Reads BANK_SIGNING_SECRETS: a JSON object from member id (or `*` for every other bank) to a secret or
 * a list of secrets, newest first. Fails with a message that names the member id, never the secret.
 */
export function parseSigningSecrets(json: string): ReadonlyMap<string, SigningKeys> {
  let raw: unknown;
  try {
    raw = JSON.parse(json);
  } catch {
    throw new Error('BANK_SIGNING_SECRETS: not JSON');
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new Error('BANK_SIGNING_SECRETS: expected an object of member id to secret(s)');
  }
  const keys = new Map<string, SigningKeys>();
  for (const [memberId, value] of Object.entries(raw)) {
    const secrets = Array.isArray(value) ? value : [value];
    if (
      secrets.length === 0 ||
      !secrets.every((secret) => typeof secret === 'string' && secret.length >= 16)
    ) {
      throw new Error(
        `BANK_SIGNING_SECRETS.${memberId}: expected a secret (16 characters or more) or a list of them`,
      );
    }
    keys.set(
      memberId,
      (secrets as string[]).map((secret) => createSecretKey(signingKey(secret))),
    );
  }
  return keys;
}

/** The keys a bank's messages are signed with: its own, else the `*` entry, else none. */
export function keysFor(secrets: ReadonlyMap<string, SigningKeys>, memberId: string): SigningKeys {
  return secrets.get(memberId) ?? secrets.get('*') ?? [];
}

/** `v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">` per key, space-separated (Standard Webhooks). */
export function signature(keys: SigningKeys, id: string, timestamp: number, body: string): string {
  return keys
    .map((key) => `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`)
    .join(' ');
}

const traceparentPattern = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/**
 * A W3C traceparent for one call: the trace of the record when it carries one, else a trace named after
 * the UETR (its 32 hex digits), so every call about one transaction lands in one trace; a new span each call.
 */
export function traceparentFor(uetr: string, incoming: string | undefined): string {
  const match = incoming === undefined ? null : traceparentPattern.exec(incoming);
  const fromUetr = uetr.replaceAll('-', '').toLowerCase();
  const traceId =
    match?.[1] ??
    (/^[0-9a-f]{32}$/.test(fromUetr) && !/^0+$/.test(fromUetr) ? fromUetr : randomBytes(16).toString('hex'));
  return `00-${traceId}-${randomBytes(8).toString('hex')}-${match?.[3] ?? '01'}`;
}

/** The headers of one attempt. webhook-id is the messageIdentification: the same on every resend. */
export function requestHeaders(options: {
  messageIdentification: string;
  body: string;
  at: Date;
  keys: SigningKeys;
  uetr: string;
  traceparent?: string;
  tracestate?: string;
  userAgent: string;
}): Record<string, string> {
  const timestamp = Math.floor(options.at.getTime() / 1000);
  return {
    'content-type': 'application/json',
    'user-agent': options.userAgent,
    [deliveryHeaders.id]: options.messageIdentification,
    [deliveryHeaders.timestamp]: String(timestamp),
    ...(options.keys.length > 0
      ? {
          [deliveryHeaders.signature]: signature(
            options.keys,
            options.messageIdentification,
            timestamp,
            options.body,
          ),
        }
      : {}),
    [deliveryHeaders.traceparent]: traceparentFor(options.uetr, options.traceparent),
    ...(options.tracestate ? { [deliveryHeaders.tracestate]: options.tracestate } : {}),
  };
}
