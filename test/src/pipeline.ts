import { createServer, type Server, type Socket, connect as tcpConnect } from 'node:net';
import { fileURLToPath } from 'node:url';
import { BankSimulatorClient, type ReceivedPosting } from '@rp/bank-simulator';
import { type AdminService, checkAdminAnswer } from '@rp/contracts';
import {
  anyTimeWindows,
  defaultBank,
  johannesburgDate,
  type LaunchOptions,
  launchPipeline,
  type Pipeline,
  type PipelineEndpoints,
  type PipelineService,
  pipelineWindowKeeper,
  type SampleCreditOptions,
  type SampleDebitOptions,
  sampleCredit,
  sampleOffUsDebit,
  sampleOnUsDebit,
  stopAndDrop,
} from '@rp/launcher';
import { collectionNames } from '@rp/store';
import { infra, uniqueName } from '@rp/testkit';
import { generateKeyPair, SignJWT } from 'jose';
import { MongoClient } from 'mongodb';
import { runningSchedulers } from './day-end.ts';
import { runningLogDirs } from './failure-report.ts';

export const root = fileURLToPath(new URL('../..', import.meta.url));

/** The launcher's any-time windows (see `anyTimeWindows`). */
export const testWindows = anyTimeWindows;

/**
 * Store-and-forward at test speed: retries looked at again within a second or two instead of minutes,
 * a bank that does not answer given up on after 2 s (and left alone for half a second), Retry-After
 * honoured up to 2 s. The rules (what is retried, what is final, the deadline) are the production ones.
 */
export const testDispatcherEnv: Readonly<Record<string, string>> = {
  RETRY_TIERS: '250ms,500ms,1s',
  RETRY_BACKOFF_BASE: '200ms',
  RETRY_BACKOFF_MAX: '1s',
  RETRY_AFTER_MAX: '2s',
  BANK_REQUEST_TIMEOUT: '2s',
  BANK_COOLDOWN: '500ms',
};

/** The TRANSACTION_STATE types of an accepted credit transfer authorisation's journey, in state order. */
export const creditJourney = [
  'CREDIT_AUTH_RECEIVED',
  'CREDIT_AUTH_ACCEPTED',
  'CREDIT_AUTH_DELIVERY_PENDING',
  'CREDIT_AUTH_DELIVERED',
  'CREDIT_AUTH_RESPONSE_ACCEPTED',
] as const;

export interface SentDebit {
  uetr: string;
  messageIdentification: string;
  response: Response;
  /** The JSON body as sent. */
  body: string;
}

/** The tracker's snapshot of a transaction (the fields the tests read). */
export interface Snapshot {
  uetr: string;
  state: string;
  lastSeq: number;
  history: { seq: number; from: string | null; to: string; eventType: string; service: string; at: string }[];
  messages: { kind: string; messageIdentification: string }[];
  deliveryAttempts: {
    messageIdentification: string;
    endpoint: string;
    httpStatus: number | null;
    outcome: string;
  }[];
  readonly [field: string]: unknown;
}

export interface QueueView {
  depth: number;
  byWindow: Record<string, number>;
  awaitingStatusReport: number;
}

