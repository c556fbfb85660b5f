import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type FakeServices, startFakeServices } from '../test/fake-services.ts';
import {
  sampleLanes,
  sampleMetrics,
  sampleQueue,
  sampleReconciliation,
  sampleWindows,
} from '../test/samples.ts';
import { bankState, OverviewBuilder } from './overview.ts';
import { RateTracker } from './rates.ts';
import { consoleTargets, Upstreams } from './upstream.ts';

let fake: FakeServices;
let now: number;

beforeEach(async () => {
  fake = await startFakeServices();
  Object.assign(fake.metrics, sampleMetrics(1));
  fake.routes.set('scheduler /admin/queue', sampleQueue);
  fake.routes.set('scheduler /admin/windows', sampleWindows);
  fake.routes.set('scheduler /admin/reconciliation', sampleReconciliation);
  fake.routes.set('event-publisher /admin/events/lanes', sampleLanes);
  now = Date.UTC(2026, 2, 2, 10, 0, 0);
});

afterEach(async () => {
  await fake.close();
});

function builder(timeoutMs = 1_000, authorization?: () => Promise<string>) {
  const upstreams = new Upstreams({
    urls: fake.urls,
    timeoutMs,
    ...(authorization ? { authorization } : {}),
  });
  return new OverviewBuilder({ upstreams, rates: new RateTracker(), now: () => now, listLimit: 5 });
}

const stage = (overview: Awaited<ReturnType<OverviewBuilder['build']>>, id: string) =>
  overview.stages.find((entry) => entry.id === id);

