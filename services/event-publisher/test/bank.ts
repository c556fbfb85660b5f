import { type HttpServer, startHttpServer } from '@rp/runtime';
import { Hono } from 'hono';
import { verifyPosting } from '../src/receiver.ts';

/** One request a test bank received, as it arrived. */
export interface ReceivedPosting {
  readonly id: string;
  readonly timestamp: string;
  readonly signature: string;
  readonly traceparent: string | undefined;
  readonly body: string;
  readonly posting: Record<string, unknown>;
  /** The signature verified with the bank's secrets. */
  readonly verified: boolean;
  /** What the bank answered. */
  readonly status: number;
  /** When it arrived (epoch milliseconds). */
  readonly at: number;
}

/** How the bank answers: normally (202), with a status, or not at all (the request hangs). */
export type BankBehaviour =
  | { readonly kind: 'ok' }
  | { readonly kind: 'status'; readonly status: number; readonly retryAfter?: string }
  | { readonly kind: 'hang' };

/**
 * A bank's /events endpoint for tests: a small Hono app on a real local HTTP server. It verifies each
 * signature with its own secrets (401 when none matches), records every request in arrival order, and
 * answers as told. Tests wait on arrivals, never on timers.
 */
export class TestBank {
  readonly received: ReceivedPosting[] = [];
  behaviour: BankBehaviour = { kind: 'ok' };
  /** Answers the next n requests with this status (and Retry-After), then behaves as `behaviour`. */
  failNext: { count: number; status: number; retryAfter?: string } | undefined;
  /** Answers every posting of these transactions (UETR) with this status, whatever else it does. */
  readonly refuse = new Map<string, number>();
  readonly #secrets: string[];
  readonly #waiters = new Set<() => void>();
  readonly #hanging = new Set<() => void>();
  #server: HttpServer | undefined;

  constructor(secrets: readonly string[]) {
    this.#secrets = [...secrets];
  }

  get url(): string {
    if (!this.#server) throw new Error('the test bank is not started');
    return this.#server.url;
  }

  async start(): Promise<this> {
    const app = new Hono();
    app.post('/events', async (c) => {
      const body = await c.req.text();
      const headers = {
        'webhook-id': c.req.header('webhook-id'),
        'webhook-timestamp': c.req.header('webhook-timestamp'),
        'webhook-signature': c.req.header('webhook-signature'),
      };
      const verified = verifyPosting({ headers, body }, this.#secrets);
      let status = 202;
      let retryAfter: string | undefined;
      const posting = JSON.parse(body) as Record<string, unknown>;
      const refused = this.refuse.get(uetrOfPosting(posting));
      if (refused !== undefined) status = refused;
      else if (this.failNext && this.failNext.count > 0) {
        this.failNext.count -= 1;
        status = this.failNext.status;
        retryAfter = this.failNext.retryAfter;
      } else if (this.behaviour.kind === 'hang') {
        await new Promise<void>((resolve) => this.#hanging.add(resolve));
        return c.body(null, 503);
      } else if (this.behaviour.kind === 'status') {
        status = this.behaviour.status;
        retryAfter = this.behaviour.retryAfter;
      } else if (!verified) {
        status = 401;
      }
      this.received.push({
        id: headers['webhook-id'] ?? '',
        timestamp: headers['webhook-timestamp'] ?? '',
        signature: headers['webhook-signature'] ?? '',
        traceparent: c.req.header('traceparent'),
        body,
        posting,
        verified,
        status,
        at: Date.now(),
      });
      for (const wake of [...this.#waiters]) wake();
      return c.body(null, status as 202, retryAfter ? { 'retry-after': retryAfter } : {});
    });
    this.#server = await startHttpServer(app, { port: 0, host: '127.0.0.1', closeTimeoutMs: 1_000 });
    return this;
  }

  /** Changes how the bank answers; requests left hanging are let go (503). */
  behave(behaviour: BankBehaviour): void {
    this.behaviour = behaviour;
    if (behaviour.kind !== 'hang') this.#releaseHanging();
  }

  /** The postings the bank took (2xx), in arrival order, optionally of one transaction. */
  accepted(uetr?: string): ReceivedPosting[] {
    return this.received.filter(
      (entry) => entry.status < 300 && (uetr === undefined || uetrOf(entry) === uetr),
    );
  }

  /** Distinct event ids the bank took. */
  acceptedIds(): Set<string> {
    return new Set(this.accepted().map((entry) => entry.id));
  }

  /** Resolves once `ready` holds for what the bank received; rejects after `timeoutMs`. */
  waitUntil(ready: (bank: TestBank) => boolean, what: string, timeoutMs = 60_000): Promise<void> {
    return new Promise((resolve, reject) => {
      const check = () => {
        if (!ready(this)) return;
        this.#waiters.delete(check);
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        this.#waiters.delete(check);
        reject(
          new Error(
            `test bank: ${what} not reached within ${timeoutMs} ms (${this.received.length} received)`,
          ),
        );
      }, timeoutMs);
      this.#waiters.add(check);
      check();
    });
  }

  /** Resolves once the bank took postings with all of these ids. */
  waitForIds(ids: Iterable<string>, what: string, timeoutMs?: number): Promise<void> {
    const wanted = [...ids];
    return this.waitUntil(
      (bank) => {
        const taken = bank.acceptedIds();
        return wanted.every((id) => taken.has(id));
      },
      `${what} (${wanted.length} postings)`,
      timeoutMs,
    );
  }

  async stop(): Promise<void> {
    this.#releaseHanging();
    await this.#server?.close();
  }

  #releaseHanging(): void {
    for (const release of this.#hanging) release();
    this.#hanging.clear();
  }
}

export function uetrOf(entry: ReceivedPosting): string {
  return uetrOfPosting(entry.posting);
}

function uetrOfPosting(body: Record<string, unknown>): string {
  const posting = body as { tranInfo?: { tranUetr?: string }; identifiers?: { uetr?: string } };
  return posting.tranInfo?.tranUetr ?? posting.identifiers?.uetr ?? '';
}
