import { randomUUID } from 'node:crypto';
import { baseAlertRuleGroups } from '@rp/deploy/alert-rules';
import {
  committedDashboard,
  dashboardQueries,
  substituted,
  type VariableValues,
  variableSelector,
} from '@rp/deploy/dashboard-queries';
import { ensurePrometheus } from '@rp/deploy/tools';
import { baobab, defaultBank, type PipelineService, pipelineServices } from '@rp/launcher';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EndToEnd, mapBounded, type ReconciliationEntry, startEndToEnd, waitUntil } from './pipeline.ts';
import { LivePrometheus, type QueryAnswer } from './prometheus.ts';

/**
 * The operators' view of a running pipeline: a real Prometheus scrapes every engine service the way the
 * ServiceMonitor has it scraped (the same target labels), evaluates the PrometheusRule's alerting rules
 * and answers every query of the Grafana dashboard, after a journey with the things an operator watches
 * for: debits through to completion, a credit, refused requests, retried and refused bank calls, the
 * debit window and a reconciliation with items.
 */

const namespace = 'rp-e2e';
const bank = defaultBank.memberId;
const engineServices = pipelineServices.filter(
  (service): service is Exclude<PipelineService, 'bank-simulator'> => service !== 'bank-simulator',
);

/**
 * Metrics whose series are born only by something a healthy journey does not do, each with why. A query
 * may come back empty only when every metric it reads is one of these; every other query must show data.
 */
const quietMetrics: Readonly<Record<string, string>> = {
  rp_events_parked_postings: 'no bank was paused',
  rp_events_parked_lanes: 'no bank was paused',
  rp_events_parked_total: 'no bank was paused',
  rp_events_replayed_total: 'no operator replayed postings',
  rp_events_postings_skipped_total: 'every bank subscribes to both classes',
  rp_events_postings_read_total: 'no posting was read back from the store (replays, parked lanes)',
  rp_ingress_resends_waiting: 'no bank resent a message while its first attempt ran',
  rp_validator_debits_skipped_total: 'no record reached the validator twice',
  rp_validator_credits_skipped_total: 'no record reached the validator twice',
  rp_validator_retried_records_total: 'no handler failed',
  rp_validator_failed_records_total: 'no handler failed',
  rp_scheduler_retried_records_total: 'no handler failed',
  rp_scheduler_failed_records_total: 'no handler failed',
  rp_dispatcher_deferred_total: 'no bank was in its cool-down',
  rp_dispatcher_failed_records_total: 'no handler failed',
  rp_dispatcher_expired_total: 'no delivery was still retried at the reconciliation close',
  rp_tracker_batches_failed_total: 'no handler failed',
};

/** The engine's metrics an expression reads (their histogram series by the histogram's name). */
function metricsOf(expr: string): Set<string> {
  return new Set(
    [...expr.matchAll(/\b(rp_[a-z0-9_]+)/g)].map((m) => (m[1] as string).replace(/_(bucket|sum|count)$/, '')),
  );
}

/** Grafana's variables for this pipeline: a 1 s scrape, rates over a minute (the journey's span), every bank. */
const values: VariableValues = {
  rateInterval: '1m',
  interval: '1s',
  range: '1h',
  namespace,
  bank: '.*',
};

/** The committed dashboard (the deploy tests keep it current with its source) and its queries. */
const dashboard = committedDashboard();
const queries = dashboardQueries(dashboard);

let e2e: EndToEnd;
let prometheus: LivePrometheus;
let items: ReconciliationEntry[] = [];
const refusedReport = randomUUID();