export interface EndToEnd {
  readonly pipeline: Pipeline;
  /** The Kafka, schema registry and MongoDB the pipeline runs on. */
  readonly endpoints: PipelineEndpoints;
  /** The bank simulator: what every bank received, faults to inject. */
  readonly bank: BankSimulatorClient;
  /** POSTs a JSON body to the ingress's bank-facing API (`path` below `/api/v1`). */
  post(path: string, body: string, headers?: Record<string, string>): Promise<Response>;
  /** An on-us debit of the default bank, collected today, sent as `outboundDirectDebit`. */
  sendDebit(options?: SampleDebitOptions): Promise<SentDebit>;
  /**
   * A credit transfer authorisation for a customer of the default bank, sent by the clearing house as
   * `inboundCreditTransferAuthorization` with its bearer token (`token: null` sends none).
   */
  sendCredit(options?: SampleCreditOptions & { token?: string | null }): Promise<SentDebit>;
  /** An inbound off-us debit on a default bank's account, sent by the clearing house with its token. */
  sendOffUsDebit(options?: SampleDebitOptions): Promise<SentDebit>;
  /**
   * A call on a service's admin API as an operator: reads with an `operator.read` token, anything else
   * with an `operator.replay` one (a test that passes its own Authorization keeps it).
   */
  admin(service: PipelineService, path: string, init?: RequestInit): Promise<Response>;
  /** The scheduler's view of today's windows (`GET /admin/windows`). */
  windows(): Promise<WindowsView>;
  /**
   * Declares credits final and opens today's debit window (the scheduler's admin trigger); answers the
   * windows' state. From then on each new business day's window is opened too, as an operator would:
   * a test running past midnight in Johannesburg finds the window open on the new day as well.
   */
  openDebitWindow(): Promise<WindowsView>;
  /** Closes today's reconciliation window; answers the scheduler's summary. */
  closeReconciliationWindow(): Promise<unknown>;
  /**
   * Takes today's reconciliation close back, as if it had not run: its record removed from the store and
   * the scheduler restarted (it reads the closes at start). A day whose reconciliation window closed keeps
   * its debit window closed; this is a suite's stand-in for a new business day, so that tests after one
   * that closed the window can open it again. The items raised stay.
   */
  forgetReconciliationClose(): Promise<void>;
  /** The reconciliation items of today's window. */
  reconciliationItems(): Promise<ReconciliationEntry[]>;
  /** The scheduler's view of the debit queue (`GET /admin/queue`). */
  queue(): Promise<QueueView>;
  /** The tracker's snapshot of a transaction, or null. */
  transaction(uetr: string): Promise<Snapshot | null>;
  /** Polls the tracker's snapshot until `accept` holds (deadline `timeoutMs`); answers the snapshot. */
  waitForTransaction(
    uetr: string,
    accept: (snapshot: Snapshot) => boolean,
    what: string,
    timeoutMs?: number,
  ): Promise<Snapshot>;
  /** The TRANSACTION_STATE types the initiating bank received for a transaction, in arrival order. */
  eventTypes(uetr: string): Promise<string[]>;
  /**
   * Waits (the bank simulator's long poll) until the bank received the TRANSACTION_STATE posting of
   * `type` for the transaction; answers the transaction's TRANSACTION_STATE types so far.
   */
  waitForEvent(uetr: string, type: string, timeoutMs?: number): Promise<string[]>;
  /** The value of a counter or gauge on a service's (or any URL's) `/metrics`, 0 when absent. */
  metric(target: PipelineService | string, name: string, labels?: Record<string, string>): Promise<number>;
  /** Stops a service (SIGTERM) and starts it again on the same port; waits until it is ready. */
  restart(service: PipelineService): Promise<void>;
  stop(): Promise<void>;
}

/** The parts of the scheduler's `GET /admin/windows` the tests read. */
export interface WindowsView {
  businessDate: string;
  debitWindow: {
    state: string;
    creditsFinalised: boolean;
    creditsFinalisedBy?: string;
    creditsInFlight?: number;
  };
}

export interface ReconciliationEntry {
  readonly uetr: string;
  readonly row: number;
  readonly code: string;
  readonly text: string;
  readonly stateAtClose: string;
  readonly [field: string]: unknown;
}

async function json(response: Response, what: string): Promise<unknown> {
  const text = await response.text();
  if (!response.ok) throw new Error(`${what}: HTTP ${response.status} ${text}`);
  return text.length > 0 ? JSON.parse(text) : null;
}

/**
 * POSTs an operator's trigger; a 503 (the store or the broker did not answer in time: retry later) is
 * sent again until it is answered, for at most `timeoutMs`. Both triggers are idempotent.
 */
async function adminPost(
  admin: (path: string, init: RequestInit) => Promise<Response>,
  path: string,
  what: string,
  timeoutMs = 5 * 60_000,
): Promise<unknown> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const response = await admin(path, { method: 'POST' });
    if (response.status !== 503 || Date.now() >= deadline) return json(response, what);
    await response.arrayBuffer();
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

/**
 * Polls `probe` until it answers something other than undefined; fails after `timeoutMs` with `what`.
 * For conditions that have no long poll of their own (the tracker's snapshot, a process's metrics).
 */
