import { Agent, type Dispatcher } from 'undici';

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
/** Bytes of an error body kept: enough for its first `maxErrorBodyChars` characters in any UTF-8. */
const maxErrorBodyBytes = maxErrorBodyChars * 4;

/** Bank URLs whose parse is kept (a handful in practice: one per bank). */
const maxTargets = 1_000;

/** Why an attempt was ended from this side. */
type EndedBy = 'timeout' | 'aborted';

/**
 * One POST in flight, as undici's dispatch handler: the answer's status and headers, the first bytes of
 * a body that is not a 2xx (for the error), nothing else kept. It settles its promise exactly once.
 */
class PostAttempt implements Dispatcher.DispatchHandler {
  readonly deadline: number;
  readonly signal: AbortSignal | undefined;
  readonly #started: number;
  readonly #timeoutMs: number;
  readonly #settle: (result: AttemptResult) => void;
  #controller: Dispatcher.DispatchController | null = null;
  #endedBy: EndedBy | undefined;
  #status = 0;
  #retryAfter: string | undefined;
  #errorBody: Buffer[] | undefined;
  #errorBytes = 0;
  done = false;

  constructor(timeoutMs: number, signal: AbortSignal | undefined, settle: (result: AttemptResult) => void) {
    this.#started = performance.now();
    this.#timeoutMs = timeoutMs;
    this.deadline = this.#started + timeoutMs;
    this.signal = signal;
    this.#settle = settle;
  }

  /** Ends the attempt from this side: at once when it is on a connection, else as soon as it gets one. */
  end(by: EndedBy): void {
    if (this.done || this.#endedBy !== undefined) return;
    this.#endedBy = by;
    this.#controller?.abort(new Error(this.#reason()));
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.#controller = controller;
    if (this.#endedBy !== undefined) controller.abort(new Error(this.#reason()));
  }

  onResponseStart(
    _controller: Dispatcher.DispatchController,
    statusCode: number,
    headers: Record<string, string | string[] | undefined>,
  ): void {
    // 1xx answers are informational: the real one follows.
    if (statusCode < 200) return;
    this.#status = statusCode;
    if (statusCode >= 300) {
      this.#errorBody = [];
      const retryAfter = headers['retry-after'];
      this.#retryAfter = Array.isArray(retryAfter) ? retryAfter[0] : retryAfter;
    }
  }

  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer): void {
    // A 2xx body is read and dropped, so that the connection goes back to the pool.
    if (this.#errorBody === undefined || this.#errorBytes >= maxErrorBodyBytes) return;
    this.#errorBody.push(chunk);
    this.#errorBytes += chunk.length;
  }

  onResponseEnd(): void {
    const status = this.#status;
    const kind = classifyStatus(status);
    const latencyMs = this.#latency();
    if (kind === 'delivered') {
      this.#finish({ kind, status, latencyMs });
      return;
    }
    const text = this.#errorBody
      ? Buffer.concat(this.#errorBody)
          .subarray(0, maxErrorBodyBytes)
          .toString('utf8')
          .slice(0, maxErrorBodyChars)
      : '';
    const error = `HTTP ${status}${text ? `: ${text.replace(/\s+/g, ' ').trim()}` : ''}`;
    if (kind === 'final') {
      this.#finish({ kind, status, error, latencyMs });
      return;
    }
    this.#finish({
      kind: 'retryable',
      status,
      error,
      latencyMs,
      ...(this.#retryAfter === undefined ? {} : { retryAfter: this.#retryAfter }),
    });
  }

  onResponseError(_controller: Dispatcher.DispatchController | null, error: Error): void {
    const reason = this.#endedBy === undefined ? describeNetworkError(error) : this.#reason();
    this.#finish({ kind: 'retryable', status: null, error: reason, latencyMs: this.#latency() });
  }

  #reason(): string {
    return this.#endedBy === 'timeout' ? `no answer within ${this.#timeoutMs} ms` : 'aborted';
  }

  #latency(): number {
    return Math.round((performance.now() - this.#started) * 10) / 10;
  }

  #finish(result: AttemptResult): void {
    if (this.done) return;
    this.done = true;
    this.#controller = null;
    this.#errorBody = undefined;
    this.#settle(result);
  }
}

/**
 * POSTs postings over a keep-alive connection pool per bank origin. Nothing is re-parsed or re-opened
 * per posting; redirects are not followed; every request ends by `attemptTimeoutMs` at the latest.
 *
 * Each POST is one undici dispatch with a handler of its own: no response stream, no abort signal and
 * no timer per posting. The attempts of one client share one timeout, so their deadlines come in the
 * order they started: one timer, set for the oldest unfinished attempt, ends whichever ran out. A
 * caller's signal is listened to once, whatever number of attempts carry it.
 */
export class BankClient {
  readonly #agent: Agent;
  readonly #options: BankClientOptions;
  /** Attempts by start, oldest first, from `#head` on; finished ones are dropped from the front. */
  #started: PostAttempt[] = [];
  #head = 0;
  #timer: NodeJS.Timeout | undefined;
  /** Where each bank URL sends its requests, parsed once. */
  readonly #targets = new Map<string, { readonly origin: string; readonly path: string }>();
  /** The unfinished attempts carrying each caller's signal, and that signal's one listener. */
  readonly #bySignal = new WeakMap<AbortSignal, Set<PostAttempt>>();

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

