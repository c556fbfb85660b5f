import { deadline } from '@rp/runtime';
import { Agent, request } from 'undici';

/** How one POST to a bank's /events ended. */
export type AttemptResult =
  | { readonly kind: 'delivered'; readonly status: number; readonly latencyMs: number }
  | {
      readonly kind: 'retryable';
      /** Null when there was no answer (timeout, refused or reset connection). */
      readonly status: number | null;
      readonly error: string;
      readonly latencyMs: number;
      /** The bank's Retry-After, in milliseconds, when it sent one. */
      readonly retryAfter?: string;
    }
  | { readonly kind: 'final'; readonly status: number; readonly error: string; readonly latencyMs: number };

/**
 * What an HTTP status means for a posting: 2xx delivered; 408, 425, 429 and 5xx are worth retrying (the
 * bank or something before it is busy or broken for now); any other 4xx is the bank saying it will never
 * take this posting, so it is recorded as failed and the transaction's next posting proceeds. 1xx and
 * 3xx (redirects are not followed: a bank's events URL is configured, not discovered) are retried, as
 * they mean a misconfiguration that may be fixed.
 */
export function classifyStatus(status: number): AttemptResult['kind'] {
  if (status >= 200 && status < 300) return 'delivered';
  if (status === 408 || status === 425 || status === 429 || status >= 500) return 'retryable';
  if (status >= 400) return 'final';
  return 'retryable';
}

export interface BankClientOptions {
  /** Longest one POST may take, connection included, before it counts as no answer. */
  readonly attemptTimeoutMs: number;
  readonly connectTimeoutMs: number;
  /** Keep-alive connections per bank origin (the bank's concurrency). */
  readonly connectionsPerOrigin: number;
  /** Idle time a pooled connection is kept; below the usual server keep-alive of 5 s. */
  readonly keepAliveMs: number;
}

const maxErrorBodyChars = 200;

/**
 * POSTs postings over a keep-alive connection pool per bank origin. Nothing is re-parsed or re-opened
 * per posting; redirects are not followed; every request ends by `attemptTimeoutMs` at the latest.
 */
export class BankClient {
  readonly #agent: Agent;
  readonly #options: BankClientOptions;

  constructor(options: BankClientOptions) {
    this.#options = options;
    this.#agent = new Agent({
      connections: options.connectionsPerOrigin,
      keepAliveTimeout: options.keepAliveMs,
      keepAliveMaxTimeout: Math.max(options.keepAliveMs, 60_000),
      connectTimeout: options.connectTimeoutMs,
      headersTimeout: options.attemptTimeoutMs,
      bodyTimeout: options.attemptTimeoutMs,
    });
  }

  async post(
    url: string,
    headers: Record<string, string>,
    body: string,
    signal?: AbortSignal,
  ): Promise<AttemptResult> {
    const started = performance.now();
    const timeout = deadline(this.#options.attemptTimeoutMs, signal);
    const latency = () => Math.round((performance.now() - started) * 10) / 10;
    try {
      const response = await request(url, {
        method: 'POST',
        headers,
        body,
        dispatcher: this.#agent,
        signal: timeout.signal,
      });
      const kind = classifyStatus(response.statusCode);
      if (kind === 'delivered') {
        // Read to the end so the connection goes back to the pool.
        await response.body.dump();
        return { kind, status: response.statusCode, latencyMs: latency() };
      }
      const text = (await response.body.text().catch(() => '')).slice(0, maxErrorBodyChars);
      const error = `HTTP ${response.statusCode}${text ? `: ${text.replace(/\s+/g, ' ').trim()}` : ''}`;
      if (kind === 'final') return { kind, status: response.statusCode, error, latencyMs: latency() };
      const retryAfter = header(response.headers['retry-after']);
      return {
        kind: 'retryable',
        status: response.statusCode,
        error,
        latencyMs: latency(),
        ...(retryAfter === undefined ? {} : { retryAfter }),
      };
    } catch (error) {
      const reason = timeout.timedOut
        ? `no answer within ${this.#options.attemptTimeoutMs} ms`
        : signal?.aborted
          ? 'aborted'
          : describeNetworkError(error);
      return { kind: 'retryable', status: null, error: reason, latencyMs: latency() };
    } finally {
      timeout.clear();
    }
  }

  async close(): Promise<void> {
    await this.#agent.close();
  }
}

function header(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function describeNetworkError(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    const cause = (error as { cause?: { code?: unknown } }).cause?.code;
    const name = typeof code === 'string' ? code : typeof cause === 'string' ? cause : error.name;
    return `${name}: ${error.message}`.slice(0, maxErrorBodyChars);
  }
  return String(error).slice(0, maxErrorBodyChars);
}
