import { completedDebitJourney } from '@rp/contracts';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type FakeServices, startFakeServices } from '../test/fake-services.ts';
import { mountConsole } from '../test/mount.ts';
import { sampleDeliveries, sampleMetrics, sampleSnapshot } from '../test/samples.ts';
import { contentSecurityPolicy } from './app.ts';
import { journeyOf } from './transactions.ts';

const uetr = '7d3f1f8e-3b0a-4c55-8d51-2f9c6e4a1b20';
let fake: FakeServices;

beforeEach(async () => {
  fake = await startFakeServices();
  Object.assign(fake.metrics, sampleMetrics(1));
});

afterEach(async () => {
  await fake.close();
});

function consoleApp(timeoutMs = 1_000) {
  return mountConsole({ urls: fake.urls, upstreamTimeoutMs: timeoutMs });
}

async function problem(response: Response) {
  expect(response.headers.get('content-type')).toBe('application/problem+json');
  return (await response.json()) as { status: number; code: string; detail: string; errors?: unknown[] };
}

describe('the page', () => {
  it('serves the HTML, its script and style sheet, under a strict content security policy', async () => {
    const { app } = consoleApp();
    const page = await app.request('/console/');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('content-security-policy')).toBe(contentSecurityPolicy);
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    const html = await page.text();
    expect(html).toContain('<script type="module" src="assets/console.js"></script>');
    expect(html).toContain('id="search-input"');
    // Nothing from another origin, nothing inline.
    expect(html).not.toMatch(/https?:\/\//);
    expect(html).not.toMatch(/<script>|\sstyle="|\son\w+="/);

    const script = await app.request('/console/assets/console.js');
    expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    const code = await script.text();
    expect(code).toContain("getJson('api/overview')");
    expect(code).not.toContain('innerHTML');
    const css = await app.request('/console/assets/console.css');
    expect(css.headers.get('content-type')).toBe('text/css; charset=utf-8');

    expect((await app.request('/')).headers.get('location')).toBe('/console/');
    const missing = await app.request('/console/assets/../../package.json');
    expect(missing.status).toBe(404);
    const unknown = await app.request('/console/assets/other.js');
    expect((await problem(unknown)).code).toBe('NOT_FOUND');
  });
});

describe('GET /console/api/overview', () => {
  it('answers 200 with status degraded when no service answers at all', async () => {
    for (const target of [
      'ingress',
      'validator',
      'scheduler',
      'dispatcher',
      'tracker',
      'event-publisher',
    ] as const)
      await fake.refuse(target);
    const { app, metrics } = consoleApp();
    const response = await app.request('/console/api/overview');
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    const overview = (await response.json()) as {
      status: string;
      problems: string[];
      services: { state: string }[];
    };
    expect(overview.status).toBe('degraded');
    expect(overview.services.map((service) => service.state)).toEqual(Array(6).fill('down'));
    expect(overview.problems.length).toBeGreaterThanOrEqual(6);
    // The console counts its calls by target and outcome.
    const text = (await metrics.render()).body;
    expect(text).toMatch(/rp_console_upstream_calls_total\{target="tracker",outcome="unreachable"[^}]*\} 2/);
  });
});

