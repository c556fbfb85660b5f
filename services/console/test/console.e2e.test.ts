import { type ChildProcess, spawn } from 'node:child_process';
import { createWriteStream, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkAdminAnswer, completedDebitJourney } from '@rp/contracts';
import {
  anyTimeWindows,
  defaultBank,
  freePort,
  launchPipeline,
  type Pipeline,
  pipelineWindowKeeper,
  sampleOnUsDebit,
  stopAndDrop,
} from '@rp/launcher';
import { infra } from '@rp/testkit';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import './chromium.ts';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const packageDir = fileURLToPath(new URL('..', import.meta.url));
const resultsDir = join(packageDir, '.test-results');

const testWindows = anyTimeWindows;
/** Store-and-forward at test speed (as test/src/pipeline.ts's testDispatcherEnv). */
const testDispatcherEnv = {
  RETRY_TIERS: '250ms,500ms,1s',
  RETRY_BACKOFF_BASE: '200ms',
  RETRY_BACKOFF_MAX: '1s',
  RETRY_AFTER_MAX: '2s',
  BANK_REQUEST_TIMEOUT: '2s',
  BANK_COOLDOWN: '500ms',
};
const debitCount = 3;

/** Polls `probe` until it answers something other than undefined, or fails after `timeoutMs`. */
async function waitUntil<T>(
  probe: () => Promise<T | undefined>,
  what: string,
  timeoutMs = 60_000,
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
    await new Promise((resolve) => setTimeout(resolve, 150));
  }
}

/**
 * A call on the console's API as a read-only operator (the reader's token from the identity provider),
 * its answer held to the operators' OpenAPI document (the console's part) against the real services.
 */
async function consoleApi(path: string): Promise<Response> {
  const response = await fetch(`${consoleUrl}${path}`, {
    headers: { authorization: await pipeline.operatorAuthorization('operator.read') },
  });
  const { problems } = await checkAdminAnswer('console', 'GET', path, response);
  expect(problems, `GET ${path} answered ${response.status}`).toEqual([]);
  return response;
}

async function state(pipeline: Pipeline, uetr: string): Promise<string | undefined> {
  const response = await fetch(`${pipeline.url('tracker')}/admin/transactions/${uetr}`, {
    headers: { authorization: await pipeline.operatorAuthorization('operator.read') },
  });
  if (!response.ok) {
    await response.arrayBuffer();
    return undefined;
  }
  return ((await response.json()) as { state?: string }).state;
}