export async function waitUntil<T>(
  probe: () => Promise<T | undefined>,
  what: string,
  timeoutMs = 60_000,
  intervalMs = 150,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (error) {
      last = error;
    }
    if (Date.now() >= deadline) {
      throw new Error(
        `timed out after ${timeoutMs} ms waiting for ${what}${last ? `: ${String(last)}` : ''}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/** Runs `work` over `items` with at most `limit` in flight; results in input order. */
export async function mapBounded<T, R>(
  items: readonly T[],
  limit: number,
  work: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next;
      next += 1;
      results[index] = await work(items[index] as T, index);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  return results;
}

/**
 * An access token that looks like the simulated identity provider's (its issuer, the client as subject,
 * valid for 5 minutes) but is signed by a key nobody published: every API must refuse it.
 */
export async function forgedToken(
  e2e: EndToEnd,
  clientId: string,
  claims: { audience?: string; scope?: string } = {},
): Promise<string> {
  const strangerKey = (await generateKeyPair('ES256')).privateKey;
  return new SignJWT({ client_id: clientId, ...(claims.scope === undefined ? {} : { scope: claims.scope }) })
    .setProtectedHeader({ alg: 'ES256', kid: 'forged' })
    .setIssuer(`${e2e.pipeline.url('bank-simulator')}/oauth2`)
    .setSubject(clientId)
    .setAudience(claims.audience ?? 'regulated-payments')
    .setIssuedAt()
    .setExpirationTime('5m')
    .sign(strangerKey);
}

/** The body of a message the bank simulator recorded; fails when there is none. */
export function bodyOf<T>(message: { body: unknown } | undefined, what = 'message'): T {
  if (message === undefined) throw new Error(`expected a ${what}, found none`);
  return message.body as T;
}

export function transactionStateTypes(postings: readonly ReceivedPosting[]): string[] {
  return postings.flatMap((entry) =>
    entry.posting.class === 'TRANSACTION_STATE' ? [entry.posting.type as string] : [],
  );
}

/** The value of one sample of a Prometheus text exposition, 0 when absent. */
export function metricValue(text: string, name: string, labels: Record<string, string> = {}): number {
  let total = 0;
  let found = false;
  for (const line of text.split('\n')) {
    if (!line.startsWith(name)) continue;
    const match = /^([A-Za-z_:][\w:]*)(\{([^}]*)\})?\s+(\S+)/.exec(line);
    if (!match || match[1] !== name) continue;
    const present = new Map(
      [...(match[3] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((pair) => [pair[1], pair[2]]),
    );
    if (Object.entries(labels).every(([key, value]) => present.get(key) === value)) {
      total += Number(match[4]);
      found = true;
    }
  }
  return found ? total : 0;
}

/** The ingress routes banks call (the clearing house's take its own token). */
const bankRoutes = new Set([
  'outbound/direct-debit',
  'inbound/direct-debit-response',
  'inbound/credit-transfer-authorization-response',
]);

/** The member id a message names as its instructing agent; Baobab's when the body says none. */
function instructingBank(body: string): string {
  try {
    const memberId = (JSON.parse(body) as { instructingAgent?: { memberId?: unknown } }).instructingAgent
      ?.memberId;
    return typeof memberId === 'string' ? memberId : defaultBank.memberId;
  } catch {
    return defaultBank.memberId;
  }
}

/** The whole pipeline as processes on this test run's infrastructure, with test windows. */
export async function startEndToEnd(
  options: Partial<Omit<LaunchOptions, 'root' | 'endpoints'>> = {},
): Promise<EndToEnd> {
  const endpoints = await infra();
  const pipeline = await launchPipeline({
    // A name with the test run's mark: what a test that dies before its stop leaves, the run drops.
    run: uniqueName('pl'),
    ...options,
    root,
    endpoints,
    env: { RESPONSE_DELAY: '20ms', ...testWindows, ...options.env },
    serviceEnv: {
      ...options.serviceEnv,
      dispatcher: { ...testDispatcherEnv, ...options.serviceEnv?.dispatcher },
    },
  });
  runningLogDirs.add(pipeline.logDir);
  // A window a test opened stays open across midnight in Johannesburg (see DebitWindowKeeper).
  const keeper = pipelineWindowKeeper(pipeline, (line) => console.log(`pipeline ${pipeline.run}: ${line}`));
  const stopKeeper = keeper.every(1_000);
  const bank = new BankSimulatorClient(pipeline.url('bank-simulator'));
  const simulator = pipeline.url('bank-simulator');
  // A bank's calls carry its access token, as a bank's do: the bank the message names as its instructing
  // agent (Baobab for a body that is not JSON). A test that passes its own Authorization keeps it.
  const post = async (path: string, body: string, headers: Record<string, string> = {}) => {
    const route = path.replace(/^\/+/, '');
    const authorization =
      bankRoutes.has(route) && !Object.keys(headers).some((name) => name.toLowerCase() === 'authorization')
        ? { authorization: await pipeline.bankAuthorization(instructingBank(body)) }
        : {};
    return fetch(`${pipeline.apiUrl}/${route}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...authorization, ...headers },
      body,
    });
  };
  const admin = async (service: PipelineService, path: string, init: RequestInit = {}) => {
    const headers = new Headers(init.headers);
    if (!headers.has('authorization')) {
      const method = (init.method ?? 'GET').toUpperCase();
      const role = method === 'GET' || method === 'HEAD' ? 'operator.read' : 'operator.replay';
      headers.set('authorization', await pipeline.operatorAuthorization(role));
    }
    const response = await fetch(`${pipeline.url(service)}${path}`, { ...init, headers });
    await checkAgainstAdminDocument(service, init.method ?? 'GET', path, response);
    return response;
  };
  const onScheduler = (path: string, init: RequestInit) => admin('scheduler', path, init);
  const transaction = async (uetr: string) => {
    const response = await admin('tracker', `/admin/transactions/${uetr}`);
    if (response.status === 404) {
      await response.arrayBuffer();
      return null;
    }
    return (await json(response, `transaction ${uetr}`)) as Snapshot;
  };
  const eventTypes = async (uetr: string) => transactionStateTypes(await bank.postings(uetr));
  const restart = async (service: PipelineService) => {
    await pipeline.kill(service, 'SIGTERM');
    await pipeline.start(service);
  };

  const schedulerWindows = async () =>
    (await json(await admin('scheduler', '/admin/windows'), 'windows')) as WindowsView;
  runningSchedulers.add(schedulerWindows);
  return {
    pipeline,
    endpoints,
    bank,
    post,
    async sendDebit(debitOptions = {}) {
      const sample = sampleOnUsDebit(root, debitOptions);
      const response = await post('outbound/direct-debit', sample.body);
      return {
        uetr: sample.uetr,
        messageIdentification: sample.messageIdentification,
        response,
        body: sample.body,
      };
    },
    async sendCredit({ token, ...creditOptions } = {}) {
      const sample = sampleCredit(root, creditOptions);
      const bearer = token === undefined ? pipeline.scheme.token : token;
      const response = await post(
        'inbound/credit-transfer-authorization',
        sample.body,
        bearer === null ? {} : { authorization: `Bearer ${bearer}` },
      );
      return {
        uetr: sample.uetr,
        messageIdentification: sample.messageIdentification,
        response,
        body: sample.body,
      };
    },
    async sendOffUsDebit(debitOptions = {}) {
      const sample = sampleOffUsDebit(root, debitOptions);
      const response = await post('inbound/direct-debit', sample.body, {
        authorization: `Bearer ${pipeline.scheme.token}`,
      });
      return {
        uetr: sample.uetr,
        messageIdentification: sample.messageIdentification,
        response,
        body: sample.body,
      };
    },
    admin,
    windows: schedulerWindows,
    async openDebitWindow() {
      const answer = (await adminPost(
        onScheduler,
        '/admin/windows/debit/open',
        'open debit window',
      )) as WindowsView;
      keeper.opened(answer.businessDate);
      return answer;
    },
    closeReconciliationWindow: () =>
      adminPost(onScheduler, '/admin/windows/reconciliation/close', 'close reconciliation window'),
    async forgetReconciliationClose() {
      const mongo = new MongoClient(endpoints.mongodbUri);
      try {
        await mongo
          .db(pipeline.database)
          .collection<{ _id: string }>(collectionNames.reconciliationCloses)
          .deleteOne({ _id: johannesburgDate() });
      } finally {
        await mongo.close();
      }
      await restart('scheduler');
    },
    async reconciliationItems() {
      const items: ReconciliationEntry[] = [];
      let after: string | undefined;
      for (;;) {
        const query = new URLSearchParams({ window: johannesburgDate() });
        if (after) query.set('after', after);
        const page = (await json(
          await admin('scheduler', `/admin/reconciliation?${query}`),
          'reconciliation items',
        )) as { items: ReconciliationEntry[]; next?: string | null };
        items.push(...page.items);
        if (!page.next) return items;
        after = page.next;
      }
    },
    queue: async () => (await json(await admin('scheduler', '/admin/queue'), 'debit queue')) as QueueView,
    transaction,
    waitForTransaction: (uetr, accept, what, timeoutMs = 60_000) =>
      waitUntil(
        async () => {
          const snapshot = await transaction(uetr);
          return snapshot !== null && accept(snapshot) ? snapshot : undefined;
        },
        `${uetr}: ${what}`,
        timeoutMs,
      ),
    eventTypes,
    async waitForEvent(uetr, type, timeoutMs = 60_000) {
      const deadline = Date.now() + timeoutMs;
      let seen: ReceivedPosting[] = [];
      for (;;) {
        const types = transactionStateTypes(seen);
        if (types.includes(type)) return types;
        const remaining = deadline - Date.now();
        if (remaining <= 0) {
          throw new Error(`${uetr}: no ${type} posting within ${timeoutMs} ms; received ${types.join(', ')}`);
        }
        const query = new URLSearchParams({
          uetr,
          count: String(seen.length + 1),
          timeoutMs: String(Math.min(remaining, 60_000)),
        });
        const answer = (await json(
          await fetch(`${simulator}/sim/postings/wait?${query}`, {
            signal: AbortSignal.timeout(Math.min(remaining, 60_000) + 5_000),
          }),
          'postings long poll',
        )) as { postings: ReceivedPosting[] };
        seen = answer.postings;
      }
    },
    async metric(target, name, labels = {}) {
      const base = target.startsWith('http') ? target : pipeline.url(target as PipelineService);
      const response = await fetch(`${base}/metrics`);
      return metricValue(await response.text(), name, labels);
    },
    restart,
    async stop() {
      stopKeeper();
      runningSchedulers.delete(schedulerWindows);
      await stopAndDrop(pipeline);
      runningLogDirs.delete(pipeline.logDir);
    },
  };
}