describe('OverviewBuilder', () => {
  it('aggregates every service: totals per stage, then rates between polls', async () => {
    const overview = builder();
    const first = await overview.build();
    expect(first.status).toBe('ok');
    expect(first.problems).toEqual([]);
    expect(first.services.map((service) => [service.name, service.state])).toEqual(
      consoleTargets.map((name) => [name, 'up']),
    );
    expect(first.stages.map((entry) => [entry.id, entry.total, entry.ratePerSecond])).toEqual([
      ['received', 10, null],
      ['validated', 8, null],
      ['rejected', 2, null],
      ['reports-delivered', 10, null],
      ['queued', 8, null],
      ['released', 6, null],
      ['delivered', 6, null],
      ['completed', 5, null],
      ['postings-delivered', 40, null],
    ]);

    // Two seconds later every counter has doubled.
    Object.assign(fake.metrics, sampleMetrics(2));
    now += 2_000;
    const second = await overview.build();
    expect(second.generatedAt).toBe(new Date(now).toISOString());
    expect(stage(second, 'received')).toMatchObject({ total: 20, ratePerSecond: 5 });
    expect(stage(second, 'rejected')).toMatchObject({ total: 4, ratePerSecond: 1 });
    expect(stage(second, 'completed')).toMatchObject({ total: 10, ratePerSecond: 2.5 });
    expect(stage(second, 'postings-delivered')).toMatchObject({ total: 80, ratePerSecond: 20 });
  });

  it('shows the queue, the windows, the open reconciliation items and the parked lanes', async () => {
    const overview = await builder().build();
    expect(overview.queue).toEqual({ available: true, ...sampleQueue, from: 'admin' });
    expect(overview.windows).toMatchObject({
      available: true,
      businessDate: '2026-03-02',
      debitWindow: { state: 'open', creditsFinalised: true },
    });
    expect(overview.reconciliation).toMatchObject({
      available: true,
      windowId: '2026-03-02',
      open: 1,
      items: [{ row: 5, code: 'REPORT_NOT_ACKNOWLEDGED', status: 'open' }],
    });
    expect(overview.lanes).toMatchObject({
      available: true,
      items: [{ memberId: '470010', queued: 3, headFailures: 4, lastError: 'HTTP 503: unavailable' }],
    });
    // The lists are asked for with the configured limit.
    expect(fake.calls.map((call) => call.path)).toEqual(
      expect.arrayContaining([
        'scheduler /admin/reconciliation?limit=5',
        'event-publisher /admin/events/lanes?limit=5',
      ]),
    );
  });

  it('gives delivery health per bank from the dispatcher and the event publisher', async () => {
    const overview = builder();
    await overview.build();
    const metrics = sampleMetrics(2);
    // Bank 470010 is paused by the event publisher's breaker, with lanes parked.
    metrics['event-publisher'] += [
      '',
      'rp_events_parked_lanes{member_id="470010",service="event-publisher"} 2',
      'rp_events_parked_postings{member_id="470010",service="event-publisher"} 7',
      'rp_events_bank_paused{member_id="470010",service="event-publisher"} 1',
    ].join('\n');
    Object.assign(fake.metrics, metrics);
    now += 2_000;
    const { banks } = await overview.build();
    expect(banks.available).toBe(true);
    if (!banks.available) return;
    expect(banks.items.map((bank) => bank.memberId)).toEqual(['250655', '470010']);
    const [baobab, other] = banks.items;
    expect(baobab).toMatchObject({
      state: 'healthy',
      dispatcher: {
        attempts: { acknowledged: 32, retryable: 0, final: 0 },
        inFlight: 1,
        meanLatencyMs: 12.5,
        retryablePerSecond: 0,
      },
      events: {
        attempts: { delivered: 80, retryable: 0, final: 0 },
        deliveries: { delivered: 80, failed: 0, expired: 0 },
        parkedLanes: 0,
        paused: false,
        meanLatencyMs: 10,
      },
    });
    expect(other).toMatchObject({
      state: 'paused',
      dispatcher: { attempts: { acknowledged: 0, retryable: 6, final: 0 }, retryablePerSecond: 1.5 },
      events: {
        attempts: { final: 2 },
        deliveries: { failed: 2 },
        parkedLanes: 2,
        parkedPostings: 7,
        paused: true,
      },
    });
  });

  it('is degraded, never failed, when services do not answer: each says why, the rest is shown', async () => {
    fake.behave('tracker', 'hang');
    await fake.refuse('validator');
    fake.behave('event-publisher', { status: 500 });
    fake.routes.set(
      'dispatcher /health/ready',
      Response.json(
        {
          status: 'unavailable',
          state: 'ready',
          checks: [{ name: 'mongodb', ok: false, error: 'timed out' }],
        },
        { status: 503 },
      ),
    );
    fake.routes.set('scheduler /admin/windows', new Response('{"half":', { status: 200 }));
    fake.routes.set('scheduler /admin/reconciliation', { windowId: '2026-03-02', open: 'many', items: [] });

    const overview = await builder(1_000).build();
    // Every call runs at once under the same deadline: the second call to the hanging tracker went out
    // while the first was still waiting, not after its timeout.
    const trackerCalls = fake.calls.filter((call) => call.path.startsWith('tracker '));
    expect(trackerCalls.map((call) => call.path).sort()).toEqual([
      'tracker /health/ready',
      'tracker /metrics',
    ]);
    expect(Math.abs((trackerCalls[0]?.at ?? 0) - (trackerCalls[1]?.at ?? 0))).toBeLessThan(1_000);

    expect(overview.status).toBe('degraded');
    const states = Object.fromEntries(overview.services.map((service) => [service.name, service.state]));
    expect(states).toEqual({
      ingress: 'up',
      validator: 'down',
      scheduler: 'up',
      dispatcher: 'not-ready',
      tracker: 'down',
      'event-publisher': 'down',
    });
    const byName = Object.fromEntries(overview.services.map((service) => [service.name, service.error]));
    expect(byName.tracker).toBe('no answer within 1000 ms');
    expect(byName.validator).toMatch(/ECONNREFUSED/);
    expect(byName['event-publisher']).toBe('HTTP 500: broken on purpose');
    expect(byName.dispatcher).toBe('not ready (ready; mongodb: timed out)');

    expect(stage(overview, 'received')?.total).toBe(10);
    expect(stage(overview, 'validated')).toMatchObject({ total: null, ratePerSecond: null });
    expect(stage(overview, 'completed')).toMatchObject({ total: null, ratePerSecond: null });
    expect(stage(overview, 'delivered')?.total).toBe(6);

    expect(overview.lanes).toEqual({
      available: false,
      source: 'event-publisher',
      error: 'HTTP 500: broken on purpose',
    });
    expect(overview.windows).toMatchObject({
      available: false,
      error: 'answered something that is not JSON',
    });
    expect(overview.reconciliation).toMatchObject({
      available: false,
      error: expect.stringContaining('open is not a number'),
    });
    expect(overview.queue).toMatchObject({ available: true, depth: 3 });
    // The dispatcher still answers: the banks are shown from it alone.
    expect(overview.banks).toMatchObject({ available: true });
    if (overview.banks.available) expect(overview.banks.items[0]?.events).toBeNull();

    expect(overview.problems).toEqual(
      expect.arrayContaining([
        'tracker: /metrics no answer within 1000 ms',
        expect.stringMatching(/^validator: \/metrics connect ECONNREFUSED 127\.0\.0\.1:\d+$/),
        'event-publisher: /metrics HTTP 500: broken on purpose',
        'dispatcher: /health/ready not ready (ready; mongodb: timed out)',
        'scheduler: /admin/windows answered something that is not JSON',
      ]),
    );
  });

  it("falls back to the scheduler's gauge for the queue when its admin route fails", async () => {
    fake.routes.set('scheduler /admin/queue', Response.json({ detail: 'no' }, { status: 401 }));
    const overview = await builder().build();
    expect(overview.queue).toEqual({
      available: true,
      depth: 2,
      byWindow: {},
      awaitingStatusReport: 1,
      from: 'metrics',
    });
    expect(overview.status).toBe('degraded');
    expect(overview.problems).toEqual(['scheduler: /admin/queue HTTP 401: no']);
  });

  it("sends the console's own access token to every service's admin routes, and to nothing else", async () => {
    await builder(1_000, async () => 'Bearer console-token-0123456789').build();
    const withToken = fake.calls.filter((call) => call.authorization !== undefined).map((call) => call.path);
    expect(withToken.sort()).toEqual([
      'event-publisher /admin/events/lanes?limit=5',
      'scheduler /admin/queue',
      'scheduler /admin/reconciliation?limit=5',
      'scheduler /admin/windows',
    ]);
    expect(new Set(fake.calls.map((call) => call.authorization).filter(Boolean))).toEqual(
      new Set(['Bearer console-token-0123456789']),
    );
  });

  it('an admin section whose token cannot be had is unavailable with the reason; the metrics still show', async () => {
    const overview = await builder(1_000, async () => {
      throw new Error('the token endpoint refused client ops-console: HTTP 401');
    }).build();
    expect(fake.calls.some((call) => call.path.includes('/admin/'))).toBe(false);
    expect(overview.status).toBe('degraded');
    expect(overview.problems).toContain(
      'scheduler: /admin/windows the console has no access token for it: the token endpoint refused client ops-console: HTTP 401',
    );
    expect(overview.queue).toMatchObject({ available: true, from: 'metrics' });
  });

  it('shares one round of calls between requests that arrive together', async () => {
    const overview = builder();
    const [a, b, c] = await Promise.all([overview.build(), overview.build(), overview.build()]);
    expect(a).toBe(b);
    expect(b).toBe(c);
    expect(fake.calls.filter((call) => call.path === 'ingress /metrics')).toHaveLength(1);
    await overview.build();
    expect(fake.calls.filter((call) => call.path === 'ingress /metrics')).toHaveLength(2);
  });
});

