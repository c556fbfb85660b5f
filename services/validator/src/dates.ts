import type { IsoDate } from '@rp/contracts';

/** The engine's business time zone: dates in messages are South African calendar dates. */
export const businessTimeZone = 'Africa/Johannesburg';

const calendarDate = new Intl.DateTimeFormat('en-CA', {
  timeZone: businessTimeZone,
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
});

const minuteMs = 60_000;
/** The last minute asked about and its date: every offset this zone has used is whole minutes. */
let lastMinute = Number.NaN;
let lastDate = '';

/**
 * The calendar date in Johannesburg at `instant` ("2025-03-14"); 22:30 UTC is already the next day
 * there. Formatted once a minute at most: every message of a minute asks for the same date.
 */
export function businessDate(instant: Date): IsoDate {
  const minute = Math.floor(instant.getTime() / minuteMs);
  if (minute !== lastMinute) {
    lastDate = calendarDate.format(instant);
    lastMinute = minute;
  }
  return lastDate;
}

const dayMs = 86_400_000;

/** `date` plus `days` calendar days. */
export function addDays(date: IsoDate, days: number): IsoDate {
  return new Date(Date.parse(`${date}T00:00:00Z`) + days * dayMs).toISOString().slice(0, 10);
}