/**
 * A TCP proxy a test can cut: a service pointed at it reaches the target until `cut()` closes the
 * listener and every connection (the target is then unreachable for it: connections refused), and again
 * after `restore()`. For a MongoDB server that is not a replica set, the driver talks to the address in
 * its URI only, so a proxy in front of it cuts one process off MongoDB while every other keeps it.
 */
export class TcpProxy {
  readonly #targetHost: string;
  readonly #targetPort: number;
  readonly #sockets = new Set<Socket>();
  #server: Server | undefined;
  #port = 0;

  constructor(target: { host: string; port: number }) {
    this.#targetHost = target.host;
    this.#targetPort = target.port;
  }

  get port(): number {
    return this.#port;
  }

  /** Listens (on a free port the first time, on the same port after a cut). */
  async start(): Promise<number> {
    const server = createServer((client) => {
      const upstream = tcpConnect(this.#targetPort, this.#targetHost);
      for (const socket of [client, upstream]) {
        this.#sockets.add(socket);
        socket.on('close', () => this.#sockets.delete(socket));
        socket.on('error', () => {
          client.destroy();
          upstream.destroy();
        });
      }
      client.pipe(upstream);
      upstream.pipe(client);
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.#port, '127.0.0.1', () => resolve());
    });
    const address = server.address();
    this.#port = typeof address === 'object' && address ? address.port : 0;
    this.#server = server;
    return this.#port;
  }

  /** Refuses new connections and breaks the open ones. */
  async cut(): Promise<void> {
    const server = this.#server;
    this.#server = undefined;
    for (const socket of this.#sockets) socket.destroy();
    this.#sockets.clear();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  async restore(): Promise<void> {
    if (!this.#server) await this.start();
  }

  stop(): Promise<void> {
    return this.cut();
  }
}

/** The host and port of a single-host `mongodb://` URI, and the same URI pointed at another port. */
export function mongoTarget(uri: string): { host: string; port: number; via(port: number): string } {
  const url = new URL(uri);
  if (url.protocol !== 'mongodb:' || url.host.includes(',')) {
    throw new Error(`a single-host mongodb:// URI is needed to proxy MongoDB, not ${url.protocol}`);
  }
  const host = url.hostname;
  const port = Number(url.port || '27017');
  return {
    host,
    port,
    via(proxyPort) {
      const proxied = new URL(uri);
      proxied.hostname = '127.0.0.1';
      proxied.port = String(proxyPort);
      proxied.searchParams.set('directConnection', 'true');
      return proxied.toString();
    },
  };
}

const adminServices: ReadonlySet<string> = new Set<AdminService>(['tracker', 'scheduler', 'event-publisher']);

/**
 * Holds every answer of a service's admin API to the operators' OpenAPI document
 * (packages/contracts/openapi/admin.yaml): an answer it does not describe (an undocumented status, media
 * type or member) fails the test that made the call. The caller reads the response as before.
 */
export async function checkAgainstAdminDocument(
  service: PipelineService,
  method: string,
  path: string,
  response: Response,
): Promise<void> {
  if (!adminServices.has(service) || !path.startsWith('/admin')) return;
  const { problems } = await checkAdminAnswer(service as AdminService, method, path, response);
  if (problems.length > 0) {
    throw new Error(`the admin API answered otherwise than its document says:\n  ${problems.join('\n  ')}`);
  }
}
