import type {
  DirectDebit,
  ReconciliationItem,
  TransactionState,
  TransactionStateChanged,
} from '@rp/contracts';
import { createLogger, ManualClock } from '@rp/runtime';
import { metricSample, uniqueName } from '@rp/testkit';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createSchedulerService, type SchedulerService } from '../src/service.ts';
import { defaultWindowSettings } from '../src/windows.ts';
import {
  debit,
  recordSnapshot,
  type SchedulerStack,
  schedulerStack,
  toActioningBank,
  uetrOf,
} from './fixtures.ts';
import { readTopic, type TopicReader } from './topic-reader.ts';

// A reconciliation close that came while no scheduler ran: the scheduler that starts on the next business
// day closes the missed window first, judging each transaction as it stood at the close, and keeps the
// close in the store so that it never runs it again after a restart.

const logger = createLogger({
  service: 'scheduler-missed-close',
  level: (process.env.TEST_LOG_LEVEL as 'warn' | undefined) ?? 'warn',
});
const wednesday = '2026-11-25';
const thursday = '2026-11-26';
const sast = (local: string) => new Date(`${local}+02:00`);
const noon = sast(`${wednesday}T12:00:00`);
const clock = new ManualClock(sast(`${thursday}T08:30:00`));

let stack: SchedulerStack;
let service: SchedulerService | undefined;
let items: TopicReader<ReconciliationItem>;
let states: TopicReader<TransactionStateChanged>;

function startService(): Promise<SchedulerService> {
  const started = createSchedulerService({
    kafka: stack.kafka,
    names: stack.names,
    codecs: stack.codecs,
    producer: stack.producer,
    store: stack.store,
    windows: { ...defaultWindowSettings, creditsFinalisedAt: '07:30' },
    logger,
    clock,
    options: { tickIntervalMs: 0, acceptedHoldMs: 0 },
  });
  return started.start().then(() => started);
}

/** Changes after the first ones `recordSnapshot` wrote (`before` of them), at `at`: the tracker's later writes. */
async function moveOn(
  value: DirectDebit,
  before: readonly TransactionState[],
  next: readonly TransactionState[],
  at: Date,
): Promise<void> {
  const uetr = uetrOf(value);
  const path = [...before, ...next];
  await stack.store.transactions.applyChanges(
    next.map((to, index) => {
      const position = before.length + index;
      return {
        uetr,
        eventId: `${uetr}:${position + 1}`,
        seq: position + 1,
        from: path[position - 1] as string,
        to,
        eventType: to,
        at,
        service: 'test',
      };
    }),
  );
}

const markers = new Set<string>();

/** The items the scheduler wrote before a marker the test writes now (the topic has one partition). */
async function itemsSoFar(): Promise<ReconciliationItem[]> {
  const key = uniqueName('marker');
  markers.add(key);
  const marker = items.records[0]?.value;
  if (marker === undefined) throw new Error('no item to copy for the marker');
  await stack.input.send('rp.reconciliation.v1', [{ key, value: marker }]);
  await items.waitFor((record) => record.key === key);
  const end = items.records.findIndex((record) => record.key === key);
  return items.records
    .slice(0, end)
    .filter((record) => record.key === null || !markers.has(record.key))
    .map((record) => record.value);
}

beforeAll(async () => {
  stack = await schedulerStack('scheduler-missed');
  items = await readTopic(
    stack.kafka,
    stack.names['rp.reconciliation.v1'],
    stack.codecs['rp.reconciliation.v1']!,
  );
  states = await readTopic(
    stack.kafka,
    stack.names['rp.transaction.state.v1'],
    stack.codecs['rp.transaction.state.v1']!,
  );
});

afterAll(async () => {
  await service?.stop();
  await Promise.all([items?.stop(), states?.stop()]);
  await stack?.close();
});