beforeAll(async () => {
  // Built before the pipeline starts: a first build (a few minutes of both cores) would starve its start.
  const binary = await ensurePrometheus((line) => console.info(`monitoring: ${line}`));
  e2e = await startEndToEnd();
  prometheus = await LivePrometheus.start({
    binary,
    ruleGroups: baseAlertRuleGroups(),
    targets: engineServices.map((service) => ({
      job: service,
      url: e2e.pipeline.url(service),
      // What prometheus-operator puts on a ServiceMonitor's series: the namespace, the Service, the pod,
      // the container and the endpoint's port name, and the Service's labels named in `targetLabels`.
      labels: {
        namespace,
        service,
        pod: `${service}-0`,
        container: service,
        endpoint: 'http',
        app_kubernetes_io_part_of: 'regulated-payments',
        app_kubernetes_io_component: 'engine',
      },
    })),
  });
  await waitUntil(async () => {
    const targets = await prometheus.targets();
    return targets.length === engineServices.length && targets.every((t) => t.health === 'up')
      ? true
      : undefined;
  }, 'every engine service scraped');

  // The journey. A request that is not JSON, refused with a problem.
  const malformed = await e2e.post('outbound/direct-debit', '{"uetr":');
  expect(malformed.status).toBe(400);
  await malformed.arrayBuffer();
  // A debit whose status report meets two 503s before the bank's 202 (retried), and whose first event
  // posting meets one (retried by the event publisher); one whose report the bank refuses for good with a
  // 400 (a final failure, then a reconciliation item).
  const debit = randomUUID();
  await e2e.bank.setFault({
    memberId: bank,
    route: 'events',
    uetr: debit,
    mode: 'error',
    status: 503,
    count: 1,
  });
  await e2e.bank.setFault({
    memberId: bank,
    route: 'outbound',
    uetr: debit,
    mode: 'error',
    status: 503,
    count: 2,
  });
  await e2e.bank.setFault({ route: 'outbound', uetr: refusedReport, mode: 'error', status: 400 });
  for (const uetr of [debit, refusedReport]) {
    const sent = await e2e.sendDebit({ uetr });
    expect(sent.response.status).toBe(202);
  }
  // A debit whose accounts fail the check digits (rejected, RJCT), and a credit.
  const broken = (account: string) => `${account.slice(0, -1)}${(Number(account.slice(-1)) + 1) % 10}`;
  const rejected = await e2e.sendDebit({
    debtorAccount: broken(baobab.savingsAccount()),
    creditorAccount: broken(baobab.currentAccount()),
  });
  expect(rejected.response.status).toBe(202);
  const credit = await e2e.sendCredit();
  expect(credit.response.status).toBe(202);
  await e2e.waitForEvent(debit, 'DEBIT_QUEUED');
  await e2e.waitForEvent(rejected.uetr, 'DEBIT_STATUS_DELIVERED');
  // The bank reads the debit's status.
  const read = await fetch(`${e2e.pipeline.apiUrl}/transactions/${debit}`, {
    headers: { authorization: await e2e.pipeline.bankAuthorization(bank) },
  });
  expect(read.status).toBe(200);
  await read.arrayBuffer();
  await e2e.waitForEvent(refusedReport, 'DEBIT_STATUS_DELIVERY_FAILURE');
  // The debit window opens: the debit goes to the actioning bank, whose report completes it.
  await e2e.openDebitWindow();
  await e2e.waitForEvent(debit, 'DEBIT_COMPLETED');
  await e2e.waitForEvent(credit.uetr, 'CREDIT_AUTH_RESPONSE_ACCEPTED');
  // The reconciliation window closes on the refused report.
  await e2e.closeReconciliationWindow();
  items = await e2e.reconciliationItems();
  await e2e.waitForEvent(refusedReport, 'RECONCILIATION_REQUIRED');

  await prometheus.caughtUpWith(new Date());
}, 15 * 60_000);

afterAll(async () => {
  await prometheus?.stop();
  await e2e?.stop();
});

/** The series of an instant query's answer (a scalar counts as one). */
function seriesOf(answer: QueryAnswer): number {
  return answer.resultType === 'vector' || answer.resultType === 'matrix' ? answer.result.length : 1;
}

