import { ManualClock, ScaledClock } from '@rp/runtime';
import { describe, expect, test } from 'vitest';
import {
  anyCreditsGate,
  DeclaredCreditsGate,
  scheduledCreditsGate,
  WindowController,
} from './window-state.ts';
import { defaultWindowSettings, WindowCalendar } from './windows.ts';

const sast = (local: string) => new Date(`${local}+02:00`);
const monday = '2026-11-23';

function controller(creditsFinalisedAt?: string) {
  const calendar = new WindowCalendar({
    ...defaultWindowSettings,
    ...(creditsFinalisedAt ? { creditsFinalisedAt } : {}),
  });
  const declared = new DeclaredCreditsGate();
  return {
    declared,
    windows: new WindowController(calendar, anyCreditsGate(scheduledCreditsGate(calendar), declared)),
  };
}

describe('the debit window state', () => {
  test.each([
    ['2026-11-23T07:00:00', 'before-open'],
    ['2026-11-23T07:59:59', 'before-open'],
    ['2026-11-23T08:00:00', 'open'],
    ['2026-11-23T16:59:59', 'open'],
    ['2026-11-23T17:00:00', 'closed'],
  ] as const)('with credits finalised at 07:30, at %s SAST it is %s', async (local, state) => {
    const { windows } = controller('07:30');
    expect(await windows.debitWindowState(monday, sast(local))).toBe(state);
  });

  test('credits finalised after the window opens keep it shut until then', async () => {
    const { windows } = controller('09:15');
    expect(await windows.debitWindowState(monday, sast('2026-11-23T09:00:00'))).toBe('awaiting-credits');
    expect(await windows.debitWindowState(monday, sast('2026-11-23T09:15:00'))).toBe('open');
  });

  test('without a credits time, only a declaration opens it', async () => {
    const { windows, declared } = controller();
    const now = sast('2026-11-23T10:00:00');
    expect(await windows.debitWindowState(monday, now)).toBe('awaiting-credits');
    declared.declare(monday);
    expect(await windows.debitWindowState(monday, now)).toBe('open');
  });

  test('an operator opens it on a day off and closes it early', async () => {
    const { windows } = controller('07:30');
    const saturday = '2026-11-28';
    expect(await windows.debitWindowState(saturday, sast('2026-11-28T10:00:00'))).toBe('not-a-business-day');
    windows.openDebitWindow(saturday);
    expect(await windows.isDebitWindowOpen(saturday, sast('2026-11-28T10:00:00'))).toBe(true);
    windows.closeDebitWindow(monday);
    expect(await windows.debitWindowState(monday, sast('2026-11-23T10:00:00'))).toBe('closed');
    expect(windows.isDebitWindowClosedEarly(monday)).toBe(true);
  });

  test('a closed reconciliation window closes the debit window, and is due once', async () => {
    const { windows } = controller('07:30');
    expect(windows.isReconciliationDue(monday, sast('2026-11-23T17:59:59'))).toBe(false);
    expect(windows.isReconciliationDue(monday, sast('2026-11-23T18:00:00'))).toBe(true);
    expect(windows.isReconciliationDue('2026-11-28', sast('2026-11-28T19:00:00'))).toBe(false);
    windows.openDebitWindow(monday);
    windows.markReconciliationClosed(monday, sast('2026-11-23T18:00:00'));
    expect(windows.isReconciliationDue(monday, sast('2026-11-23T19:00:00'))).toBe(false);
    expect(await windows.debitWindowState(monday, sast('2026-11-23T18:30:00'))).toBe('closed');
  });
});

describe('the reconciliation closes due', () => {
  const tuesday = '2026-11-24';

  test("today's once its time has come, and the last business day's while it has not run", () => {
    const { windows } = controller('07:30');
    expect(windows.reconciliationsDue(sast('2026-11-24T09:00:00'))).toEqual([monday]);
    expect(windows.reconciliationsDue(sast('2026-11-24T18:00:00'))).toEqual([monday, tuesday]);
    windows.markReconciliationClosed(monday, sast('2026-11-24T09:00:00'));
    expect(windows.reconciliationsDue(sast('2026-11-24T18:00:00'))).toEqual([tuesday]);
    // Over the weekend the last business day is Friday's.
    expect(windows.reconciliationsDue(sast('2026-11-30T07:00:00'))).toEqual(['2026-11-27']);
  });

  test("a close at 24:00 is due on the next day's first look, not before", () => {
    const calendar = new WindowCalendar({
      ...defaultWindowSettings,
      debitWindowOpen: '00:00',
      debitWindowClose: '24:00',
      reconciliationClose: '24:00',
    });
    const windows = new WindowController(calendar, new DeclaredCreditsGate());
    windows.markReconciliationClosed('2026-11-20', sast('2026-11-21T00:00:00'));
    expect(windows.reconciliationsDue(sast('2026-11-23T23:59:59.999'))).toEqual([]);
    expect(windows.reconciliationsDue(sast('2026-11-24T00:00:00'))).toEqual([monday]);
  });

  test('the closes kept in the store are not due again after a restart', () => {
    const { windows } = controller('07:30');
    windows.restoreReconciliationCloses([
      { businessDate: monday, closedAt: sast('2026-11-23T18:00:00') },
      { businessDate: tuesday, closedAt: sast('2026-11-24T18:00:00') },
    ]);
    expect(windows.reconciliationsDue(sast('2026-11-24T19:00:00'))).toEqual([]);
    expect(windows.reconciliationClosedAt(tuesday)).toEqual(sast('2026-11-24T18:00:00'));
  });
});

test('a fast clock lives through a business day in minutes', async () => {
  const real = new ManualClock('2026-11-23T05:59:00Z');
  // 60 times faster: a real second is a business minute.
  const clock = new ScaledClock(sast('2026-11-23T07:59:00'), 60, real);
  const { windows } = controller('07:30');
  expect(await windows.isDebitWindowOpen(monday, clock.now())).toBe(false);
  real.advance(1_000);
  expect(await windows.isDebitWindowOpen(monday, clock.now())).toBe(true);
  real.advance(10 * 60 * 1_000);
  expect(await windows.debitWindowState(monday, clock.now())).toBe('closed');
  expect(windows.isReconciliationDue(monday, clock.now())).toBe(true);
  const status = await windows.status(clock.now());
  expect(status).toMatchObject({
    businessDate: monday,
    isBusinessDay: true,
    debitWindow: { state: 'closed', opensAt: '2026-11-23T06:00:00.000Z', creditsFinalised: true },
    reconciliationWindow: { closesAt: '2026-11-23T16:00:00.000Z', closed: false },
    nextBusinessDate: '2026-11-24',
  });
});
