import { checkAdminAnswer, type DirectDebit, schedulerAdmin } from '@rp/contracts';
import { originHeader, schemeOrigin } from '@rp/pipeline';
import { createLogger, jwtOperatorAuthenticator, ManualClock } from '@rp/runtime';
import { connectStore } from '@rp/store';
import { infra } from '@rp/testkit';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createSchedulerService, type SchedulerDeps, type SchedulerService } from '../src/service.ts';
import type { WindowStatus } from '../src/window-state.ts';
import { defaultWindowSettings } from '../src/windows.ts';
import {
  debit,
  operatorIdentity,
  recordSnapshot,
  type SchedulerStack,
  schedulerStack,
  uetrOf,
} from './fixtures.ts';

// The scheduler's admin API against its OpenAPI description (packages/contracts/src/docs/admin/scheduler.ts):
// every route it registers is documented, and every answer it gives here is one the document describes.

const logger = createLogger({
  service: 'scheduler-admin-contract',
  level: (process.env.TEST_LOG_LEVEL as 'warn' | undefined) ?? 'warn',
});
const monday = '2026-11-23';
const tuesday = '2026-11-24';
const friday = '2026-11-20';
const sast = (local: string) => new Date(`${local}+02:00`);
const clock = new ManualClock(sast(`${monday}T07:00:00`));
const windows = { ...defaultWindowSettings, creditsFinalisedAt: '07:30' };

let stack: SchedulerStack;
let service: SchedulerService;
/** A scheduler that is not started, on a store that is closed: its admin routes find the store gone. */
let storeGone: SchedulerService;
/** A scheduler whose identity provider cannot be reached for its keys. */
let keysGone: SchedulerService;
let alice: string;
let bob: string;

type App = SchedulerService['app'];
interface Answer<T> {
  status: number;
  headers: Headers;
  body: T;
}

/** `METHOD path-template status` of every answer checked against the document. */
const answered = new Set<string>();

/**
 * Calls the scheduler's admin API (as ops-alice, who may act, unless `token` says otherwise) and expects
 * the answer to be one the admin document describes: status, media type and body.
 */
async function call<T = Record<string, unknown>>(
  method: 'GET' | 'POST',
  path: string,
  options: { token?: string | null; app?: App } = {},
): Promise<Answer<T>> {
  const token = options.token === undefined ? alice : options.token;
  const response = await (options.app ?? service.app).request(path, {
    method,
    headers: token === null ? {} : { authorization: token },
  });
  const { body, problems } = await checkAdminAnswer('scheduler', method, path, response);
  expect(problems, `${method} ${path} answered ${response.status}: ${JSON.stringify(body)}`).toEqual([]);
  answered.add(`${method} ${path.split('?')[0]} ${response.status}`);
  return { status: response.status, headers: response.headers, body: body as T };
}

