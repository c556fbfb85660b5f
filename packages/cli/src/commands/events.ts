import { parseArgs } from 'node:util';
import { parseInstant } from '@rp/runtime';

/** The event publisher's admin API when neither `--url` nor `EVENT_PUBLISHER_URL` says otherwise. */
export const defaultEventPublisherUrl = 'http://127.0.0.1:8086';

export const replayUsage = `usage: rp replay --bank <memberId> (--uetr <uuid> | --from <time> --to <time>) [options]

Queues a bank's event postings again, with their original event ids (the bank deduplicates on
webhook-id, so a replay only fills its gaps): one transaction's postings (--uetr), or every posting the
bank was sent in a time range (--from inclusive, --to exclusive; RFC 3339 with an offset, for example
2026-11-23T08:00:00Z; the time is when the tracker produced the posting).

  --url <url>        the event publisher (default: EVENT_PUBLISHER_URL, else ${defaultEventPublisherUrl})
  --timeout <s>      how long to wait for the answer (default 120)
  --json             print the publisher's answer as JSON

The operator's access token (role operator.replay) comes from RP_ADMIN_TOKEN; the replay is audited
under its subject.
`;

export const deliveriesUsage = `usage: rp deliveries <eventId> [--url <url>] [--timeout <s>] [--json]

Shows an event posting and, per bank, its delivery log: outcome, every attempt kept (time, HTTP status,
latency, error) and, while it waits, its place in the bank's lane. The event id is the webhook-id
(EVT... or ESM...) or the state change's UUID.

  --url <url>        the event publisher (default: EVENT_PUBLISHER_URL, else ${defaultEventPublisherUrl})

The operator's access token (role operator.read) comes from RP_ADMIN_TOKEN.
`;

/** Wrong arguments: the command prints the message and its usage, and exits 2. */
export class UsageError extends Error {}

/** Where a command writes, and the environment it reads (tests pass their own). */
export interface CommandIo {
  readonly out: (line: string) => void;
  readonly err: (line: string) => void;
  readonly env: Readonly<Record<string, string | undefined>>;
}

export const processIo: CommandIo = {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
  env: process.env,
};

export type ReplayTarget =
  | { readonly memberId: string; readonly uetr: string }
  | { readonly memberId: string; readonly from: string; readonly to: string };

export interface ReplayArgs {
  /** The event publisher's base URL, without a trailing slash. */
  readonly url: string;
  /** The body of `POST /admin/events/replay`. */
  readonly target: ReplayTarget;
  readonly timeoutMs: number;
  readonly json: boolean;
}

