import { describe, expect, test } from 'vitest';
import {
  addDays,
  defaultWindowSettings,
  parseTimeOfDay,
  WindowCalendar,
  type WindowSettings,
} from './windows.ts';

// 2026-11-23 is a Monday. SAST is UTC+2 all year: 08:00 SAST is 06:00Z.
const settings: WindowSettings = {
  ...defaultWindowSettings,
  holidays: ['2026-12-16', '2026-12-25', '2026-11-30'],
};
const calendar = new WindowCalendar(settings);
const sast = (local: string) => new Date(`${local}+02:00`);

describe('local dates and business days', () => {
  test.each([
    ['2026-11-23T21:59:59Z', '2026-11-23'],
    ['2026-11-23T22:00:00Z', '2026-11-24'],
    ['2026-11-22T22:00:00Z', '2026-11-23'],
    ['2026-12-31T23:30:00Z', '2027-01-01'],
  ])('%s is %s in Johannesburg', (instant, date) => {
    expect(calendar.localDate(new Date(instant))).toBe(date);
  });

  test.each([
    ['2026-11-23', true, 'Monday'],
    ['2026-11-27', true, 'Friday'],
    ['2026-11-28', false, 'Saturday'],
    ['2026-11-29', false, 'Sunday'],
    ['2026-12-16', false, 'Wednesday, a holiday'],
    ['2026-12-25', false, 'Friday, a holiday'],
    ['2026-11-30', false, 'Monday, a holiday'],
  ])('%s business day: %s (%s)', (date, expected) => {
    expect(calendar.isBusinessDay(date)).toBe(expected);
  });

  test.each([
    ['2026-11-23', '2026-11-24', 'Monday to Tuesday'],
    ['2026-11-27', '2026-12-01', 'Friday over the weekend and the Monday holiday'],
    ['2026-11-28', '2026-12-01', 'Saturday'],
    ['2026-12-15', '2026-12-17', 'over a Wednesday holiday'],
    ['2026-12-24', '2026-12-28', 'over Christmas and the weekend'],
  ])('the business day after %s is %s (%s)', (date, next) => {
    expect(calendar.nextBusinessDay(date)).toBe(next);
  });

  test('previous and on-or-after', () => {
    expect(calendar.previousBusinessDay('2026-12-01')).toBe('2026-11-27');
    expect(calendar.businessDayOnOrAfter('2026-11-23')).toBe('2026-11-23');
    expect(calendar.businessDayOnOrAfter('2026-11-28')).toBe('2026-12-01');
    expect(addDays('2026-02-28', 1)).toBe('2026-03-01');
  });
});

describe('window times', () => {
  test('a business day has its debit and reconciliation windows in SAST', () => {
    const windows = calendar.windowsOf('2026-11-23');
    expect(windows.debitOpensAt.toISOString()).toBe('2026-11-23T06:00:00.000Z');
    expect(windows.debitClosesAt.toISOString()).toBe('2026-11-23T15:00:00.000Z');
    expect(windows.reconciliationClosesAt.toISOString()).toBe('2026-11-23T16:00:00.000Z');
    expect(windows.creditsFinalisedAt).toBeUndefined();
  });

  test('the credits time is part of the windows when configured', () => {
    const withCredits = new WindowCalendar({ ...settings, creditsFinalisedAt: '07:30' });
    expect(withCredits.windowsOf('2026-11-23').creditsFinalisedAt?.toISOString()).toBe(
      '2026-11-23T05:30:00.000Z',
    );
  });

  test.each([
    ['2026-11-23T07:59:59', false],
    ['2026-11-23T08:00:00', true],
    ['2026-11-23T16:59:59', true],
    ['2026-11-23T17:00:00', false],
    ['2026-11-28T10:00:00', false],
  ])('debit hours at %s SAST: %s', (local, expected) => {
    const now = sast(local);
    expect(calendar.isWithinDebitHours(calendar.localDate(now), now)).toBe(expected);
  });

  test('a zone with daylight saving converts each date with its own offset', () => {
    const london = new WindowCalendar({ ...defaultWindowSettings, timeZone: 'Europe/London' });
    expect(london.instantAt('2026-03-28', parseTimeOfDay('08:00')).toISOString()).toBe(
      '2026-03-28T08:00:00.000Z',
    );
    expect(london.instantAt('2026-03-30', parseTimeOfDay('08:00')).toISOString()).toBe(
      '2026-03-30T07:00:00.000Z',
    );
  });

  test.each([
    ['Europe/London', '2026-03-29T00:30:00Z'],
    ['Australia/Lord_Howe', '2026-04-04T14:30:00Z'],
    ['America/St_Johns', '2026-11-01T03:00:00Z'],
  ])(
    'the local date in %s around its clock change agrees with the time zone database, minute by minute',
    (timeZone, around) => {
      const zoned = new WindowCalendar({ ...defaultWindowSettings, timeZone });
      const reference = new Intl.DateTimeFormat('en-CA', { timeZone });
      // A day either side of the change: both midnights are crossed, one with each offset.
      const start = Date.parse(around) - 24 * 3_600_000;
      for (let minute = 0; minute <= 48 * 60; minute += 1) {
        // A second before and after each minute's start: the offset it keeps for the minute holds at both.
        for (const instant of [new Date(start + minute * 60_000 - 1_000), new Date(start + minute * 60_000)])
          expect(zoned.localDate(instant)).toBe(reference.format(instant));
      }
    },
  );
});