describe('bankState', () => {
  const dispatcher = (retryable: number | null, final: number | null, acknowledged = 1) => ({
    attempts: { acknowledged, retryable: 0, final: 0 },
    retryablePerSecond: retryable,
    finalPerSecond: final,
    inFlight: 0,
    meanLatencyMs: null,
  });
  const events = (paused: boolean, parkedLanes: number) => ({
    attempts: { delivered: 1, retryable: 0, final: 0 },
    deliveries: { delivered: 1, failed: 0, expired: 0 },
    retryablePerSecond: 0,
    finalPerSecond: 0,
    parkedLanes,
    parkedPostings: parkedLanes,
    paused,
    meanLatencyMs: null,
  });

  it('puts a pause first, then final refusals, then retries or parked lanes', () => {
    expect(bankState(dispatcher(1, 1), events(true, 3))).toBe('paused');
    expect(bankState(dispatcher(1, 0.5), events(false, 3))).toBe('failing');
    expect(bankState(dispatcher(0.5, 0), events(false, 0))).toBe('retrying');
    expect(bankState(dispatcher(0, 0), events(false, 1))).toBe('retrying');
    expect(bankState(dispatcher(0, 0), events(false, 0))).toBe('healthy');
    expect(bankState(dispatcher(null, null), null)).toBe('healthy');
    expect(bankState(dispatcher(null, null, 0), null)).toBe('idle');
    expect(bankState(null, null)).toBe('idle');
  });
});