export interface DeliveriesArgs {
  readonly url: string;
  readonly eventId: string;
  readonly timeoutMs: number;
  readonly json: boolean;
}

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const commonOptions = {
  url: { type: 'string' },
  timeout: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** Runs node:util's parseArgs; its sentence naming the offending option becomes the usage error. */
function parsing<T>(run: () => T): T {
  try {
    return run();
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

function baseUrl(given: string | undefined, env: CommandIo['env']): string {
  return serviceUrl(given, env, 'EVENT_PUBLISHER_URL', defaultEventPublisherUrl);
}

/** A service's base URL: `--url`, else the environment variable, else the local default; no trailing slash. */
export function serviceUrl(
  given: string | undefined,
  env: CommandIo['env'],
  variable: string,
  fallback: string,
): string {
  const raw = given ?? (env[variable] || undefined) ?? fallback;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UsageError(`--url: "${raw}" is not a URL (for example ${fallback})`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UsageError(`--url: "${raw}" must be an http or https URL`);
  }
  return raw.replace(/\/+$/, '');
}

export function timeoutOf(given: string | undefined): number {
  if (given === undefined) return 120_000;
  const seconds = Number(given);
  if (!/^\d+(\.\d+)?$/.test(given) || seconds <= 0) {
    throw new UsageError(`--timeout: "${given}" must be a positive number of seconds`);
  }
  return Math.ceil(seconds * 1000);
}

function instant(name: 'from' | 'to', value: string): string {
  const at = parseInstant(value);
  if (at === undefined) {
    throw new UsageError(
      `--${name}: "${value}" is not an RFC 3339 date-time with an offset, of a day that exists (for example 2026-11-23T08:00:00Z)`,
    );
  }
  return at.toISOString();
}

/** `rp replay` arguments; throws UsageError for anything the publisher would refuse anyway. */
export function parseReplayArgs(args: readonly string[], env: CommandIo['env'] = {}): ReplayArgs {
  const { values, positionals } = parsing(() =>
    parseArgs({
      args: [...args],
      options: {
        ...commonOptions,
        bank: { type: 'string' },
        uetr: { type: 'string' },
        from: { type: 'string' },
        to: { type: 'string' },
      },
      strict: true,
      allowPositionals: true,
    }),
  );
  if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0]}"`);
  const memberId = values.bank?.trim();
  if (!memberId) throw new UsageError('--bank <memberId> is required: the bank to deliver to again');
  const url = baseUrl(values.url, env);
  const timeoutMs = timeoutOf(values.timeout);
  const json = values.json === true;
  if (values.uetr !== undefined) {
    if (values.from !== undefined || values.to !== undefined) {
      throw new UsageError('give either --uetr or --from and --to, not both');
    }
    if (!uuidPattern.test(values.uetr)) throw new UsageError(`--uetr: "${values.uetr}" is not a UUID`);
    return { url, timeoutMs, json, target: { memberId, uetr: values.uetr.toLowerCase() } };
  }
  if (values.from === undefined || values.to === undefined) {
    throw new UsageError('say what to replay: --uetr <uuid>, or --from <time> and --to <time>');
  }
  const from = instant('from', values.from);
  const to = instant('to', values.to);
  if (Date.parse(from) >= Date.parse(to)) throw new UsageError('--to must be later than --from');
  return { url, timeoutMs, json, target: { memberId, from, to } };
}

/** `rp deliveries` arguments. */
export function parseDeliveriesArgs(args: readonly string[], env: CommandIo['env'] = {}): DeliveriesArgs {
  const { values, positionals } = parsing(() =>
    parseArgs({ args: [...args], options: commonOptions, strict: true, allowPositionals: true }),
  );
  if (positionals.length === 0) throw new UsageError('the event id is required');
  if (positionals.length > 1) throw new UsageError(`unexpected argument "${positionals[1]}"`);
  const eventId = (positionals[0] as string).trim();
  if (!/^[A-Za-z0-9-]{1,64}$/.test(eventId)) {
    throw new UsageError(`"${eventId}" is not an event id (EVT..., ESM... or a UUID)`);
  }
  return {
    url: baseUrl(values.url, env),
    eventId,
    timeoutMs: timeoutOf(values.timeout),
    json: values.json === true,
  };
}

/** The publisher's answer to a replay (202). */
export interface ReplayResult {
  readonly memberId: string;
  readonly queued: number;
  /** Postings the bank was sent that the topic no longer holds (past its retention). */
  readonly unavailable?: number;
  readonly transactions: number;
  readonly eventIds: readonly string[];
  readonly truncated: boolean;
  readonly resumeFrom?: string;
}

interface Attempt {
  readonly at: string;
  readonly httpStatus: number | null;
  readonly latencyMs: number;
  readonly error?: string;
}

/** The publisher's answer to `GET /admin/events/:eventId/deliveries`. */
export interface DeliveriesView {
  readonly eventId: string;
  readonly uetr: string;
  /** Absent, with `producedAt` and `source`, for a posting known only by a log entry that does not name them. */
  readonly class?: string;
  readonly eventName: string;
  readonly stageVersion?: number;
  readonly producedAt?: string;
  readonly source?: { readonly topic: string; readonly partition: number; readonly offset: number };
  readonly deliveries: readonly {
    readonly memberId: string;
    readonly outcome: string;
    readonly attemptCount: number;
    readonly attempts: readonly Attempt[];
    readonly completedAt?: string;
    readonly queuePosition?: number;
    readonly nextAttemptAt?: string;
  }[];
}

export const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? '' : 's'}`;

/** What an operator reads after a replay. */
export function formatReplay(args: ReplayArgs, result: ReplayResult): string[] {
  const { target } = args;
  const what = 'uetr' in target ? `transaction ${target.uetr}` : `${target.from} to ${target.to}`;
  const unavailable = result.unavailable ?? 0;
  const are = unavailable === 1 ? 'is' : 'are';
  if (result.queued === 0) {
    return [
      unavailable === 0
        ? `nothing to replay: no posting of ${what} was sent to bank ${result.memberId}`
        : `nothing to replay: the ${plural(unavailable, 'posting')} of ${what} sent to bank ${result.memberId} ${are} past the topic's retention`,
    ];
  }
  const lines = [
    `replay to bank ${result.memberId} (${what}): ${plural(result.queued, 'posting')} of ${plural(result.transactions, 'transaction')} queued again, with their original event ids`,
  ];
  if (unavailable > 0) {
    lines.push(
      `  not queued: ${plural(unavailable, 'posting')} sent to the bank ${are} past the topic's retention`,
    );
  }
  const shown = result.eventIds.length;
  lines.push(shown < result.queued ? `  the first ${shown}:` : '  event ids:');
  for (const id of result.eventIds) lines.push(`    ${id}`);
  if (result.truncated) {
    const to = 'to' in target ? target.to : '<to>';
    lines.push(
      `more postings matched than one replay takes; continue with:`,
      `  rp replay --bank ${result.memberId} --from ${result.resumeFrom ?? '<time>'} --to ${to} --url ${args.url}`,
    );
  }
  lines.push(
    'They are delivered in order per transaction, behind whatever still waits for the bank; follow one with rp deliveries <eventId>.',
  );
  return lines;
}