describe('answers by date, remembered', () => {
  test('a date asked again gets the same windows; past the memory, every date still gets its own', () => {
    const london = new WindowCalendar({ ...defaultWindowSettings, timeZone: 'Europe/London' });
    expect(london.windowsOf('2026-03-30')).toBe(london.windowsOf('2026-03-30'));
    expect(Object.isFrozen(london.windowsOf('2026-03-30'))).toBe(true);
    // Two years of dates, twice over: more than the calendar keeps, across two clock changes a year.
    for (const pass of [1, 2]) {
      for (let day = 0; day < 730; day += 1) {
        const date = addDays('2026-01-01', day);
        const fresh = new WindowCalendar({ ...defaultWindowSettings, timeZone: 'Europe/London' });
        expect(london.windowsOf(date), `${date}, pass ${pass}`).toEqual(fresh.windowsOf(date));
        expect(london.isBusinessDay(date)).toBe(fresh.isBusinessDay(date));
      }
    }
  });

  test('holidays are remembered as days off, and a bad date is refused every time', () => {
    expect(calendar.isBusinessDay('2026-12-16')).toBe(false);
    expect(calendar.isBusinessDay('2026-12-16')).toBe(false);
    expect(calendar.isBusinessDay('2026-12-17')).toBe(true);
    for (const attempt of [1, 2]) {
      expect(() => calendar.isBusinessDay('2026-02-30'), `attempt ${attempt}`).toThrow(RangeError);
      expect(() => calendar.windowsOf('2026-13-01'), `attempt ${attempt}`).toThrow(RangeError);
    }
  });
});

describe('delivery deadline: the close of the reconciliation window the message falls in', () => {
  test.each([
    ['2026-11-23T10:00:00', '2026-11-23T16:00:00.000Z', 'during the day: today'],
    ['2026-11-23T17:59:59', '2026-11-23T16:00:00.000Z', 'just before the close'],
    ['2026-11-23T18:00:00', '2026-11-24T16:00:00.000Z', 'at the close: the next business day'],
    ['2026-11-27T19:00:00', '2026-12-01T16:00:00.000Z', 'Friday evening: after the weekend and the holiday'],
    ['2026-11-28T09:00:00', '2026-12-01T16:00:00.000Z', 'Saturday'],
    ['2026-11-24T01:00:00', '2026-11-24T16:00:00.000Z', 'early morning'],
  ])('created %s SAST: until %s (%s)', (local, deadline) => {
    expect(calendar.deliveryDeadline(sast(local)).toISOString()).toBe(deadline);
  });
});