/** Polls `read` until `done` holds of its result (the service gets there on its own), failing at the deadline. */
async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline)
      throw new Error(`condition not reached within ${timeoutMs} ms: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

interface QueueView {
  depth: number;
  byWindow: Record<string, number>;
  awaitingStatusReport: number;
}

interface Problem {
  code: string;
  errors?: { pointer: string; detail: string }[];
}

interface ReconciliationPage {
  windowId: string;
  open: number;
  items: { uetr: string; row: number; code: string; status: string }[];
  next?: string;
}

beforeAll(async () => {
  stack = await schedulerStack('scheduler-admin');
  const identity = await operatorIdentity();
  alice = await identity.token('ops-alice', 'operator.read operator.replay');
  bob = await identity.token('ops-bob', 'operator.read');
  const deps = (overrides: Partial<SchedulerDeps>): SchedulerDeps => ({
    kafka: stack.kafka,
    names: stack.names,
    codecs: stack.codecs,
    producer: stack.producer,
    store: stack.store,
    windows,
    logger,
    clock,
    options: { tickIntervalMs: 0, acceptedHoldMs: 0, operatorAuth: identity.authenticator },
    ...overrides,
  });
  service = createSchedulerService(deps({}));
  await service.start();

  const closed = await connectStore({
    uri: (await infra()).mongodbUri,
    database: stack.store.databaseName,
    appName: 'scheduler-admin-gone',
  });
  await closed.close();
  // The 5xx these two answer are expected: their logs are left out.
  const quiet = createLogger({ service: 'scheduler-admin-contract', level: 'silent' });
  storeGone = createSchedulerService(deps({ store: closed, logger: quiet }));
  keysGone = createSchedulerService(
    deps({
      logger: quiet,
      options: {
        tickIntervalMs: 0,
        // Nothing listens on port 9 of this host: the keys cannot be fetched.
        operatorAuth: jwtOperatorAuthenticator({
          jwks: new URL('http://127.0.0.1:9/jwks.json'),
          issuer: identity.issuer,
          audience: identity.audience,
        }),
      },
    }),
  );
});

afterAll(async () => {
  await service?.stop();
  await stack?.close();
});

describe("the scheduler's admin API and its document", () => {
  test('the routes the scheduler registers under /admin are the operations the document describes', () => {
    const registered = service.app.routes
      .filter(
        (route) => (route.method === 'GET' || route.method === 'POST') && route.path.startsWith('/admin'),
      )
      .map((route) => `${route.method} ${route.path.replace(/:([A-Za-z0-9_]+)/g, '{$1}')}`);
    const documented = schedulerAdmin.operations.map(
      (operation) => `${operation.method.toUpperCase()} ${operation.path}`,
    );
    expect(registered.length).toBeGreaterThan(0);
    expect([...new Set(registered)].sort()).toEqual([...documented].sort());
    expect(new Set(schedulerAdmin.operations.map((operation) => operation.operationId)).size).toBe(
      documented.length,
    );
    for (const operation of schedulerAdmin.operations) expect(operation.operationId).toMatch(/^admin[A-Z]/);
    for (const name of Object.keys(schedulerAdmin.schemas)) expect(name).toMatch(/^Scheduler[A-Z]/);
  });

  test("today's windows before the debit window opens", async () => {
    const { status, body } = await call<WindowStatus>('GET', '/admin/windows');
    expect(status).toBe(200);
    expect(body).toMatchObject({
      businessDate: monday,
      timeZone: 'Africa/Johannesburg',
      isBusinessDay: true,
      nextBusinessDate: tuesday,
      debitWindow: { state: 'before-open', opensAt: '2026-11-23T06:00:00.000Z' },
      reconciliationWindow: { closed: false },
    });
  });

  const queued = debit({ creditorAgent: '250655', collectionDate: monday });
  const awaiting = debit({ creditorAgent: '632005', collectionDate: monday });

  test('the queue: a debit queued for today and one awaiting its status report', async () => {
    // From a clearing house: ready at once. On-us, with no acknowledgement of its status report: awaiting.
    await stack.input.send('rp.directdebit.accepted.v1', [
      {
        key: uetrOf(queued),
        value: queued,
        headers: { 'rp-state': 'DEBIT_ACCEPTED', [originHeader]: schemeOrigin },
      },
      { key: uetrOf(awaiting), value: awaiting, headers: { 'rp-state': 'DEBIT_ACCEPTED' } },
    ]);
    const view = await until(
      async () => (await call<QueueView>('GET', '/admin/queue')).body,
      (candidate) => candidate.byWindow[monday] === 1 && candidate.awaitingStatusReport === 1,
    );
    expect(view).toEqual({ depth: 1, byWindow: { [monday]: 1, [tuesday]: 0 }, awaitingStatusReport: 1 });
  });

  test("an operator opens today's debit window: its queued debits are released before the answer; audited", async () => {
    const { status, body } = await call<WindowStatus>('POST', '/admin/windows/debit/open');
    expect(status).toBe(200);
    expect(body.debitWindow).toMatchObject({
      state: 'open',
      override: 'open',
      creditsFinalised: true,
      creditsFinalisedBy: 'operator',
    });
    const view = await call<QueueView>('GET', '/admin/queue');
    expect(view.body).toEqual({ depth: 0, byWindow: { [monday]: 0, [tuesday]: 0 }, awaitingStatusReport: 1 });
    expect(await stack.store.audit.list({ action: 'window.debit.open', limit: 10 })).toEqual([
      expect.objectContaining({ actor: 'ops-alice', target: `debit window ${monday}` }),
    ]);
  });

  test('an operator closes it for the rest of the day; audited', async () => {
    const { status, body } = await call<WindowStatus>('POST', '/admin/windows/debit/close');
    expect(status).toBe(200);
    expect(body.debitWindow).toMatchObject({ state: 'closed', override: 'closed' });
    expect(await stack.store.audit.list({ action: 'window.debit.close', limit: 10 })).toEqual([
      expect.objectContaining({ actor: 'ops-alice', target: `debit window ${monday}` }),
    ]);
  });

  const unresolved: DirectDebit[] = [debit(), debit(), debit()];

  test("an operator closes today's reconciliation window: one item per unresolved transaction, none twice", async () => {
    for (const value of unresolved)
      await recordSnapshot(stack.store, value, ['DEBIT_RECEIVED'], sast(`${monday}T06:00:00`));
    const first = await call('POST', '/admin/windows/reconciliation/close');
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({
      windowId: monday,
      window: { businessDate: monday, closesAt: clock.now().toISOString() },
      raised: 3,
      alreadyRaised: 0,
      waiting: 0,
      byRow: { '4': 3 },
    });
    const closedAt = clock.now().toISOString();
    clock.advance(1_000);
    const again = await call('POST', '/admin/windows/reconciliation/close');
    expect(again.body).toMatchObject({ raised: 0, alreadyRaised: 3, byRow: {} });
    // Newest first.
    const audited = await stack.store.audit.list({ action: 'window.reconciliation.close', limit: 10 });
    expect(audited.map((entry) => [entry.actor, entry.detail])).toEqual([
      ['ops-alice', { raised: 0, alreadyRaised: 3, waiting: 0 }],
      ['ops-alice', { raised: 3, alreadyRaised: 0, waiting: 0 }],
    ]);
    // Closed at the first close.
    const status = await call<WindowStatus>('GET', '/admin/windows');
    expect(status.body.reconciliationWindow).toMatchObject({ closed: true, closedAt });
    expect(status.body.debitWindow.state).toBe('closed');
  });

  test('once it has closed, the debit window cannot be opened again: 409, nothing kept or audited', async () => {
    const overrides = await stack.store.windowOverrides.recent(5);
    const opens = await stack.store.audit.list({ action: 'window.debit.open', limit: 10 });
    const refused = await call<{ status: number; detail: string }>('POST', '/admin/windows/debit/open');
    expect(refused.status).toBe(409);
    expect(refused.body.detail).toContain(`The reconciliation window of ${monday} closed at`);
    expect(await stack.store.windowOverrides.recent(5)).toEqual(overrides);
    expect(await stack.store.audit.list({ action: 'window.debit.open', limit: 10 })).toEqual(opens);
    const status = await call<WindowStatus>('GET', '/admin/windows');
    expect(status.body.debitWindow).toMatchObject({ state: 'closed', override: 'closed' });
  });

  test('the reconciliation report as JSON, a page at a time', async () => {
    const expected = unresolved.map(uetrOf).sort();
    const all = await call<ReconciliationPage>('GET', '/admin/reconciliation');
    expect(all.status).toBe(200);
    expect(all.body).toMatchObject({ windowId: monday, open: 3 });
    expect(all.body.items.map((item) => item.uetr)).toEqual(expected);
    expect(all.body.next).toBeUndefined();
    expect(all.body.items[0]).toMatchObject({ row: 4, code: 'STATUS_REPORT_NOT_SENT', status: 'open' });

    const first = await call<ReconciliationPage>('GET', `/admin/reconciliation?window=${monday}&limit=2`);
    expect(first.body.items.map((item) => item.uetr)).toEqual(expected.slice(0, 2));
    expect(first.body.next).toBe(expected[1]);
    const rest = await call<ReconciliationPage>(
      'GET',
      `/admin/reconciliation?window=${monday}&limit=2&after=${first.body.next}`,
    );
    expect(rest.body.items.map((item) => item.uetr)).toEqual(expected.slice(2));
    expect(rest.body.next).toBeUndefined();

    const empty = await call<ReconciliationPage>('GET', `/admin/reconciliation?window=${friday}`);
    expect(empty.body).toMatchObject({ windowId: friday, open: 0, items: [] });
  });

  test('the reconciliation report as CSV', async () => {
    const { status, headers, body } = await call<string>(
      'GET',
      `/admin/reconciliation/report.csv?window=${monday}`,
    );
    expect(status).toBe(200);
    expect(headers.get('content-disposition')).toBe(`attachment; filename="reconciliation-${monday}.csv"`);
    const lines = body.split('\r\n');
    expect(lines.at(-1)).toBe('');
    expect(lines[0]).toBe('windowId,uetr,row,code,stateAtClose,status,createdAt,resolvedAt,resolution,text');
    expect(lines.slice(1, -1).map((line) => line.split(',').slice(0, 6).join(','))).toEqual(
      unresolved
        .map(uetrOf)
        .sort()
        .map((uetr) => `${monday},${uetr},4,STATUS_REPORT_NOT_SENT,DEBIT_RECEIVED,open`),
    );
    const empty = await call<string>('GET', `/admin/reconciliation/report.csv?window=${friday}`);
    expect(empty.body.split('\r\n')).toHaveLength(2);
  });

  test.each([
    ['/admin/reconciliation?window=yesterday', '/window'],
    ['/admin/reconciliation?window=2026-02-30', '/window'],
    ['/admin/reconciliation?limit=0', '/limit'],
    ['/admin/reconciliation?limit=1001', '/limit'],
    ['/admin/reconciliation?limit=1.5', '/limit'],
    ['/admin/reconciliation?limit=', '/limit'],
    ['/admin/reconciliation/report.csv?window=23-11-2026', '/window'],
  ])('GET %s is a 422 naming %s', async (path, pointer) => {
    const { status, body } = await call<Problem>('GET', path);
    expect(status).toBe(422);
    expect(body.code).toBe('VALIDATION_FAILED');
    expect(body.errors?.map((error) => error.pointer)).toEqual([pointer]);
  });

  test("an operator closes a past business day's window: at its scheduled close, its transactions as they stood then", async () => {
    clock.advance(1_000); // audited after the closes before it
    const before = debit();
    const after = debit();
    await recordSnapshot(stack.store, before, ['DEBIT_RECEIVED'], sast(`${friday}T12:00:00`));
    await recordSnapshot(stack.store, after, ['DEBIT_RECEIVED'], sast(`${friday}T18:30:00`));
    const { status, body } = await call('POST', `/admin/windows/reconciliation/close?window=${friday}`);
    expect(status).toBe(200);
    expect(body).toMatchObject({
      windowId: friday,
      window: { businessDate: friday, closesAt: '2026-11-20T16:00:00.000Z' },
      raised: 1,
      byRow: { '4': 1 },
    });
    const items = await call<ReconciliationPage>('GET', `/admin/reconciliation?window=${friday}`);
    expect(items.body.items.map((item) => item.uetr)).toEqual([uetrOf(before)]);
    const [audited] = await stack.store.audit.list({ action: 'window.reconciliation.close', limit: 1 });
    expect(audited).toMatchObject({ actor: 'ops-alice', target: `reconciliation window ${friday}` });
    // Kept beside today's, closed at its scheduled instant.
    expect((await stack.store.reconciliationCloses.recent(5)).map((close) => close.businessDate)).toEqual([
      monday,
      friday,
    ]);
    expect((await stack.store.reconciliationCloses.recent(5))[1]).toMatchObject({
      closedAt: new Date('2026-11-20T16:00:00.000Z'),
      runs: 1,
      raised: 1,
    });
  });

  test.each([
    ['2026-11-24', 'after today'],
    ['2026-11-22', 'not a business day'],
    ['yesterday', 'YYYY-MM-DD'],
  ])(
    'POST a reconciliation close of %s is a 422 naming /window (%s), and closes nothing',
    async (date, detail) => {
      const closes = await stack.store.reconciliationCloses.recent(5);
      const { status, body } = await call<Problem & { errors: { detail: string }[] }>(
        'POST',
        `/admin/windows/reconciliation/close?window=${date}`,
      );
      expect(status).toBe(422);
      expect(body.code).toBe('VALIDATION_FAILED');
      expect(body.errors.map((error) => error.pointer)).toEqual(['/window']);
      expect(body.errors[0]?.detail).toContain(detail);
      expect(await stack.store.reconciliationCloses.recent(5)).toEqual(closes);
    },
  );

  test('without a token, 401; a read-only operator may not act, 403', async () => {
    expect((await call('GET', '/admin/queue', { token: null })).status).toBe(401);
    expect((await call('POST', '/admin/windows/debit/open', { token: bob })).status).toBe(403);
  });

  test("the identity provider's keys cannot be fetched: 503 with Retry-After", async () => {
    const { status, headers } = await call('GET', '/admin/windows', { app: keysGone.app });
    expect(status).toBe(503);
    expect(headers.get('retry-after')).toBe('5');
  });

  test.each([
    ['GET', '/admin/windows'],
    ['GET', '/admin/queue'],
    ['GET', `/admin/reconciliation?window=${monday}`],
    ['POST', '/admin/windows/debit/open'],
    ['POST', '/admin/windows/debit/close'],
    ['POST', '/admin/windows/reconciliation/close'],
    ['GET', `/admin/reconciliation/report.csv?window=${monday}`],
  ] as const)('the store is gone: %s %s is a 503 with Retry-After', async (method, path) => {
    const { status, headers, body } = await call<Problem>(method, path, { app: storeGone.app });
    expect(status).toBe(503);
    expect(body.code).toBe('SHUTTING_DOWN');
    expect(headers.get('retry-after')).toBe('5');
  });

  test('every status each operation documents (but 500) was answered above', () => {
    const documented = schedulerAdmin.operations.flatMap((operation) =>
      Object.keys(operation.responses)
        .filter((status) => status !== '500')
        .map((status) => `${operation.method.toUpperCase()} ${operation.path} ${status}`),
    );
    expect(documented.filter((entry) => !answered.has(entry))).toEqual([]);
  });
});
