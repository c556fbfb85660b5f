import { parseArgs } from 'node:util';
import { sampleOnUsDebit } from '@rp/launcher';
import {
  adminHeaders,
  CallError,
  type CommandIo,
  call,
  plural,
  processIo,
  runCommand,
  serviceUrl,
  timeoutOf,
  UsageError,
} from './events.ts';
import { type ProgressSink, progressBar } from './progress.ts';

export const defaultIngressUrl = 'http://127.0.0.1:8080';
export const defaultSchedulerUrl = 'http://127.0.0.1:8083';
export const defaultTrackerUrl = 'http://127.0.0.1:8085';

export const sendUsage = `usage: rp send [--count <n>] [--concurrency <c>] [--amount <rands>] [--url <ingress>]

Sends sample on-us direct debits (Baobab Bank to itself, today's collection date, new UETRs) to the
ingress, with a progress bar, and prints how many got 202, how many were refused and why, and the rate.
Exit 1 when any was refused.

  --count <n>        debits to send (default 10, at most 1,000,000)
  --concurrency <c>  requests in flight (default 16)
  --amount <rands>   each debit's amount, e.g. 125.50 (default: the example's)
  --url <url>        the ingress (default: INGRESS_URL, else ${defaultIngressUrl})
  --token <jwt>      the bank's OAuth2 access token (default: BANK_ACCESS_TOKEN); the ingress takes
                     debits only from the bank its token names
  --json             print the summary as JSON
`;

export const reconUsage = `usage: rp recon [--window <YYYY-MM-DD>] [--csv] [--url <scheduler>]

Prints a debit window's reconciliation report (default: today's, Africa/Johannesburg): every item the
close raised, with its row, code, state at the close and status, then the count still open. --csv prints
the scheduler's CSV report as it comes.

  --url <url>        the scheduler (default: SCHEDULER_URL, else ${defaultSchedulerUrl})
  --json             print the items as JSON

The operator's access token (role operator.read) comes from RP_ADMIN_TOKEN.
`;

export const deadLettersUsage = `usage: rp dead-letters [<topic>] [--redrive <id,...> | --all] [--operator <name>] [--url <tracker>]

Without a topic: every consumer group's dead-letter topic with its record count. With one: its records,
oldest first (id, reason, origin, error, whether redriven). With --redrive or --all: hands those records
back to their group, once each, recorded in the audit trail under the operator's token subject.

  --limit <n>        records to show (default 100)
  --url <url>        the tracker (default: TRACKER_URL, else ${defaultTrackerUrl})
  --operator <name>  who asks, where the tracker runs without operator authentication (default: USER)
  --json             print the answer as JSON

The operator's access token comes from RP_ADMIN_TOKEN: operator.read to list, operator.replay to redrive.
`;