describe('the debit window a ready debit waits for', () => {
  test.each([
    ['2026-11-23T07:00:00', undefined, false, '2026-11-23', 'before the window opens'],
    ['2026-11-23T16:59:00', undefined, false, '2026-11-23', 'while it is open'],
    ['2026-11-23T17:00:00', undefined, false, '2026-11-24', 'once it has closed'],
    ['2026-11-23T10:00:00', undefined, true, '2026-11-24', 'closed early by an operator'],
    ['2026-11-27T17:30:00', undefined, false, '2026-12-01', 'Friday evening'],
    ['2026-11-28T10:00:00', undefined, false, '2026-12-01', 'Saturday'],
    ['2026-11-23T10:00:00', '2026-11-26', false, '2026-11-26', 'a later requested collection date'],
    ['2026-11-23T10:00:00', '2026-11-28', false, '2026-12-01', 'a requested Saturday: the next business day'],
    ['2026-11-23T10:00:00', '2026-11-20', false, '2026-11-23', 'a past requested date: as soon as possible'],
  ] as [string, string | undefined, boolean, string, string][])(
    'ready %s SAST, requested %s, closed early %s: %s (%s)',
    (local, requested, closed, expected) => {
      expect(calendar.debitWindowFor(sast(local), requested, closed)).toBe(expected);
    },
  );
});

describe('windows that close at the end of the day (24:00)', () => {
  const endOfDay = new WindowCalendar({
    ...settings,
    debitWindowOpen: '00:00',
    debitWindowClose: '24:00',
    reconciliationClose: '24:00',
  });

  test("both close at the next day's midnight, SAST", () => {
    const windows = endOfDay.windowsOf('2026-11-23');
    expect(windows.debitOpensAt.toISOString()).toBe('2026-11-22T22:00:00.000Z');
    expect(windows.debitClosesAt.toISOString()).toBe('2026-11-23T22:00:00.000Z');
    expect(windows.reconciliationClosesAt.toISOString()).toBe('2026-11-23T22:00:00.000Z');
  });

  test('the debit window is open to the last instant of its day; a debit ready at midnight waits for the next', () => {
    expect(endOfDay.isWithinDebitHours('2026-11-23', sast('2026-11-23T23:59:59.999'))).toBe(true);
    expect(endOfDay.debitWindowFor(sast('2026-11-23T23:59:59.999'))).toBe('2026-11-23');
    expect(endOfDay.debitWindowFor(sast('2026-11-24T00:00:00'))).toBe('2026-11-24');
  });

  test("a delivery of the day is retried until its day's end", () => {
    expect(endOfDay.deliveryDeadline(sast('2026-11-23T23:59:59')).toISOString()).toBe(
      '2026-11-23T22:00:00.000Z',
    );
    expect(endOfDay.reconciliationWindowOf(sast('2026-11-24T00:00:00'))).toBe('2026-11-24');
  });

  test('24:00 is a closing time only, and nothing later is', () => {
    expect(parseTimeOfDay('24:00', true)).toBe(1_440);
    expect(() => parseTimeOfDay('24:00')).toThrow(/00:00-23:59/);
    expect(() => parseTimeOfDay('24:01', true)).toThrow(/00:00-24:00/);
    expect(() => parseTimeOfDay('25:00', true)).toThrow(RangeError);
    expect(() => new WindowCalendar({ ...settings, debitWindowOpen: '24:00' })).toThrow(/23:59/);
    expect(() => new WindowCalendar({ ...settings, creditsFinalisedAt: '24:00' })).toThrow(/23:59/);
    expect(
      () => new WindowCalendar({ ...settings, debitWindowClose: '24:00', reconciliationClose: '23:00' }),
    ).toThrow(/cannot close before/);
  });
});

describe('settings are validated', () => {
  test.each([
    [{ timeZone: 'Mars/Olympus' }, /time zone/],
    [{ debitWindowOpen: '17:00', debitWindowClose: '08:00' }, /open before it closes/],
    [{ reconciliationClose: '16:00' }, /cannot close before/],
    [{ debitWindowOpen: '8:00' }, /HH:MM/],
    [{ holidays: ['2026-02-30'] }, /YYYY-MM-DD/],
    [{ businessDays: [] }, /at least one/],
    [{ creditsFinalisedAt: '17:30' }, /credits/],
  ] as const)('%o is refused', (override, message) => {
    expect(() => new WindowCalendar({ ...defaultWindowSettings, ...override })).toThrow(message);
  });
});