function attemptLine(attempt: Attempt): string {
  const answer = attempt.httpStatus === null ? 'no answer' : `HTTP ${attempt.httpStatus}`;
  const error = attempt.error ? `  ${attempt.error}` : '';
  return `    ${attempt.at}  ${answer.padEnd(9)}  ${`${Math.round(attempt.latencyMs)} ms`.padStart(9)}${error}`;
}

/** A posting's delivery log, as text. */
export function formatDeliveries(view: DeliveriesView): string[] {
  const stage = view.stageVersion === undefined ? '' : ` (stageVersion ${view.stageVersion})`;
  const lines = [
    `event ${view.eventId}: ${view.eventName}${stage}`,
    view.source
      ? `  uetr ${view.uetr}, produced ${view.producedAt}, ${view.source.topic} partition ${view.source.partition} offset ${view.source.offset}`
      : `  uetr ${view.uetr}`,
  ];
  for (const delivery of view.deliveries) {
    const parts = [delivery.outcome, plural(delivery.attemptCount, 'attempt')];
    if (delivery.completedAt) parts.push(`completed ${delivery.completedAt}`);
    if (delivery.queuePosition !== undefined) {
      parts.push(
        delivery.queuePosition === 0
          ? 'head of its lane'
          : `${delivery.queuePosition} ahead of it in its lane`,
      );
    }
    if (delivery.nextAttemptAt) parts.push(`next attempt ${delivery.nextAttemptAt}`);
    lines.push(`  bank ${delivery.memberId}: ${parts.join(', ')}`);
    if (delivery.attempts.length < delivery.attemptCount) {
      lines.push(`    (the last ${delivery.attempts.length} attempts)`);
    }
    for (const attempt of delivery.attempts) lines.push(attemptLine(attempt));
  }
  return lines;
}

/** A call the publisher refused or that did not get there: the command prints it and exits 1. */
export class CallError extends Error {}

interface Problem {
  readonly title?: string;
  readonly detail?: string;
  readonly errors?: readonly { readonly pointer?: string; readonly detail?: string }[];
}

function describeRefusal(status: number, statusText: string, text: string): string {
  let problem: Problem | undefined;
  try {
    const parsed = JSON.parse(text) as unknown;
    if (typeof parsed === 'object' && parsed !== null) problem = parsed as Problem;
  } catch {
    // not JSON: shown as it is below
  }
  const head = `HTTP ${status}${statusText ? ` ${statusText}` : ''}`;
  if (!problem || (problem.detail === undefined && problem.title === undefined)) {
    const body = text.trim().slice(0, 500);
    return body ? `${head}: ${body}` : head;
  }
  const lines = [`${head}: ${problem.detail ?? problem.title}`];
  for (const error of problem.errors ?? []) {
    lines.push(`  ${error.pointer || '(body)'}: ${error.detail ?? ''}`);
  }
  return lines.join('\n');
}