describe('a reconciliation close that came while no scheduler ran', () => {
  const toActioning = toActioningBank;
  const stuck = debit();
  const answeredLate = debit();
  const silentAtClose = debit();
  const releasedLater = debit({ collectionDate: thursday });
  const completedLater = debit();
  const createdAfter = debit();

  test("the next business day's first tick closes it, each transaction judged as it stood at the close", async () => {
    // Wednesday, while no scheduler ran.
    await recordSnapshot(stack.store, stuck, ['DEBIT_RECEIVED'], noon);
    const pending = toActioning.slice(0, 3);
    await recordSnapshot(stack.store, answeredLate, pending, noon);
    await recordSnapshot(stack.store, silentAtClose, toActioning, noon, [
      {
        memberId: '250655',
        endpoint: 'inbound/direct-debit',
        httpStatus: null,
        latencyMs: 5000,
        outcome: 'retryable',
      },
    ]);
    const queued = toActioning.slice(0, 5);
    await recordSnapshot(stack.store, releasedLater, queued, noon);
    const delivered = [...toActioning, 'DEBIT_DELIVERED'] as TransactionState[];
    await recordSnapshot(stack.store, completedLater, delivered, noon);
    await recordSnapshot(stack.store, createdAfter, ['DEBIT_RECEIVED'], sast(`${wednesday}T18:30:00`));
    // Thursday morning, before the scheduler starts: what moved on after Wednesday's close.
    const thursdayMorning = sast(`${thursday}T07:00:00`);
    await moveOn(answeredLate, pending, ['DEBIT_ACCEPTANCE_DELIVERED'], thursdayMorning);
    await stack.store.transactions.recordDeliveryAttempt(uetrOf(silentAtClose), {
      at: thursdayMorning,
      messageIdentification: silentAtClose.messageIdentifiers.messageIdentification,
      memberId: '250655',
      endpoint: 'inbound/direct-debit',
      httpStatus: 503,
      latencyMs: 20,
      outcome: 'retryable',
    });
    // Queued for Thursday's window and released in it: its queue entry is gone, its history says so.
    await moveOn(releasedLater, queued, ['DEBIT_DELIVERY_PENDING'], sast(`${thursday}T08:00:00`));
    await moveOn(completedLater, delivered, ['DEBIT_RESPONSE_ACCEPTED', 'DEBIT_COMPLETED'], thursdayMorning);

    service = await startService();
    await service.tick();

    const window = { businessDate: wednesday, closesAt: '2026-11-25T16:00:00.000Z' };
    const expected = new Map([
      [uetrOf(stuck), { row: 4, stateAtClose: 'DEBIT_RECEIVED', sequenceAtClose: 1, now: 'DEBIT_RECEIVED' }],
      [
        uetrOf(answeredLate),
        {
          row: 5,
          stateAtClose: 'DEBIT_ACCEPTANCE_DELIVERY_PENDING',
          sequenceAtClose: 3,
          now: 'DEBIT_ACCEPTANCE_DELIVERED',
        },
      ],
      // The bank's 503 came after the close: at the close it had never answered (row 7, not 8).
      [
        uetrOf(silentAtClose),
        { row: 7, stateAtClose: 'DEBIT_DELIVERY_PENDING', sequenceAtClose: 6, now: 'DEBIT_DELIVERY_PENDING' },
      ],
    ]);
    const raised = await itemsSoFar();
    expect(raised.map((item) => item.uetr).sort()).toEqual([...expected.keys()].sort());
    for (const item of raised) {
      const fields = expected.get(item.uetr);
      expect(item).toMatchObject({
        row: fields?.row,
        stateAtClose: fields?.stateAtClose,
        sequenceAtClose: fields?.sequenceAtClose,
        window,
      });
      // The state changes from where the transaction is now.
      const change = await states.waitFor(
        (record) => record.key === item.uetr && record.value.eventType === 'RECONCILIATION_REQUIRED',
      );
      expect(change.value).toMatchObject({ fromState: fields?.now, toState: 'RECONCILIATION_REQUIRED' });
    }
    expect(
      (await stack.store.reconciliation.list({ windowId: wednesday, limit: 10 })).items
        .map((item) => item.uetr)
        .sort(),
    ).toEqual([...expected.keys()].sort());
    expect(await stack.store.reconciliationCloses.recent(5)).toEqual([
      {
        businessDate: wednesday,
        closedAt: new Date(window.closesAt),
        firstRunAt: clock.now(),
        lastRunAt: clock.now(),
        runs: 1,
        raised: 3,
      },
    ]);
  });

  test('started again, the scheduler knows the day closed: it does not run the close again', async () => {
    await service?.stop();
    clock.set(sast(`${thursday}T09:00:00`));
    service = await startService();
    await service.tick();
    expect(await itemsSoFar()).toHaveLength(3);
    expect(
      (await stack.store.reconciliationCloses.recent(5)).map((close) => [close.businessDate, close.runs]),
    ).toEqual([[wednesday, 1]]);
    expect(service.windows.reconciliationClosedAt(wednesday)).toEqual(new Date('2026-11-25T16:00:00.000Z'));
  });
});

describe('a reconciliation close that fails', () => {
  test("does not hold up today's debit window: it is counted, and run again on the next tick", async () => {
    await service?.stop();
    const monday = '2026-11-30';
    const friday = '2026-11-27';
    clock.set(sast(`${monday}T09:00:00`));
    // The store refuses to keep the close (as if it went away at the end of the close), until told not to.
    let refusing = true;
    const closes = Object.create(stack.store.reconciliationCloses) as typeof stack.store.reconciliationCloses;
    closes.record = async (close) => {
      if (refusing) throw new Error('the store did not answer');
      await stack.store.reconciliationCloses.record(close);
    };
    closes.recent = (limit) => stack.store.reconciliationCloses.recent(limit);
    const started = createSchedulerService({
      kafka: stack.kafka,
      names: stack.names,
      codecs: stack.codecs,
      producer: stack.producer,
      store: { ...storeParts(), reconciliationCloses: closes },
      windows: { ...defaultWindowSettings, creditsFinalisedAt: '07:30' },
      logger: createLogger({ service: 'scheduler-missed-close', level: 'silent' }),
      clock,
      options: { tickIntervalMs: 0, acceptedHoldMs: 0 },
    });
    await started.start();
    service = started;
    const metric = async (name: string) =>
      metricSample(await (await started.app.request('/metrics')).text(), name) ?? 0;
    expect(await metric('rp_scheduler_debit_window_open')).toBe(0);

    // Friday's close is due (Monday's last business day) and fails; Monday's window opens all the same.
    await started.tick();
    expect(await metric('rp_scheduler_reconciliation_close_failures_total')).toBe(1);
    expect(await metric('rp_scheduler_debit_window_open')).toBe(1);
    expect(started.windows.reconciliationClosedAt(friday)).toBeUndefined();

    await started.tick();
    expect(await metric('rp_scheduler_reconciliation_close_failures_total')).toBe(2);

    refusing = false;
    await started.tick();
    expect(await metric('rp_scheduler_reconciliation_close_failures_total')).toBe(2);
    expect((await stack.store.reconciliationCloses.recent(5)).map((close) => close.businessDate)).toEqual([
      friday,
      wednesday,
    ]);
  });
});

/** The scheduler's part of the test's store. */
function storeParts() {
  const { transactions, debitQueue, reconciliation, reconciliationCloses, windowOverrides, audit } =
    stack.store;
  return { transactions, debitQueue, reconciliation, reconciliationCloses, windowOverrides, audit };
}
