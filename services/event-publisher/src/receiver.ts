// How a bank receives event postings: verify the signature, then keep each event once.
// Self-contained (Node's crypto and http only), so it can be copied into a bank's own code base.
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';

export interface ReceivedRequest {
  /** Header names in lower case, as Node gives them. */
  readonly headers: Readonly<Record<string, string | undefined>>;
  /** The raw body, exactly as received: parse it only after the signature is verified. */
  readonly body: string;
}

/** A secret `whsec_<base64>` is those bytes; any other secret is its UTF-8 bytes. */
function keyOf(secret: string): Buffer {
  return secret.startsWith('whsec_') ? Buffer.from(secret.slice(6), 'base64') : Buffer.from(secret, 'utf8');
}

/**
 * True when one `v1,<signature>` of the webhook-signature header is the HMAC-SHA256 of
 * `<webhook-id>.<webhook-timestamp>.<body>` under one of the bank's current secrets (two during a
 * rotation), and the timestamp is within `toleranceSeconds` of now (a replayed capture is refused).
 */
export function verifyPosting(
  request: ReceivedRequest,
  secrets: readonly string[],
  toleranceSeconds = 300,
  now = new Date(),
): boolean {
  const id = request.headers['webhook-id'];
  const timestamp = request.headers['webhook-timestamp'];
  const signature = request.headers['webhook-signature'];
  if (!id || !timestamp || !signature || !/^\d+$/.test(timestamp)) return false;
  if (Math.abs(now.getTime() / 1000 - Number(timestamp)) > toleranceSeconds) return false;
  const offered = signature
    .split(' ')
    .filter((entry) => entry.startsWith('v1,'))
    .map((entry) => Buffer.from(entry.slice(3), 'base64'));
  return secrets.some((secret) => {
    const expected = createHmac('sha256', keyOf(secret))
      .update(`${id}.${timestamp}.${request.body}`)
      .digest();
    return offered.some(
      (candidate) => candidate.length === expected.length && timingSafeEqual(candidate, expected),
    );
  });
}

/**
 * Event ids already taken. The engine sends every posting at least once, so the same webhook-id can
 * arrive again (a retry after a lost answer, a replay): answer 2xx and do nothing. A real bank keeps
 * the ids with the stored postings (a unique key), not in memory.
 */
export class SeenEvents {
  readonly #ids = new Set<string>();
  readonly #max: number;

  constructor(max = 100_000) {
    this.#max = max;
  }

  has(id: string): boolean {
    return this.#ids.has(id);
  }

  add(id: string): void {
    this.#ids.add(id);
    if (this.#ids.size > this.#max) this.#ids.delete(this.#ids.values().next().value as string);
  }
}

export interface Receipt {
  /** The answer to send: 202 taken (or already taken), 401 bad signature, 400 not JSON. */
  readonly status: 202 | 401 | 400;
  readonly duplicate: boolean;
}

/**
 * The whole `/events` endpoint: verify, parse, store once, answer 202. Answer quickly; slow work belongs
 * after the answer. A 4xx other than 408/425/429 tells the engine never to send this posting again, so
 * use one only for a request that can never be right; answer 5xx if storing failed, and it is retried.
 */
export function receivePosting(
  request: ReceivedRequest,
  secrets: readonly string[],
  seen: SeenEvents,
  store: (posting: unknown, eventId: string) => void,
): Receipt {
  if (!verifyPosting(request, secrets)) return { status: 401, duplicate: false };
  const eventId = request.headers['webhook-id'] as string;
  if (seen.has(eventId)) return { status: 202, duplicate: true };
  let posting: unknown;
  try {
    // Amounts are JSON numbers with exact digits: a bank that does arithmetic on them parses them as decimals.
    posting = JSON.parse(request.body);
  } catch {
    return { status: 400, duplicate: false };
  }
  store(posting, eventId); // throws if it could not store: answer 5xx and the posting comes again
  seen.add(eventId);
  return { status: 202, duplicate: false };
}

export interface EventsHandlerOptions {
  readonly secrets: readonly string[];
  readonly seen: SeenEvents;
  readonly store: (posting: unknown, eventId: string) => void;
  /** Told every answer (metrics, tests). */
  readonly onReceipt?: (receipt: Receipt) => void;
}

/**
 * `POST /events` on Node's own HTTP server, for example
 * `createServer(eventsHandler({ secrets: [secret], seen: new SeenEvents(), store })).listen(8443)`.
 * The body is kept as the raw text that was signed; a store that throws answers 500, so it comes again.
 */
export function eventsHandler(options: EventsHandlerOptions) {
  return (request: IncomingMessage, response: ServerResponse): void => {
    if (request.method !== 'POST' || request.url?.split('?')[0] !== '/events') {
      response.writeHead(404).end();
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= 1_048_576) chunks.push(chunk);
    });
    request.on('end', () => {
      if (size > 1_048_576) {
        response.writeHead(413).end();
        return;
      }
      const headers: Record<string, string | undefined> = {};
      for (const [name, value] of Object.entries(request.headers)) {
        headers[name] = Array.isArray(value) ? value[0] : value;
      }
      const body = Buffer.concat(chunks).toString('utf8');
      let receipt: Receipt;
      try {
        receipt = receivePosting({ headers, body }, options.secrets, options.seen, options.store);
      } catch {
        response.writeHead(500).end();
        return;
      }
      options.onReceipt?.(receipt);
      response.writeHead(receipt.status).end();
    });
  };
}