const common = {
  url: { type: 'string' },
  timeout: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

function parsed<T>(run: () => T): T {
  try {
    return run();
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

function whole(name: string, text: string | undefined, fallback: number, max: number): number {
  if (text === undefined) return fallback;
  const value = Number(text);
  if (!/^\d+$/.test(text) || value < 1 || value > max) {
    throw new UsageError(`--${name}: "${text}" must be a whole number from 1 to ${max.toLocaleString('en')}`);
  }
  return value;
}

export interface SendArgs {
  readonly url: string;
  readonly count: number;
  readonly concurrency: number;
  readonly amount?: string;
  /** The bank's access token, sent as `Authorization: Bearer`. */
  readonly token?: string;
  readonly timeoutMs: number;
  readonly json: boolean;
}

export function parseSendArgs(args: readonly string[], env: CommandIo['env'] = {}): SendArgs {
  const { values, positionals } = parsed(() =>
    parseArgs({
      args: [...args],
      options: {
        ...common,
        count: { type: 'string' },
        concurrency: { type: 'string' },
        amount: { type: 'string' },
        token: { type: 'string' },
      },
      strict: true,
      allowPositionals: true,
    }),
  );
  if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0]}"`);
  if (values.amount !== undefined && !/^\d{1,13}(\.\d{1,2})?$/.test(values.amount)) {
    throw new UsageError(`--amount: "${values.amount}" must be rands with at most two decimals, e.g. 125.50`);
  }
  return {
    url: serviceUrl(values.url, env, 'INGRESS_URL', defaultIngressUrl),
    count: whole('count', values.count, 10, 1_000_000),
    concurrency: whole('concurrency', values.concurrency, 16, 1_000),
    ...(values.amount === undefined ? {} : { amount: twoDecimals(values.amount) }),
    ...tokenOf(values.token ?? env.BANK_ACCESS_TOKEN),
    timeoutMs: timeoutOf(values.timeout),
    json: values.json === true,
  };
}

/** `125` -> `125.00`, `125.5` -> `125.50`: the amount as the contract writes it, with no float in between. */
function twoDecimals(amount: string): string {
  const [rands, cents = ''] = amount.split('.');
  return `${rands}.${cents.padEnd(2, '0')}`;
}

function tokenOf(token: string | undefined): { token?: string } {
  return token ? { token } : {};
}

export interface SendSummary {
  readonly sent: number;
  readonly accepted: number;
  /** Refusals by HTTP status (or `unreachable`), with the first problem detail of each. */
  readonly refused: Readonly<Record<string, { count: number; detail: string }>>;
  readonly seconds: number;
  readonly perSecond: number;
  /** The first few accepted UETRs, to follow with the console or the admin API. */
  readonly sampleUetrs: readonly string[];
}

/** Sends the debits; the progress bar goes to `progressSink`. */
export async function sendDebits(
  root: string,
  args: SendArgs,
  progressSink: ProgressSink = process.stderr,
): Promise<SendSummary> {
  const progress = progressBar('debits sent', args.count, progressSink);
  const started = performance.now();
  let next = 0;
  let accepted = 0;
  const refused: Record<string, { count: number; detail: string }> = {};
  const sampleUetrs: string[] = [];
  const refuse = (key: string, detail: string) => {
    const entry = refused[key] ?? { count: 0, detail };
    entry.count += 1;
    refused[key] = entry;
  };
  async function worker(): Promise<void> {
    while (next < args.count) {
      next += 1;
      const sample = sampleOnUsDebit(root, args.amount === undefined ? {} : { amount: args.amount });
      try {
        const response = await fetch(`${args.url}/api/v1/outbound/direct-debit`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            ...(args.token ? { authorization: `Bearer ${args.token}` } : {}),
          },
          body: sample.body,
          signal: AbortSignal.timeout(args.timeoutMs),
        });
        const text = await response.text();
        if (response.status === 202) {
          accepted += 1;
          if (sampleUetrs.length < 5) sampleUetrs.push(sample.uetr);
        } else {
          refuse(String(response.status), problemDetail(text));
        }
      } catch (error) {
        refuse('unreachable', (error as Error).message);
      }
      progress.tick();
    }
  }
  await Promise.all(Array.from({ length: Math.min(args.concurrency, args.count) }, worker));
  progress.done();
  const seconds = (performance.now() - started) / 1000;
  return {
    sent: args.count,
    accepted,
    refused,
    seconds: Math.round(seconds * 100) / 100,
    perSecond: Math.round(args.count / Math.max(seconds, 0.001)),
    sampleUetrs,
  };
}

function problemDetail(text: string): string {
  try {
    const problem = JSON.parse(text) as { detail?: string; title?: string };
    return problem.detail ?? problem.title ?? text.slice(0, 200);
  } catch {
    return text.slice(0, 200);
  }
}

export function formatSend(summary: SendSummary): string[] {
  const lines = [
    `${plural(summary.sent, 'debit')} sent in ${summary.seconds} s (${summary.perSecond}/s): ${summary.accepted} accepted (202)`,
  ];
  for (const [status, { count, detail }] of Object.entries(summary.refused)) {
    lines.push(
      `  ${count} refused with ${status === 'unreachable' ? 'no answer' : `HTTP ${status}`}: ${detail}`,
    );
  }
  if (summary.sampleUetrs.length > 0) lines.push(`  e.g. ${summary.sampleUetrs.join(', ')}`);
  return lines;
}

/** `rp send`: 0 when every debit got 202, 1 when any was refused, 2 for bad arguments. */
export function sendCommand(
  root: string,
  args: readonly string[],
  io: CommandIo = processIo,
): Promise<number> {
  let anyRefused = false;
  return runCommand('send', sendUsage, args, io, async () => {
    const parsedArgs = parseSendArgs(args, io.env);
    const summary = await sendDebits(root, parsedArgs);
    if (parsedArgs.json) io.out(JSON.stringify(summary, null, 2));
    else for (const line of formatSend(summary)) io.out(line);
    anyRefused = summary.accepted < summary.sent;
  }).then((code) => (code === 0 && anyRefused ? 1 : code));
}