describe('GET /console/api/transactions/:uetr', () => {
  it('draws the journey: states in sequence order, messages and attempts in the state they happened in', async () => {
    fake.routes.set(`tracker /admin/transactions/${uetr}`, sampleSnapshot(uetr));
    sampleDeliveries(fake.routes, uetr);
    const { app } = consoleApp();
    const response = await app.request(`/console/api/transactions/${uetr.toUpperCase()}`);
    expect(response.status).toBe(200);
    const journey = (await response.json()) as ReturnType<typeof journeyOf>;
    expect(journey.status).toBe('ok');
    expect(journey.uetr).toBe(uetr);
    expect(journey.state).toBe('DEBIT_COMPLETED');
    expect(journey.states.map((state) => state.eventType)).toEqual(completedDebitJourney);
    expect(journey.states.map((state) => state.service)).toEqual([
      'ingress',
      'validator',
      'dispatcher',
      'dispatcher',
      'scheduler',
      'dispatcher',
      'dispatcher',
      'ingress',
      'tracker',
    ]);
    const byType = Object.fromEntries(journey.states.map((state) => [state.eventType, state]));
    expect(byType.DEBIT_REQUEST_RECEIVED?.messages).toEqual([
      expect.objectContaining({ kind: 'DirectDebit', body: { amount: { value: 100.25 } } }),
    ]);
    expect(byType.DEBIT_REQUEST_ACCEPTED?.messages).toEqual([
      expect.objectContaining({ messageIdentification: 'MSG-ACCP', body: 'not json' }),
    ]);
    expect(byType.DEBIT_STATUS_DELIVERY_PENDING?.attempts).toEqual([
      expect.objectContaining({ httpStatus: 202, latencyMs: 7, endpoint: 'outbound/direct-debit-response' }),
    ]);
    expect(
      byType.DEBIT_DELIVERY_PENDING?.attempts.map((attempt) => [attempt.httpStatus, attempt.outcome]),
    ).toEqual([
      [503, 'retryable'],
      [202, 'accepted'],
    ]);
    expect(byType.DEBIT_DELIVERY_PENDING?.attempts[0]?.error).toBe('HTTP 503: busy');
    expect(byType.DEBIT_RESPONSE_ACCEPTED?.messages.map((message) => message.messageIdentification)).toEqual([
      'MSG-REPORT',
    ]);
    expect(byType.DEBIT_STATUS_DELIVERED?.postings).toEqual([
      { memberId: '250655', outcome: 'delivered', attemptCount: 2, lastStatus: 202, lastLatencyMs: 7 },
    ]);
    expect(journey.deliveryAttemptCount).toBe(3);
  });

  it('shows the journey without postings, degraded, when the event publisher does not answer', async () => {
    fake.routes.set(`tracker /admin/transactions/${uetr}`, sampleSnapshot(uetr));
    fake.behave('event-publisher', 'hang');
    const { app } = consoleApp(1_000);
    const response = await app.request(`/console/api/transactions/${uetr}`);
    expect(response.status).toBe(200);
    const journey = (await response.json()) as ReturnType<typeof journeyOf>;
    // The first failure stops the lookups: one call per worker (4), not one per state (9).
    expect(fake.calls.filter((call) => call.path.startsWith('event-publisher ')).length).toBe(4);
    expect(journey.status).toBe('degraded');
    expect(journey.problems).toEqual([
      'event-publisher: /admin/events/:eventId/deliveries no answer within 1000 ms',
    ]);
    expect(journey.states).toHaveLength(9);
    expect(journey.states.every((state) => state.postings === null)).toBe(true);
  });

  it('refuses a UETR that is not a UUID with problem+json, without asking the tracker', async () => {
    const { app } = consoleApp();
    const response = await app.request('/console/api/transactions/not-a-uuid');
    expect(response.status).toBe(422);
    const body = await problem(response);
    expect(body).toMatchObject({ code: 'VALIDATION_FAILED', errors: [{ pointer: '/uetr' }] });
    expect(fake.calls).toEqual([]);
  });

  it('answers 404 for a transaction the tracker does not know', async () => {
    const { app } = consoleApp();
    const response = await app.request(`/console/api/transactions/${uetr}`);
    expect(response.status).toBe(404);
    expect((await problem(response)).detail).toBe(`no transaction ${uetr}`);
  });

  it("passes on the tracker's word for a transaction received and not yet recorded", async () => {
    const detail = `no transaction ${uetr} recorded yet: the ingress received its DirectDebit at 2026-11-28T10:00:00.000Z, and the tracker has not applied its first state change`;
    fake.routes.set(
      `tracker /admin/transactions/${uetr}`,
      new Response(JSON.stringify({ title: 'Not Found', status: 404, detail }), {
        status: 404,
        headers: { 'content-type': 'application/problem+json' },
      }),
    );
    const { app } = consoleApp();
    const response = await app.request(`/console/api/transactions/${uetr}`);
    expect(response.status).toBe(404);
    expect((await problem(response)).detail).toBe(detail);
  });

  it('answers 504 when the tracker does not answer in time, 503 when it cannot be reached', async () => {
    fake.behave('tracker', 'hang');
    const { app } = consoleApp(500);
    const slow = await app.request(`/console/api/transactions/${uetr}`);
    expect(slow.status).toBe(504);
    expect((await problem(slow)).code).toBe('DOWNSTREAM_TIMEOUT');

    await fake.refuse('tracker');
    const down = await app.request(`/console/api/transactions/${uetr}`);
    expect(down.status).toBe(503);
    expect((await problem(down)).code).toBe('DOWNSTREAM_REJECTED');

    fake.urls.tracker = fake.urls.ingress.replace('/ingress', '/tracker');
    fake.behave('tracker', { status: 500 });
    const failing = await app.request(`/console/api/transactions/${uetr}`);
    expect(failing.status).toBe(502);
    await problem(failing);
  });
});

