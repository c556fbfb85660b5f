const pattern = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(\.\d+)?)?(Z|[+-](\d{2}):(\d{2})))?$/;

export interface InstantOptions {
  /** A date alone (`2026-11-23`) is taken as that day's UTC midnight. Default false. */
  readonly allowDate?: boolean;
  /** The seconds may be left out (`2026-11-23T08:00Z`). Default false. */
  readonly optionalSeconds?: boolean;
}

const daysIn = (year: number, month: number): number =>
  month === 2
    ? year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0)
      ? 29
      : 28
    : [4, 6, 9, 11].includes(month)
      ? 30
      : 31;

/**
 * An RFC 3339 date-time with its offset (`2026-11-23T08:00:00+02:00`), as a Date; undefined when the text
 * is not one, or names no real time: `Date.parse` would move 30 February to 2 March and 24:00 to the next
 * day, where this refuses them (and a leap second, which a Date cannot hold).
 */
export function parseInstant(text: string, options: InstantOptions = {}): Date | undefined {
  const match = pattern.exec(text);
  if (!match) return undefined;
  const [, year, month, day, hour, minute, second, , offset, offsetHours, offsetMinutes] = match;
  const y = Number(year);
  const m = Number(month);
  const d = Number(day);
  if (m < 1 || m > 12 || d < 1 || d > daysIn(y, m)) return undefined;
  if (hour === undefined) return options.allowDate ? new Date(`${text}T00:00:00Z`) : undefined;
  if (second === undefined && !options.optionalSeconds) return undefined;
  if (Number(hour) > 23 || Number(minute) > 59 || Number(second ?? 0) > 59) return undefined;
  if (offset !== 'Z' && (Number(offsetHours) > 23 || Number(offsetMinutes) > 59)) return undefined;
  const at = new Date(text);
  return Number.isNaN(at.getTime()) ? undefined : at;
}