interface ReconItem {
  readonly uetr: string;
  readonly row: number;
  readonly code: string;
  readonly text: string;
  readonly stateAtClose: string;
  readonly status: string;
}

interface ReconPage {
  readonly windowId: string;
  readonly open: number;
  readonly items: readonly ReconItem[];
  readonly next?: string;
}

/** `rp recon`: the window's reconciliation items, every page. */
export function reconCommand(args: readonly string[], io: CommandIo = processIo): Promise<number> {
  return runCommand('recon', reconUsage, args, io, async () => {
    const { values, positionals } = parsed(() =>
      parseArgs({
        args: [...args],
        options: { ...common, window: { type: 'string' }, csv: { type: 'boolean' } },
        strict: true,
        allowPositionals: true,
      }),
    );
    if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0]}"`);
    if (values.window !== undefined && !/^\d{4}-\d{2}-\d{2}$/.test(values.window)) {
      throw new UsageError(`--window: "${values.window}" must be a date, YYYY-MM-DD`);
    }
    const url = serviceUrl(values.url, io.env, 'SCHEDULER_URL', defaultSchedulerUrl);
    const timeoutMs = timeoutOf(values.timeout);
    const window = values.window === undefined ? '' : `window=${values.window}`;
    if (values.csv) {
      const response = await fetch(`${url}/admin/reconciliation/report.csv?${window}`, {
        headers: adminHeaders(io.env),
        signal: AbortSignal.timeout(timeoutMs),
      }).catch((error: unknown) => {
        throw new CallError(
          `cannot reach the scheduler at ${new URL(url).origin}: ${(error as Error).message}`,
        );
      });
      if (!response.ok) {
        throw new CallError(
          `the scheduler refused the report: HTTP ${response.status}${response.status === 401 || response.status === 403 ? ' (RP_ADMIN_TOKEN: an operator access token with operator.read)' : ''}`,
        );
      }
      io.out((await response.text()).trimEnd());
      return;
    }
    const items: ReconItem[] = [];
    let page: ReconPage;
    let after: string | undefined;
    do {
      const query = [window, after ? `after=${encodeURIComponent(after)}` : ''].filter(Boolean).join('&');
      page = await call<ReconPage>(
        `${url}/admin/reconciliation?${query}`,
        { headers: adminHeaders(io.env, { accept: 'application/json' }) },
        timeoutMs,
        'the reconciliation report',
        'the scheduler',
      );
      items.push(...page.items);
      after = page.next;
    } while (after);
    if (values.json) {
      io.out(JSON.stringify({ windowId: page.windowId, open: page.open, items }, null, 2));
      return;
    }
    io.out(`reconciliation of window ${page.windowId}: ${plural(items.length, 'item')}, ${page.open} open`);
    if (items.length > 0) {
      io.out(`  ${'uetr'.padEnd(36)}  row  ${'status'.padEnd(8)}  ${'state at close'.padEnd(28)}  code`);
      for (const item of items) {
        io.out(
          `  ${item.uetr}  ${String(item.row).padStart(3)}  ${item.status.padEnd(8)}  ${item.stateAtClose.padEnd(28)}  ${item.code}`,
        );
      }
    }
  });
}

interface DeadLetterView {
  readonly id: string;
  readonly key: string;
  readonly reason: string;
  readonly deadLetteredAt: string;
  readonly origin: { readonly topic: string; readonly partition: number; readonly offset: string };
  readonly attempts: number;
  readonly errorCode?: string;
  readonly errorMessage?: string;
  readonly redrivable: boolean;
  readonly redriven: { readonly actor: string; readonly at: string } | null;
}

interface RedriveAnswer {
  readonly redriven: readonly string[];
  readonly alreadyRedriven: readonly { id: string; actor: string; at: string }[];
  readonly refused: readonly { id: string; detail: string }[];
  readonly notFound: readonly string[];
}