describe('GET /console/api/transactions?endToEndId=', () => {
  it('lists the transactions with that end-to-end id', async () => {
    const snapshot = sampleSnapshot(uetr);
    fake.routes.set('tracker /admin/transactions', { transactions: [snapshot] });
    const { app } = consoleApp();
    const response = await app.request('/console/api/transactions?endToEndId=E2E-SAMPLE');
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      transactions: [
        {
          uetr,
          state: 'DEBIT_COMPLETED',
          endToEndIdentification: 'E2E-SAMPLE',
          debtorAgentMemberId: '250655',
          creditorAgentMemberId: '250655',
          createdAt: snapshot.createdAt,
          updatedAt: snapshot.updatedAt,
        },
      ],
    });
    expect(fake.calls.map((call) => call.path)).toEqual([
      'tracker /admin/transactions?endToEndId=E2E-SAMPLE&limit=20',
    ]);
  });

  it('refuses a missing, empty or too long end-to-end id and a bad limit with problem+json', async () => {
    const { app } = consoleApp();
    for (const query of ['', '?endToEndId=', '?endToEndId=%20%20', `?endToEndId=${'x'.repeat(36)}`]) {
      const response = await app.request(`/console/api/transactions${query}`);
      expect(response.status, query).toBe(422);
      expect(await problem(response)).toMatchObject({ errors: [{ pointer: '/endToEndId' }] });
    }
    for (const limit of ['0', '101', 'ten', '1.5']) {
      const response = await app.request(`/console/api/transactions?endToEndId=E2E&limit=${limit}`);
      expect(response.status, limit).toBe(422);
      expect(await problem(response)).toMatchObject({ errors: [{ pointer: '/limit' }] });
    }
    expect(fake.calls).toEqual([]);
    const unknown = await app.request('/console/api/nothing-here');
    expect(unknown.status).toBe(404);
    await problem(unknown);
  });
});

describe('journeyOf', () => {
  it('puts what happened before the first state with the first, and copes with a snapshot without history', () => {
    const journey = journeyOf(
      {
        uetr,
        state: null,
        history: [],
        deliveryAttempts: [
          { at: '2026-03-02T10:00:00.000Z', httpStatus: null, latencyMs: 2000, outcome: 'retryable' },
        ],
      },
      null,
    );
    expect(journey.states).toEqual([]);
    expect(journey.deliveryAttemptCount).toBe(1);

    const early = journeyOf(
      {
        uetr,
        history: [
          { seq: 1, eventId: 'a', eventType: 'X', to: 'X', at: '2026-03-02T10:00:01.000Z', service: 's' },
        ],
        messages: [
          { kind: 'DirectDebit', messageIdentification: 'M', at: '2026-03-02T10:00:00.000Z', bodyJson: '{}' },
        ],
      },
      new Map(),
    );
    expect(early.states[0]?.messages).toHaveLength(1);
    expect(early.states[0]?.postings).toEqual([]);
  });
});