describe('monitoring a running pipeline with Prometheus (the ServiceMonitor, the PrometheusRule, the dashboard)', () => {
  it("scrapes every engine service's /metrics: each target up, its exposition read without an error", async () => {
    const targets = await prometheus.targets();
    expect(targets.map((target) => target.labels.service).sort()).toEqual([...engineServices].sort());
    for (const target of targets) {
      expect(target.health, target.labels.service).toBe('up');
      expect(target.lastError, target.labels.service).toBe('');
    }
    const up = await prometheus.query(`up{namespace="${namespace}"} == 1`);
    expect(seriesOf(up)).toBe(engineServices.length);
  });

  it('evaluates every alerting rule on the live series without an error', async () => {
    const groups = await prometheus.ruleGroups();
    const expected = baseAlertRuleGroups().flatMap((group) => group.rules.map((rule) => rule.alert));
    const rules = groups.flatMap((group) => group.rules);
    expect(rules.map((rule) => rule.name).sort()).toEqual([...expected].sort());
    for (const rule of rules) {
      expect({ rule: rule.name, health: rule.health, error: rule.lastError ?? '' }).toEqual({
        rule: rule.name,
        health: 'ok',
        error: '',
      });
    }
  });

  it('raises the alerts the journey calls for, on the labels that name what happened', async () => {
    expect(items.find((item) => item.uetr === refusedReport)).toMatchObject({ row: 3 });
    const alerts = (await prometheus.ruleGroups()).flatMap((group) =>
      group.rules.flatMap((rule) => (rule.alerts ?? []).map((alert) => ({ ...alert, rule: rule.name }))),
    );
    const firing = (name: string) =>
      alerts.filter((alert) => alert.rule === name && alert.state === 'firing');
    expect(firing('RpBankRefusedMessage').map((alert) => alert.labels.operation)).toEqual([
      'outboundDirectDebitResponse',
    ]);
    expect(firing('RpReconciliationItemsRaised').map((alert) => alert.labels.row)).toContain('3');
    for (const alert of [...firing('RpBankRefusedMessage'), ...firing('RpReconciliationItemsRaised')]) {
      expect(alert.labels.namespace).toBe(namespace);
    }
    // Nothing that pages: the services are up, and the open window's debits went out.
    const paging = alerts.filter((alert) => alert.labels.severity === 'critical');
    expect(paging).toEqual([]);
  });

  it('answers every query of the dashboard, and each panel the journey feeds shows data', async () => {
    const read = new Set(queries.flatMap((query) => [...metricsOf(query.expr)]));
    for (const metric of Object.keys(quietMetrics)) expect(read.has(metric), metric).toBe(true);
    const empty: string[] = [];
    for (const query of queries) {
      const what = `${query.panel} ${query.refId}`;
      const answer = await prometheus.query(substituted(query.expr, values)).catch((error: unknown) => {
        throw new Error(`${what}: ${String(error)}`);
      });
      const quiet = [...metricsOf(query.expr)].every((metric) => metric in quietMetrics);
      if (seriesOf(answer) === 0 && !quiet) empty.push(`${what}: ${query.expr}`);
    }
    expect(empty).toEqual([]);
  });

  it("counts the refused report and the reconciliation item on their panels, though each was its series' first count", async () => {
    const value = async (panel: string, refId: string, labels: Record<string, string>) => {
      const query = queries.find((q) => q.panel === panel && q.refId === refId);
      if (!query) throw new Error(`no query ${refId} on the panel ${panel}`);
      const answer = await prometheus.query(substituted(query.expr, values));
      const samples = answer.resultType === 'vector' ? answer.result : [];
      const found = samples.find((sample) =>
        Object.entries(labels).every(([k, v]) => sample.metric[k] === v),
      );
      return found ? Number(found.value[1]) : undefined;
    };
    const rowThree = items.filter((item) => item.row === 3).length;
    expect(rowThree).toBeGreaterThan(0);
    const reconciliation = 'Reconciliation items, and closes that failed';
    expect(await value(reconciliation, 'A', { row: '3' })).toBe(rowThree);
    // The close went through at once: none failed, a count that is there from the scheduler's start.
    expect(await value(reconciliation, 'B', {})).toBe(0);
    expect(await value('Refused for good, expired', 'A', { operation: 'outboundDirectDebitResponse' })).toBe(
      1,
    );
    // The dead-letter counters start at 0 for each group: none in the range.
    expect(await value('Dead letters in range', 'A', {})).toBe(0);
  });

  it("offers this namespace and the bank as the dashboard's variables", async () => {
    const variables = dashboard.templating.list.filter((variable) => variable.type === 'query');
    const choices = new Map<string, string[]>();
    for (const variable of variables) {
      const { selector, label } = variableSelector(variable);
      choices.set(variable.name, await prometheus.labelValues(label, substituted(selector, values)));
    }
    expect(choices.get('namespace')).toEqual([namespace]);
    expect(choices.get('bank')).toContain(bank);
  });
});

