import type { DeliveryError } from '@rp/contracts';
import { deadline } from '@rp/runtime';
import { Agent, request } from 'undici';

export interface BankClientOptions {
  /** Longest a call may take, from sending to the end of the answer. */
  readonly timeoutMs: number;
  /** Longest the TCP (and TLS) connection may take to open. */
  readonly connectTimeoutMs: number;
  /** Connections kept per bank (origin). */
  readonly connectionsPerBank: number;
  /** How long an idle connection is kept open for the next call. */
  readonly keepAliveMs: number;
}

/** How a call ended: the bank's status, or why there was none. */
export type CallResult =
  | { readonly status: number; readonly retryAfter?: string; readonly latencyMs: number }
  | { readonly error: DeliveryError; readonly latencyMs: number };

export interface BankClient {
  post(url: string, headers: Record<string, string>, body: string, signal: AbortSignal): Promise<CallResult>;
  close(): Promise<void>;
}

/**
 * Calls on banks over pooled keep-alive connections (one undici Agent: a pool per bank origin). Every call
 * has its own deadline (cleared once it is answered) besides the connect, headers and body timeouts, and is
 * abandoned when the consumer aborts.
 */
export function createBankClient(options: BankClientOptions): BankClient {
  const agent = new Agent({
    connections: options.connectionsPerBank,
    keepAliveTimeout: options.keepAliveMs,
    keepAliveMaxTimeout: Math.max(options.keepAliveMs, 60_000),
    headersTimeout: options.timeoutMs,
    bodyTimeout: options.timeoutMs,
    connect: { timeout: options.connectTimeoutMs },
  });
  return {
    async post(url, headers, body, signal) {
      const started = performance.now();
      const latency = () => Math.round(performance.now() - started);
      const timeout = deadline(options.timeoutMs, signal);
      try {
        const response = await request(url, {
          method: 'POST',
          headers,
          body,
          dispatcher: agent,
          signal: timeout.signal,
        });
        // The answer's body is not needed; reading it frees the connection for the next call.
        await response.body.dump({ limit: 65_536 }).catch(() => undefined);
        const retryAfter = response.headers['retry-after'];
        return {
          status: response.statusCode,
          ...(typeof retryAfter === 'string' ? { retryAfter } : {}),
          latencyMs: latency(),
        };
      } catch (error) {
        return { error: describeCallError(error, signal), latencyMs: latency() };
      } finally {
        timeout.clear();
      }
    },
    close: () => agent.close(),
  };
}

/** TIMEOUT for our deadline, ABORTED for a shutdown, else the transport's code (ECONNREFUSED, ...). */
export function describeCallError(error: unknown, signal?: AbortSignal): DeliveryError {
  if (signal?.aborted) return { code: 'ABORTED', message: 'the consumer was aborted' };
  const named = error as { name?: unknown; code?: unknown; message?: unknown; cause?: { code?: unknown } };
  const name = typeof named?.name === 'string' ? named.name : 'Error';
  const message = typeof named?.message === 'string' ? named.message : String(error);
  if (
    name === 'TimeoutError' ||
    named?.code === 'UND_ERR_HEADERS_TIMEOUT' ||
    named?.code === 'UND_ERR_BODY_TIMEOUT'
  ) {
    return { code: 'TIMEOUT', message: 'the bank did not answer in time' };
  }
  if (named?.code === 'UND_ERR_CONNECT_TIMEOUT') return { code: 'CONNECT_TIMEOUT', message };
  const code =
    typeof named?.cause?.code === 'string'
      ? named.cause.code
      : typeof named?.code === 'string'
        ? named.code
        : name;
  return { code, message: message.slice(0, 500) };
}