/** `rp dead-letters`: list the topics, one topic's records, or redrive some of them. */
export function deadLettersCommand(args: readonly string[], io: CommandIo = processIo): Promise<number> {
  return runCommand('dead-letters', deadLettersUsage, args, io, async () => {
    const { values, positionals } = parsed(() =>
      parseArgs({
        args: [...args],
        options: {
          ...common,
          redrive: { type: 'string' },
          all: { type: 'boolean' },
          operator: { type: 'string' },
          limit: { type: 'string' },
        },
        strict: true,
        allowPositionals: true,
      }),
    );
    if (positionals.length > 1) throw new UsageError(`unexpected argument "${positionals[1]}"`);
    const url = serviceUrl(values.url, io.env, 'TRACKER_URL', defaultTrackerUrl);
    const timeoutMs = timeoutOf(values.timeout);
    const topic = positionals[0];
    const get = <T>(path: string, what: string) =>
      call<T>(
        `${url}${path}`,
        { headers: adminHeaders(io.env, { accept: 'application/json' }) },
        timeoutMs,
        what,
        'the tracker',
      );
    if (topic === undefined) {
      if (values.redrive !== undefined || values.all)
        throw new UsageError('say which dead-letter topic to redrive from');
      const answer = await get<{ topics: { topic: string; records: number }[] }>(
        '/admin/dead-letters',
        'the list',
      );
      if (values.json) io.out(JSON.stringify(answer, null, 2));
      else {
        const withRecords = answer.topics.filter((entry) => entry.records > 0);
        io.out(`${plural(answer.topics.length, 'dead-letter topic')}, ${withRecords.length} holding records`);
        for (const entry of answer.topics) io.out(`  ${String(entry.records).padStart(7)}  ${entry.topic}`);
      }
      return;
    }
    const path = `/admin/dead-letters/${encodeURIComponent(topic)}`;
    if (values.redrive !== undefined || values.all) {
      if (values.redrive !== undefined && values.all)
        throw new UsageError('give either --redrive <ids> or --all');
      // With a token the tracker audits the token's subject; without, the name given (ADMIN_AUTH=none).
      const operator = (values.operator ?? io.env.USER ?? '').trim();
      if (!operator && !io.env.RP_ADMIN_TOKEN) {
        throw new UsageError('--operator <name> is required (who asks, for the audit trail)');
      }
      const records = values.redrive
        ?.split(',')
        .map((id) => id.trim())
        .filter(Boolean);
      const answer = await call<RedriveAnswer>(
        `${url}${path}/redrive`,
        {
          method: 'POST',
          headers: adminHeaders(io.env, { 'content-type': 'application/json', accept: 'application/json' }),
          body: JSON.stringify({
            ...(operator ? { operator } : {}),
            ...(values.all ? { all: true } : { records }),
          }),
        },
        timeoutMs,
        'the redrive',
        'the tracker',
      );
      if (values.json) io.out(JSON.stringify(answer, null, 2));
      else {
        io.out(
          `${plural(answer.redriven.length, 'record')} handed back to the group: ${answer.redriven.join(', ') || '-'}`,
        );
        for (const entry of answer.alreadyRedriven)
          io.out(`  ${entry.id}: already redriven by ${entry.actor} at ${entry.at}`);
        for (const entry of answer.refused) io.out(`  ${entry.id}: refused, ${entry.detail}`);
        for (const id of answer.notFound) io.out(`  ${id}: not on ${topic}`);
      }
      return;
    }
    const limit = whole('limit', values.limit, 100, 1_000);
    const answer = await get<{ records: DeadLetterView[] }>(
      `${path}?limit=${limit}`,
      `the records of ${topic}`,
    );
    if (values.json) {
      io.out(JSON.stringify(answer, null, 2));
      return;
    }
    io.out(`${topic}: ${plural(answer.records.length, 'record')}`);
    for (const record of answer.records) {
      const error = record.errorCode ? ` ${record.errorCode}: ${record.errorMessage ?? ''}` : '';
      const redriven = record.redriven
        ? ` (redriven by ${record.redriven.actor} at ${record.redriven.at})`
        : '';
      io.out(`  ${record.id}  ${record.deadLetteredAt}  ${record.reason}  key ${record.key}${redriven}`);
      io.out(
        `      from ${record.origin.topic} ${record.origin.partition}:${record.origin.offset} after ${plural(record.attempts, 'attempt')};${error}`,
      );
    }
  });
}