/**
 * The alerts whose condition has to last (`for:` 5 to 30 minutes) are unit-tested with promtool on
 * synthetic series (packages/deploy/test/alerts.test.yaml). Here their conditions are brought about on the
 * running pipeline, and each alert must go pending on the live series, with the labels that say where,
 * within seconds: what `for:` then adds is Prometheus's own waiting. Once the condition is gone, the alert
 * must go back to inactive. These tests change the pipeline (a bank down, a service stopped), so they come
 * after the ones that read the journey.
 */
describe('the alerts that wait for their condition to last, on the live series', () => {
  /** The live alerts of a rule, with their state. */
  const alertsOf = async (rule: string) =>
    (await prometheus.ruleGroups())
      .flatMap((group) => group.rules)
      .filter((entry) => entry.name === rule)
      .flatMap((entry) => entry.alerts ?? []);

  /** Waits until the rule has a pending alert whose labels include `labels`, and returns them. */
  const pendingOn = (rule: string, labels: Record<string, string>) =>
    waitUntil(
      async () =>
        (await alertsOf(rule)).find(
          (alert) =>
            alert.state === 'pending' && Object.entries(labels).every(([k, v]) => alert.labels[k] === v),
        )?.labels,
      `${rule} pending on ${JSON.stringify(labels)}`,
    );

  /** Waits until the rule has no alert, pending or firing (its expression matches nothing). */
  const cleared = (rule: string) =>
    waitUntil(async () => ((await alertsOf(rule)).length === 0 ? true : undefined), `${rule} cleared`);

  it('a bank whose /events keeps failing: RpBankEventsPaused and RpEventPostingsWaiting pending on the bank, the parked postings on the dashboard, and both cleared once it answers', async () => {
    // None from the journey before: its one failed posting parked the debit's lane, and the publisher
    // refreshes its parked gauges every 5 s, so a lane that drained just now may still count for a
    // scrape or two.
    for (const rule of ['RpBankEventsPaused', 'RpEventPostingsWaiting']) await cleared(rule);
    // Every posting to the bank fails until the rule is cleared: the publisher pauses the bank after
    // EVENTS_BREAKER_THRESHOLD failures in a row and parks its postings.
    await e2e.bank.setFault({ memberId: bank, route: 'events', mode: 'error', status: 503 });
    const debit = await e2e.sendDebit();
    expect(debit.response.status).toBe(202);
    for (const rule of ['RpBankEventsPaused', 'RpEventPostingsWaiting']) {
      const labels = await pendingOn(rule, { member_id: bank });
      expect(labels, rule).toMatchObject({ namespace, severity: 'warning' });
    }
    // The dashboard's panels of parked postings, empty in a healthy journey, show the bank's.
    const parked = queries.filter((query) => metricsOf(query.expr).has('rp_events_parked_postings'));
    expect(parked.length).toBeGreaterThan(0);
    for (const query of parked) {
      const answer = await prometheus.query(substituted(query.expr, values));
      const samples = answer.resultType === 'vector' ? answer.result : [];
      expect(
        samples.some((sample) => Number(sample.value[1]) > 0),
        `${query.panel} ${query.refId}: ${query.expr}`,
      ).toBe(true);
    }

    // The bank answers again, with nothing new sent to it: the next probe (once a pause, at most 15 s) is
    // one of its parked postings, ahead of that posting's own retry step (a minute by its fifth failure);
    // the bank answers it, and the parked postings go out at once, in order; the alerts clear.
    await e2e.bank.clearFaults();
    await e2e.waitForEvent(debit.uetr, 'DEBIT_REQUEST_ACCEPTED');
    await cleared('RpBankEventsPaused');
    await cleared('RpEventPostingsWaiting');
  });

  it("a bank that fails most of the dispatcher's calls: RpBankCallsFailing pending on the bank, cleared once most of its calls succeed again", async () => {
    expect(await alertsOf('RpBankCallsFailing')).toEqual([]);
    // Every status report to the bank answered 503 (retryable): the dispatcher retries each until the bank
    // takes it, and its failed attempts soon outnumber the journey's successful ones.
    await e2e.bank.setFault({ memberId: bank, route: 'outbound', mode: 'error', status: 503 });
    const stuck = await Promise.all([e2e.sendDebit(), e2e.sendDebit()]);
    for (const sent of stuck) expect(sent.response.status).toBe(202);
    const labels = await pendingOn('RpBankCallsFailing', { bank });
    expect(labels).toMatchObject({ namespace, severity: 'warning' });

    // The bank takes its calls again: the stuck reports go, and enough debits after them that the failures
    // are fewer than half of the last 10 minutes' calls to the bank.
    await e2e.bank.clearFaults();
    for (const sent of stuck) await e2e.waitForEvent(sent.uetr, 'DEBIT_STATUS_DELIVERED');
    await prometheus.caughtUpWith(new Date());
    const calls = async (result?: string) => {
      const selector = result === undefined ? `bank="${bank}"` : `bank="${bank}",result="${result}"`;
      const answer = await prometheus.query(`sum(increase(rp_dispatcher_attempts_total{${selector}}[10m]))`);
      return answer.resultType === 'vector' ? Number(answer.result[0]?.value[1] ?? 0) : 0;
    };
    const failed = await calls('RETRYABLE_FAILURE');
    const all = await calls();
    // Each on-us debit is a call the bank takes, its status report (the day's reconciliation window has
    // closed, so the debit then waits for the next business day's debit window).
    const journeys = Math.max(0, 2 * failed - all) + 2;
    const more = await mapBounded(Array.from({ length: journeys }), 8, () => e2e.sendDebit());
    for (const sent of more) await e2e.waitForEvent(sent.uetr, 'DEBIT_STATUS_DELIVERED');
    await cleared('RpBankCallsFailing');
  });

  it('a service that stops answering its scrape: RpServiceDown pending on its pod, cleared once it is back', async () => {
    expect(await alertsOf('RpServiceDown')).toEqual([]);
    await e2e.pipeline.kill('validator', 'SIGTERM');
    const labels = await pendingOn('RpServiceDown', { service: 'validator' });
    expect(labels).toMatchObject({ namespace, pod: 'validator-0', severity: 'critical' });
    // Only the one that stopped.
    expect((await alertsOf('RpServiceDown')).map((alert) => alert.labels.service)).toEqual(['validator']);
    await e2e.pipeline.start('validator');
    await cleared('RpServiceDown');
  });

  it('a service whose thread is kept off the CPU: RpEventLoopWaitingForCpu pending on its pod, not RpEventLoopBlocked, since it did no work meanwhile', async () => {
    for (const rule of ['RpEventLoopWaitingForCpu', 'RpEventLoopBlocked']) {
      expect(await alertsOf(rule), rule).toEqual([]);
    }
    // The ingress frozen (SIGSTOP) for over 5% of the rule's 10 minutes: its event loop stands still with
    // its thread off the CPU, as a pod's does when its CPU limit throttles it or its node is short of
    // cores. The ingress consumes nothing, so no consumer group moves meanwhile.
    const frozenMs = 35_000;
    e2e.pipeline.signal('ingress', 'SIGSTOP');
    try {
      await new Promise((resolve) => setTimeout(resolve, frozenMs));
    } finally {
      e2e.pipeline.signal('ingress', 'SIGCONT');
    }
    const labels = await pendingOn('RpEventLoopWaitingForCpu', { pod: 'ingress-0' });
    expect(labels).toMatchObject({ namespace, severity: 'warning' });
    // The stall counted as waiting, not as the service's own work: what tells the two alerts apart.
    const stalls = await prometheus.query(
      `sum by (cause) (increase(rp_event_loop_stall_seconds_sum{service="ingress"}[10m]))`,
    );
    const byCause = Object.fromEntries(
      (stalls.resultType === 'vector' ? stalls.result : []).map((sample) => [
        sample.metric.cause,
        Number(sample.value[1]),
      ]),
    );
    // One stall of about the freeze (from the loop's last look before it, every 20 ms); the service's own
    // work in the window (its start, the journeys) far less.
    expect(byCause.waiting).toBeGreaterThan(frozenMs / 1000 - 1);
    expect(byCause.work ?? 0).toBeLessThan(byCause.waiting / 10);
    expect((await alertsOf('RpEventLoopBlocked')).map((alert) => alert.labels.pod)).not.toContain(
      'ingress-0',
    );
    // Its scrapes failed while it was frozen; they answer again. (RpEventLoopWaitingForCpu stays pending
    // until the stall leaves the rule's 10-minute window.)
    await cleared('RpServiceDown');
    const debit = await e2e.sendDebit();
    expect(debit.response.status).toBe(202);
  });
});