function causeOf(error: unknown): string {
  if (error instanceof Error && error.name === 'TimeoutError') return 'no answer in time (see --timeout)';
  const cause = (error as { cause?: { code?: string; message?: string } } | undefined)?.cause;
  if (cause?.code) return `${cause.code}${cause.message ? `: ${cause.message}` : ''}`;
  return cause?.message ?? (error as Error)?.message ?? String(error);
}

/**
 * Headers of an admin call: the operator's access token from `RP_ADMIN_TOKEN`, when set. Never a flag: a
 * token on a command line shows in process lists and shell history.
 */
export function adminHeaders(
  env: Readonly<Record<string, string | undefined>>,
  headers: Record<string, string> = {},
): Record<string, string> {
  const token = env.RP_ADMIN_TOKEN?.trim().replace(/^Bearer\s+/i, '');
  return token ? { ...headers, authorization: `Bearer ${token}` } : headers;
}

/** One admin call; the parsed JSON of a 2xx, else a CallError saying why (the problem's detail). */
export async function call<T>(
  url: string,
  init: RequestInit,
  timeoutMs: number,
  what: string,
  service = 'the event publisher',
): Promise<T> {
  let response: Response;
  let text: string;
  try {
    response = await fetch(url, { ...init, redirect: 'manual', signal: AbortSignal.timeout(timeoutMs) });
    text = await response.text();
  } catch (error) {
    throw new CallError(`cannot reach ${service} at ${new URL(url).origin}: ${causeOf(error)}`);
  }
  if (!response.ok) {
    const hint =
      response.status === 401 || response.status === 403
        ? '\n  (RP_ADMIN_TOKEN: an operator access token; reads need operator.read, actions operator.replay)'
        : '';
    throw new CallError(
      `${service} refused ${what}: ${describeRefusal(response.status, response.statusText, text)}${hint}`,
    );
  }
  try {
    return JSON.parse(text) as T;
  } catch {
    throw new CallError(
      `${service} answered ${what} with HTTP ${response.status} but not JSON: ${text.slice(0, 200)}`,
    );
  }
}

export async function runCommand(
  name: string,
  usage: string,
  args: readonly string[],
  io: CommandIo,
  body: () => Promise<void>,
): Promise<number> {
  if (args.includes('--help') || args.includes('-h')) {
    io.out(usage.trimEnd());
    return 0;
  }
  try {
    await body();
    return 0;
  } catch (error) {
    if (error instanceof UsageError) {
      io.err(`rp ${name}: ${error.message}\n\n${usage.trimEnd()}`);
      return 2;
    }
    if (error instanceof CallError) {
      io.err(`rp ${name}: ${error.message}`);
      return 1;
    }
    throw error;
  }
}

/** `rp replay`: 0 when the publisher queued the replay, 1 when it refused or did not answer, 2 for bad arguments. */
export function replayCommand(args: readonly string[], io: CommandIo = processIo): Promise<number> {
  return runCommand('replay', replayUsage, args, io, async () => {
    const parsed = parseReplayArgs(args, io.env);
    const result = await call<ReplayResult>(
      `${parsed.url}/admin/events/replay`,
      {
        method: 'POST',
        headers: adminHeaders(io.env, { 'content-type': 'application/json', accept: 'application/json' }),
        body: JSON.stringify(parsed.target),
      },
      parsed.timeoutMs,
      'the replay',
    );
    if (parsed.json) io.out(JSON.stringify(result, null, 2));
    else for (const line of formatReplay(parsed, result)) io.out(line);
  });
}

/** `rp deliveries`: 0 with the log printed, 1 when the publisher does not know the event or did not answer. */
export function deliveriesCommand(args: readonly string[], io: CommandIo = processIo): Promise<number> {
  return runCommand('deliveries', deliveriesUsage, args, io, async () => {
    const parsed = parseDeliveriesArgs(args, io.env);
    const view = await call<DeliveriesView>(
      `${parsed.url}/admin/events/${encodeURIComponent(parsed.eventId)}/deliveries`,
      { headers: adminHeaders(io.env, { accept: 'application/json' }) },
      parsed.timeoutMs,
      `the delivery log of ${parsed.eventId}`,
    );
    if (parsed.json) io.out(JSON.stringify(view, null, 2));
    else for (const line of formatDeliveries(view)) io.out(line);
  });
}