/** A PNG: the signature, then an IHDR chunk with a width and a height. */
function pngSize(bytes: Buffer): { width: number; height: number } {
  expect(bytes.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
  expect(bytes.subarray(12, 16).toString('ascii')).toBe('IHDR');
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

let pipeline: Pipeline;
let stopKeeper = () => {};
let consoleProcess: ChildProcess | undefined;
let consoleUrl: string;
let browser: Browser | undefined;
let page: Page;
const uetrs: string[] = [];
const endToEndIds: string[] = [];

/** What the page shows, read in the browser (data attributes the page sets as it draws). */
interface Shown {
  status: string | undefined;
  problems: string;
  depth: number | undefined;
  debitWindow: string | undefined;
  stages: Record<string, { total: string; peak: number }>;
  services: Record<string, string>;
  journeyUetr: string | null;
}

function readPage(): Shown {
  const data = (selector: string) => document.querySelector<HTMLElement>(selector)?.dataset ?? {};
  const all = (selector: string) => [...document.querySelectorAll<HTMLElement>(selector)];
  return {
    status: data('#status').status,
    problems: document.querySelector('#problems')?.textContent ?? '',
    depth: data('[data-depth]').depth === undefined ? undefined : Number(data('[data-depth]').depth),
    debitWindow: data('[data-debit-window]').debitWindow,
    stages: Object.fromEntries(
      all('[data-stage]').map((node) => [
        node.dataset.stage,
        { total: node.dataset.total ?? '', peak: Number(node.dataset.peak) },
      ]),
    ),
    services: Object.fromEntries(
      all('#services [data-service]').map((node) => [node.dataset.service, node.dataset.state]),
    ),
    journeyUetr: document.querySelector('#journey-uetr')?.textContent ?? null,
  };
}

/**
 * Polls what the page shows until `accept` holds (deadline `timeoutMs`); on a timeout says what the page
 * showed last. The page is read with evaluate (no string evaluation: the page's CSP forbids eval).
 */
async function waitForPage(
  what: string,
  accept: (shown: Shown) => boolean,
  timeoutMs = 60_000,
): Promise<Shown> {
  let last: Shown | undefined;
  try {
    return await waitUntil(
      async () => {
        last = await page.evaluate(readPage);
        return accept(last) ? last : undefined;
      },
      what,
      timeoutMs,
    );
  } catch (error) {
    throw new Error(`${(error as Error).message}\nthe page shows ${JSON.stringify(last)}`);
  }
}

const total = (shown: Shown, id: string) => {
  const text = shown.stages[id]?.total ?? '';
  return text === '' ? Number.NaN : Number(text);
};

beforeAll(async () => {
  mkdirSync(resultsDir, { recursive: true });
  const endpoints = await infra();
  pipeline = await launchPipeline({
    root,
    endpoints,
    env: { RESPONSE_DELAY: '20ms', ...testWindows },
    serviceEnv: { dispatcher: testDispatcherEnv },
  });

  // The console as its own process, from its sources, pointed at the pipeline.
  const port = await freePort();
  consoleUrl = `http://127.0.0.1:${port}`;
  const log = createWriteStream(join(resultsDir, 'console.log'));
  const child = spawn(process.execPath, ['--conditions=source', join(packageDir, 'src', 'main.ts')], {
    cwd: packageDir,
    // The pipeline's URLs, operators' tokens checked against its identity provider, and the console's
    // own client for its reads of the admin APIs.
    env: {
      ...process.env,
      ...pipeline.consoleEnv(),
      PORT: String(port),
      LOG_LEVEL: 'info',
      UPSTREAM_TIMEOUT: '3s',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  consoleProcess = child;
  child.stdout.pipe(log);
  child.stderr.pipe(log);
  await waitUntil(async () => {
    if (child.exitCode !== null)
      throw new Error(`the console exited with ${child.exitCode}; see console.log`);
    const response = await fetch(`${consoleUrl}/health/ready`, { signal: AbortSignal.timeout(2_000) });
    await response.arrayBuffer();
    return response.ok ? true : undefined;
  }, 'the console to be ready');

  browser = await chromium.launch({ executablePath: inject('chromiumPath'), headless: true });
  page = await browser.newPage({ viewport: { width: 1440, height: 1000 } });
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  await page.goto(`${consoleUrl}/console/`);
  // Signed out, the page shows only the sign-in; a wrong secret is refused there, the reader's client
  // signs in and the page shows who with which role.
  await page.locator('#sign-in-credentials').waitFor({ timeout: 30_000 });
  expect(await page.locator('#main').isHidden()).toBe(true);
  const reader = pipeline.operatorClients.reader;
  await page.fill('#client-id', reader.id);
  await page.fill('#client-secret', 'not-the-secret');
  await page.click('#sign-in-credentials button[type="submit"]');
  await page.locator('#sign-in-message', { hasText: 'Sign-in refused' }).waitFor({ timeout: 30_000 });
  await page.fill('#client-secret', reader.secret);
  await page.click('#sign-in-credentials button[type="submit"]');
  await page.locator('#operator', { hasText: `${reader.id} · operator.read` }).waitFor({ timeout: 30_000 });
  expect(await page.inputValue('#client-secret')).toBe('');
  await waitForPage('every service up', (shown) => shown.status === 'ok');
  // The refused sign-in logged its 401 on the page's console; nothing else went wrong.
  expect(errors.filter((error) => !/status of 401/.test(error))).toEqual([]);
});

afterAll(async () => {
  stopKeeper();
  await browser?.close();
  if (consoleProcess && consoleProcess.exitCode === null) {
    const exited = new Promise((resolve) => consoleProcess?.once('exit', resolve));
    consoleProcess.kill('SIGTERM');
    await exited;
  }
  await stopAndDrop(pipeline);
});

describe('the operations console, on a running pipeline, in a real browser', () => {
  it('shows debits flowing through the stages, the queue and the window, live', async () => {
    // The window is still closed: the debits wait in the queue, and the page shows them there.
    for (let index = 0; index < debitCount; index += 1) {
      const sample = sampleOnUsDebit(root);
      const response = await fetch(`${pipeline.apiUrl}/outbound/direct-debit`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          authorization: await pipeline.bankAuthorization(defaultBank.memberId),
        },
        body: sample.body,
      });
      expect(response.status, await response.text()).toBe(202);
      uetrs.push(sample.uetr);
      const identifiers = sample.debit.transactionIdentifiers as { endToEndIdentification: string };
      endToEndIds.push(identifiers.endToEndIdentification);
    }
    for (const uetr of uetrs) {
      await waitUntil(
        async () => ((await state(pipeline, uetr)) === 'DEBIT_QUEUED' ? true : undefined),
        `${uetr} queued`,
      );
    }
    const queued = await waitForPage(
      'the queued debits',
      (shown) => (shown.depth ?? 0) >= debitCount && shown.debitWindow !== undefined,
    );
    expect(queued.debitWindow).not.toBe('open');

    // Opened, and kept open across midnight in Johannesburg, as an operator would (see DebitWindowKeeper).
    const keeper = pipelineWindowKeeper(pipeline, console.log);
    expect((await keeper.openToday()).debitWindow.state).toBe('open');
    stopKeeper = keeper.every(1_000);
    for (const uetr of uetrs) {
      await waitUntil(
        async () => ((await state(pipeline, uetr)) === 'DEBIT_COMPLETED' ? true : undefined),
        `${uetr} completed`,
        120_000,
      );
    }
    await waitForPage(
      'the open debit window and the emptied queue',
      (shown) => shown.debitWindow === 'open' && shown.depth === 0,
    );

    // Every stage counted the debits, and each was seen moving (a rate above zero between two polls).
    const counted = [
      'received',
      'validated',
      'reports-delivered',
      'queued',
      'released',
      'delivered',
      'completed',
    ];
    const counting = await waitForPage(
      'every stage counting the debits',
      (shown) =>
        total(shown, 'rejected') === 0 &&
        counted.every((id) => total(shown, id) >= debitCount && (shown.stages[id]?.peak ?? 0) > 0),
    );
    for (const id of counted) expect(total(counting, id), id).toBe(debitCount);
    // Each debit's nine states went to the bank as TRANSACTION_STATE postings, plus ESM_STATE postings.
    await waitForPage(
      'the event postings delivered',
      (shown) => total(shown, 'postings-delivered') >= debitCount * completedDebitJourney.length,
    );
    expect(await page.locator('[data-stage="received"] .rate').textContent()).toMatch(/\/s$/);

    // The bank's delivery health: messages acknowledged, nothing parked.
    const bank = page.locator('tr[data-bank="250655"]');
    await bank.waitFor();
    expect(await bank.getAttribute('data-state')).toMatch(/^(healthy|retrying)$/);
    expect(await bank.locator('td').nth(2).textContent()).toMatch(/^[1-9]\d* \/ \d+ \/ 0$/);
    expect(await page.locator('#lanes').textContent()).toContain('Nothing parked.');
    expect(await page.locator('#reconciliation [data-open]').getAttribute('data-open')).toBe('0');
    await waitForPage('every service up after the run', (shown) => shown.status === 'ok');
  });

  it('finds a transaction by UETR and draws its journey, then by endToEndIdentification', async () => {
    const [uetr] = uetrs;
    expect(uetr).toBeDefined();
    // The bank acknowledges the last state's posting a moment after the state: wait for it (the API the
    // page reads says so) before drawing the journey.
    await waitUntil(async () => {
      const response = await consoleApi(`/console/api/transactions/${uetr}`);
      const journey = (await response.json()) as { states: { postings: { outcome: string }[] | null }[] };
      const delivered = journey.states.every(
        (entry) => entry.postings?.some((posting) => posting.outcome === 'delivered') === true,
      );
      return journey.states.length === completedDebitJourney.length && delivered ? true : undefined;
    }, `the postings of ${uetr} delivered`);
    await page.fill('#search-input', uetr as string);
    await page.press('#search-input', 'Enter');
    const completed = page.locator('#timeline li.state[data-event-type="DEBIT_COMPLETED"]');
    await completed.waitFor({ timeout: 30_000 });

    const types = await page
      .locator('#timeline li.state')
      .evaluateAll((nodes) => nodes.map((node) => (node as HTMLElement).dataset.eventType));
    expect(types).toEqual(completedDebitJourney);
    expect(await page.locator('#journey-uetr').textContent()).toBe(uetr);
    expect(await page.locator('#journey-state').textContent()).toBe('DEBIT_COMPLETED');
    // Each state with its time and the service that emitted it.
    const heads = await page.locator('#timeline li.state .state-head').allTextContents();
    expect(heads).toHaveLength(completedDebitJourney.length);
    for (const head of heads) expect(head).toMatch(/^\d{2}:\d{2}:\d{2}\.\d{3}/);
    const services = await page
      .locator('#timeline li.state')
      .evaluateAll((nodes) => nodes.map((node) => (node as HTMLElement).dataset.service));
    expect(services[0]).toBe('ingress');
    expect(services[1]).toBe('validator');
    expect(services).toContain('scheduler');
    expect(services).toContain('dispatcher');
    // The messages, and the delivery attempts with their status codes and latency.
    expect(await page.locator('#timeline li.message[data-kind="DirectDebit"]').count()).toBe(1);
    expect(
      await page.locator('#timeline li.message[data-kind="PaymentStatusReport"]').count(),
    ).toBeGreaterThanOrEqual(2);
    const attempts = page.locator('#timeline li.attempt[data-status="202"]');
    expect(await attempts.count()).toBeGreaterThanOrEqual(2);
    expect(await attempts.first().textContent()).toMatch(/HTTP 202\s*\d+(\.\d)? ms/);
    // The event postings of each state reached the bank.
    expect(await page.locator('#timeline .chip.posting-delivered').count()).toBe(
      completedDebitJourney.length,
    );

    const screenshot = join(resultsDir, 'console.png');
    await page.screenshot({ path: screenshot, fullPage: true });
    const bytes = readFileSync(screenshot);
    expect(bytes.length).toBeGreaterThan(10_000);
    const size = pngSize(bytes);
    expect(size.width).toBe(1440);
    expect(size.height).toBeGreaterThan(1000);

    // By endToEndIdentification: the one match is opened at once.
    const other = uetrs[1] as string;
    await page.fill('#search-input', endToEndIds[1] as string);
    await page.press('#search-input', 'Enter');
    await waitForPage('the journey of the one match', (shown) => shown.journeyUetr === other, 30_000);
    expect(await page.locator('#timeline li.state').count()).toBe(completedDebitJourney.length);

    // An unknown UETR says so.
    await page.fill('#search-input', '00000000-0000-4000-8000-000000000000');
    await page.press('#search-input', 'Enter');
    await page.locator('#search-message', { hasText: 'No transaction' }).waitFor({ timeout: 30_000 });
  });

  it('answers its JSON API with problem+json for bad input', async () => {
    const bad = await consoleApi('/console/api/transactions/not-a-uuid');
    expect(bad.status).toBe(422);
    expect(bad.headers.get('content-type')).toBe('application/problem+json');
    expect(await bad.json()).toMatchObject({
      code: 'VALIDATION_FAILED',
      instance: '/console/api/transactions/not-a-uuid',
    });
    const missing = await consoleApi('/console/api/transactions');
    expect(missing.status).toBe(422);
    expect(missing.headers.get('content-type')).toBe('application/problem+json');
    const unknown = await consoleApi('/console/api/transactions/00000000-0000-4000-8000-000000000000');
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get('content-type')).toBe('application/problem+json');

    const found = (await (
      await consoleApi(`/console/api/transactions?endToEndId=${encodeURIComponent(endToEndIds[0] as string)}`)
    ).json()) as { transactions: { uetr: string; state: string }[] };
    expect(found.transactions).toEqual([
      expect.objectContaining({ uetr: uetrs[0], state: 'DEBIT_COMPLETED' }),
    ]);
  });

  it('says which service does not answer, and still shows the rest', async () => {
    await pipeline.kill('validator', 'SIGKILL');
    // Down, said why; its stages without figures; the ingress's still there.
    const shown = await waitForPage(
      'the validator shown down',
      (view) =>
        view.services.validator === 'down' &&
        view.status === 'degraded' &&
        view.services.ingress === 'up' &&
        total(view, 'received') === debitCount,
    );
    expect(shown.problems).toMatch(/validator: \/metrics/);
    expect(shown.stages.validated?.total).toBe('');
    expect(shown.stages.rejected?.total).toBe('');

    // The API says the same, and only that (the other five answer).
    const overview = await waitUntil(async () => {
      const response = await consoleApi('/console/api/overview');
      expect(response.status).toBe(200);
      const body = (await response.json()) as { status: string; services: { name: string; state: string }[] };
      const states = Object.fromEntries(body.services.map((service) => [service.name, service.state]));
      const othersUp = Object.entries(states).every(
        ([name, state]) => name === 'validator' || state === 'up',
      );
      return states.validator === 'down' && othersUp ? body : undefined;
    }, 'the overview with the validator down and the others up');
    expect(overview.status).toBe('degraded');
    await page.screenshot({ path: join(resultsDir, 'console-degraded.png'), fullPage: true });
  });

  it("lets no one in without an operator's token, and signs out", async () => {
    const cases: [string, Record<string, string>][] = [
      ['no token', {}],
      ["a bank's token", { authorization: await pipeline.bankAuthorization(defaultBank.memberId) }],
    ];
    for (const [name, headers] of cases) {
      const response = await fetch(`${consoleUrl}/console/api/overview`, { headers });
      expect(response.status, name).toBe(401);
      expect(response.headers.get('www-authenticate'), name).toMatch(/^Bearer/);
      const { problems } = await checkAdminAnswer('console', 'GET', '/console/api/overview', response);
      expect(problems, name).toEqual([]);
    }
    expect(await page.evaluate(() => sessionStorage.length)).toBe(1);
    await page.click('#sign-out');
    await page.locator('#sign-in-credentials').waitFor();
    expect(await page.locator('#main').isHidden()).toBe(true);
    expect(await page.evaluate(() => sessionStorage.length)).toBe(0);
    await page.screenshot({ path: join(resultsDir, 'console-sign-in.png') });
  });
});
