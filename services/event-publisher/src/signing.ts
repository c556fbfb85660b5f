import { createHash, createHmac, createSecretKey, type KeyObject, randomBytes } from 'node:crypto';
import { inspect } from 'node:util';
import { deliveryHeaders } from '@rp/contracts';

/** Shortest signing key accepted, in bytes (Standard Webhooks keys are 24 to 64 bytes). */
export const minimumKeyBytes = 16;

/**
 * A secret as written in configuration: `whsec_<base64>` (the Standard Webhooks form) is the decoded
 * bytes; any other text is its UTF-8 bytes. The bank simulator and the receiver example read it alike.
 */
export function signingKey(secret: string): Buffer {
  return secret.startsWith('whsec_')
    ? Buffer.from(secret.slice('whsec_'.length), 'base64')
    : Buffer.from(secret, 'utf8');
}

/**
 * The keys one bank's postings are signed with: every active secret, so that a bank rotating its secret
 * accepts postings under the old one and the new one alike. Prints and serialises as `[redacted]`.
 */
export class BankSigner {
  /** Prepared once: an HMAC keyed by a KeyObject costs a sixth of one keyed by the raw bytes (measured). */
  readonly #keys: readonly KeyObject[];

  constructor(secrets: readonly string[]) {
    this.#keys = secrets.map((secret) => createSecretKey(signingKey(secret)));
  }

  get keyCount(): number {
    return this.#keys.length;
  }

  /** `v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">` per key, separated by spaces. */
  sign(id: string, timestamp: number, body: string): string {
    const content = `${id}.${timestamp}.${body}`;
    return this.#keys
      .map((key) => `v1,${createHmac('sha256', key).update(content, 'utf8').digest('base64')}`)
      .join(' ');
  }

  toJSON(): string {
    return '[redacted]';
  }

  toString(): string {
    return '[redacted]';
  }

  [inspect.custom](): string {
    return `BankSigner(${this.#keys.length} keys)`;
  }
}

export type SigningSecrets = ReadonlyMap<string, BankSigner>;

/**
 * Reads SIGNING_SECRETS: a JSON object from member id (or `*`, for every bank without an entry of its
 * own) to its active secrets (a list, or one secret). Errors name the member id, never a secret.
 */
export function parseSigningSecrets(json: string): SigningSecrets {
  let raw: unknown;
  try {
    raw = JSON.parse(json);
  } catch {
    throw new Error('SIGNING_SECRETS: not JSON');
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new Error('SIGNING_SECRETS: expected an object from member id to a list of secrets');
  }
  const signers = new Map<string, BankSigner>();
  for (const [memberId, value] of Object.entries(raw)) {
    const secrets: unknown[] = Array.isArray(value) ? value : [value];
    const valid =
      secrets.length > 0 &&
      secrets.every((secret) => typeof secret === 'string' && signingKey(secret).length >= minimumKeyBytes);
    if (!valid) {
      throw new Error(
        `SIGNING_SECRETS.${memberId}: expected a list of secrets of at least ${minimumKeyBytes} bytes each`,
      );
    }
    signers.set(memberId, new BankSigner(secrets as string[]));
  }
  return signers;
}

/** The signer of a bank: its own entry, else the `*` entry. */
export function signerFor(secrets: SigningSecrets, memberId: string): BankSigner | undefined {
  return secrets.get(memberId) ?? secrets.get('*');
}

const traceparentPattern = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/**
 * A W3C traceparent for one attempt: the trace of the Kafka record when it carries one, else a trace
 * derived from the UETR, so every call about one transaction lands in one trace; a new span per attempt.
 */
export function traceparentFor(uetr: string, incoming: string | undefined): string {
  const match = incoming === undefined ? null : traceparentPattern.exec(incoming);
  const traceId = match?.[1] ?? createHash('sha256').update(uetr).digest('hex').slice(0, 32);
  return `00-${traceId}-${randomBytes(8).toString('hex')}-${match?.[3] ?? '01'}`;
}

/** The headers of one attempt. webhook-id is the event id, the same on every attempt and every replay. */
export function postingHeaders(options: {
  eventId: string;
  body: string;
  at: Date;
  signer: BankSigner;
  traceparent: string;
  tracestate?: string;
  userAgent: string;
}): Record<string, string> {
  const timestamp = Math.floor(options.at.getTime() / 1000);
  return {
    'content-type': 'application/json',
    'user-agent': options.userAgent,
    [deliveryHeaders.id]: options.eventId,
    [deliveryHeaders.timestamp]: String(timestamp),
    [deliveryHeaders.signature]: options.signer.sign(options.eventId, timestamp, options.body),
    [deliveryHeaders.traceparent]: options.traceparent,
    ...(options.tracestate ? { [deliveryHeaders.tracestate]: options.tracestate } : {}),
  };
}