  post(
    url: string,
    headers: Record<string, string>,
    body: string,
    signal?: AbortSignal,
  ): Promise<AttemptResult> {
    return new Promise<AttemptResult>((resolve) => {
      const attempt: PostAttempt = new PostAttempt(this.#options.attemptTimeoutMs, signal, (result) => {
        this.#forget(attempt);
        resolve(result);
      });
      const target = this.#target(url);
      if (target === undefined) {
        attempt.onResponseError(null, new TypeError(`not an absolute URL: ${url}`));
        return;
      }
      if (signal?.aborted) {
        attempt.end('aborted');
        attempt.onResponseError(null, new Error('aborted'));
        return;
      }
      this.#track(attempt);
      this.#agent.dispatch({ ...target, method: 'POST', headers, body }, attempt);
    });
  }

  async close(): Promise<void> {
    await this.#agent.close();
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #target(url: string): { readonly origin: string; readonly path: string } | undefined {
    let target = this.#targets.get(url);
    if (target === undefined) {
      if (!URL.canParse(url)) return undefined;
      const parsed = new URL(url);
      target = { origin: parsed.origin, path: `${parsed.pathname}${parsed.search}` };
      if (this.#targets.size >= maxTargets) this.#targets.clear();
      this.#targets.set(url, target);
    }
    return target;
  }

  #track(attempt: PostAttempt): void {
    this.#started.push(attempt);
    if (this.#timer === undefined) this.#arm(attempt.deadline);
    const { signal } = attempt;
    if (signal === undefined) return;
    let carrying = this.#bySignal.get(signal);
    if (carrying === undefined) {
      const set = new Set<PostAttempt>();
      carrying = set;
      this.#bySignal.set(signal, set);
      signal.addEventListener(
        'abort',
        () => {
          for (const each of [...set]) each.end('aborted');
        },
        { once: true },
      );
    }
    carrying.add(attempt);
  }

  #forget(attempt: PostAttempt): void {
    if (attempt.signal !== undefined) this.#bySignal.get(attempt.signal)?.delete(attempt);
    this.#dropFinished();
  }

  /**
   * Drops finished attempts from the front: the list holds the oldest unfinished attempt and those that
   * started after it.
   */
  #dropFinished(): void {
    const started = this.#started;
    while (this.#head < started.length && (started[this.#head] as PostAttempt).done) this.#head += 1;
    if (this.#head === started.length) {
      this.#started = [];
      this.#head = 0;
      clearTimeout(this.#timer);
      this.#timer = undefined;
    } else if (this.#head > 1024 && this.#head * 2 > started.length) {
      this.#started = started.slice(this.#head);
      this.#head = 0;
    }
  }

  #arm(at: number): void {
    this.#timer = setTimeout(() => this.#expire(), Math.max(0, Math.ceil(at - performance.now())));
  }

  /**
   * Ends the attempts whose deadline has passed (one still waiting for a connection ends when it gets
   * one), then waits for the next deadline: that of the first attempt not yet due.
   */
  #expire(): void {
    this.#timer = undefined;
    const now = performance.now();
    const started = this.#started;
    let next: PostAttempt | undefined;
    for (let index = this.#head; index < started.length; index += 1) {
      const attempt = started[index] as PostAttempt;
      if (attempt.deadline > now) {
        next = attempt;
        break;
      }
      attempt.end('timeout');
    }
    this.#dropFinished();
    // The next deadline even when its attempt has finished: the timer then finds the one after it. None
    // when nothing is left in flight.
    if (next !== undefined && this.#head < this.#started.length && this.#timer === undefined)
      this.#arm(next.deadline);
  }
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
