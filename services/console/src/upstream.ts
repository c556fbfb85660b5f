import { engineServices } from '@rp/contracts';
/**
 * The services the console reads from, by the name it shows them under: every engine service, so that
 * the console and its document in the operators' OpenAPI (which names them from the same list) agree.
 */
export const consoleTargets = engineServices;
export type Target = (typeof consoleTargets)[number];

/** A call that failed. */
export interface UpstreamFailure {
  readonly ok: false;
  /** The HTTP status, when the service answered at all. */
  readonly status?: number;
  /** Why, in a sentence an operator can act on (no stack, no body beyond the problem's detail). */
  readonly error: string;
  readonly timedOut: boolean;
  readonly latencyMs: number;
  /** The start of the answer's body, when there was one. */
  readonly body?: string;
}

/** What one call to another service came to. Never thrown: a service that fails is data here. */
export type UpstreamResult<T> =
  | { readonly ok: true; readonly status: number; readonly value: T; readonly latencyMs: number }
  | UpstreamFailure;

/** `unauthorised`: the console could not get its own access token for an admin route. */
export type CallOutcome = 'ok' | 'http_error' | 'timeout' | 'unreachable' | 'invalid' | 'unauthorised';

export interface UpstreamOptions {
  /** Base URL of each service (no trailing slash needed). */
  readonly urls: Readonly<Record<Target, string>>;
  /** Longest wait for any one call, answer body included. */
  readonly timeoutMs: number;
  /**
   * The console's own `Authorization` header for the services' /admin routes (an operator.read access
   * token from its OAuth2 client); unset where the services run with `ADMIN_AUTH=none`.
   */
  readonly authorization?: () => Promise<string>;
  /** Told about every call (metrics). */
  readonly onCall?: (target: Target, outcome: CallOutcome, seconds: number) => void;
}

/** Largest answer read from a service (a /metrics page is some tens of kB). */
const maxBodyBytes = 8 * 1024 * 1024;

/**
 * Calls to the other services: GETs with a deadline on each (headers and body), never a throw. The
 * console shows what answered and says what did not.
 */
export class Upstreams {
  readonly #options: UpstreamOptions;

  constructor(options: UpstreamOptions) {
    this.#options = options;
  }

  get timeoutMs(): number {
    return this.#options.timeoutMs;
  }

  url(target: Target): string {
    return this.#options.urls[target].replace(/\/+$/, '');
  }

  /** GET `path` of `target`, its body as text. */
  async text(target: Target, path: string, requestId?: string): Promise<UpstreamResult<string>> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    const headers: Record<string, string> = { accept: 'application/json, text/plain;q=0.9, */*;q=0.1' };
    if (requestId) headers['x-request-id'] = requestId;
    const { timeoutMs, authorization } = this.#options;
    const report = (outcome: CallOutcome) =>
      this.#options.onCall?.(target, outcome, (performance.now() - started) / 1000);
    if (authorization && path.startsWith('/admin/')) {
      try {
        headers.authorization = await authorization();
      } catch (error) {
        report('unauthorised');
        return failure(
          `the console has no access token for it: ${error instanceof Error ? error.message : String(error)}`,
          elapsed(),
          false,
        );
      }
    }
    try {
      const response = await fetch(`${this.url(target)}${path}`, {
        headers,
        redirect: 'error',
        signal: AbortSignal.timeout(timeoutMs),
      });
      const length = Number(response.headers.get('content-length') ?? '0');
      if (length > maxBodyBytes) {
        await response.body?.cancel();
        report('invalid');
        return failure(`answer of ${length} bytes is too large`, elapsed(), false, response.status);
      }
      const body = await response.text();
      if (!response.ok) {
        report('http_error');
        return {
          ...failure(`HTTP ${response.status}${describeBody(body)}`, elapsed(), false, response.status),
          body: body.slice(0, 4_096),
        };
      }
      report('ok');
      return { ok: true, status: response.status, value: body, latencyMs: elapsed() };
    } catch (error) {
      const timedOut = isTimeout(error);
      report(timedOut ? 'timeout' : 'unreachable');
      return failure(
        timedOut ? `no answer within ${timeoutMs} ms` : describeNetworkError(error),
        elapsed(),
        timedOut,
      );
    }
  }

  /** GET `path` of `target` as JSON. */
  async json<T>(target: Target, path: string, requestId?: string): Promise<UpstreamResult<T>> {
    const answer = await this.text(target, path, requestId);
    if (!answer.ok) return answer;
    try {
      return { ...answer, value: JSON.parse(answer.value) as T };
    } catch {
      this.#options.onCall?.(target, 'invalid', answer.latencyMs / 1000);
      return failure('answered something that is not JSON', answer.latencyMs, false, answer.status);
    }
  }
}

function failure(error: string, latencyMs: number, timedOut: boolean, status?: number): UpstreamFailure {
  return status === undefined
    ? { ok: false, error, timedOut, latencyMs }
    : { ok: false, status, error, timedOut, latencyMs };
}

function isTimeout(error: unknown): boolean {
  return error instanceof DOMException && (error.name === 'TimeoutError' || error.name === 'AbortError');
}

/** `ECONNREFUSED 127.0.0.1:8085` rather than undici's "fetch failed". */
function describeNetworkError(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown; message?: unknown } } | undefined)?.cause;
  if (cause && typeof cause.code === 'string') {
    const message = typeof cause.message === 'string' ? cause.message : '';
    return message.includes(cause.code) ? message : `${cause.code}${message ? `: ${message}` : ''}`;
  }
  return error instanceof Error ? error.message : String(error);
}

/** The problem's detail (or title) when the body is problem+json, else nothing. */
function describeBody(body: string): string {
  const text = problemText(body);
  return text === undefined ? '' : `: ${text.slice(0, 200)}`;
}

/** The detail (else the title) of a problem+json body; undefined when the body is not one. */
export function problemText(body: string | undefined): string | undefined {
  if (body === undefined) return undefined;
  try {
    const problem = JSON.parse(body) as { detail?: unknown; title?: unknown };
    const text = typeof problem.detail === 'string' ? problem.detail : problem.title;
    return typeof text === 'string' && text.length > 0 ? text : undefined;
  } catch {
    return undefined;
  }
}
