import { defineConfig, list, RecentMap, str } from '@rp/runtime';

/**
 * The processing windows' calendar: business days in one time zone, and per business day the debit
 * window (open and close) and the reconciliation window's close. Pure: every answer follows from the
 * settings and the instant asked about, so the scheduler, the dispatcher (its retry deadline) and the
 * tests all compute the same windows.
 *
 * Times of day are local to `timeZone` and converted with the zone's offset at that moment, so a zone
 * with daylight saving works too; Africa/Johannesburg (SAST, UTC+2) has none.
 */

export const weekdays = ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'] as const;
export type Weekday = (typeof weekdays)[number];

export interface WindowSettings {
  /** IANA time zone of every local time and business date. */
  readonly timeZone: string;
  /** Weekdays that are business days (before holidays are taken out). */
  readonly businessDays: readonly Weekday[];
  /** Dates (`YYYY-MM-DD`) that are not business days although their weekday is. */
  readonly holidays: readonly string[];
  /** Local `HH:MM` the debit window opens (once credits are finalised). */
  readonly debitWindowOpen: string;
  /** Local `HH:MM` the debit window closes; `24:00` is the end of the day (the next day's midnight). */
  readonly debitWindowClose: string;
  /**
   * Local `HH:MM` the reconciliation window closes: what is unresolved then is reconciled. `24:00` is the
   * end of the day: the close runs on the next day's first tick.
   */
  readonly reconciliationClose: string;
  /** Local `HH:MM` credits count as finalised; absent: only an operator (or, later, the credit flow) says so. */
  readonly creditsFinalisedAt?: string;
}

/** The instants of one business day's windows. */
export interface BusinessDayWindows {
  readonly businessDate: string;
  readonly debitOpensAt: Date;
  readonly debitClosesAt: Date;
  readonly reconciliationClosesAt: Date;
  readonly creditsFinalisedAt?: Date;
}

export const defaultWindowSettings: WindowSettings = {
  timeZone: 'Africa/Johannesburg',
  businessDays: ['MON', 'TUE', 'WED', 'THU', 'FRI'],
  holidays: [],
  debitWindowOpen: '08:00',
  debitWindowClose: '17:00',
  reconciliationClose: '18:00',
};

const isoDate = /^(\d{4})-(\d{2})-(\d{2})$/;
const timeOfDay = /^([01]\d|2[0-3]):([0-5]\d)$/;
/** A close may also be at the end of the day, `24:00`. */
const closingTime = /^(?:([01]\d|2[0-3]):([0-5]\d)|(24):(00))$/;
const dayMs = 86_400_000;

/**
 * Minutes after local midnight of `HH:MM`; throws RangeError for anything else. With `endOfDay`, `24:00`
 * is taken too (1440, the next day's midnight): a window may close when its day ends.
 */
export function parseTimeOfDay(text: string, endOfDay = false): number {
  const match = (endOfDay ? closingTime : timeOfDay).exec(text);
  if (!match) {
    throw new RangeError(
      `expected a local time HH:MM (00:00-${endOfDay ? '24:00' : '23:59'}), got '${text}'`,
    );
  }
  return Number(match[1] ?? match[3]) * 60 + Number(match[2] ?? match[4]);
}

/** Validates `YYYY-MM-DD` as a calendar date; throws RangeError otherwise. */
export function assertIsoDate(text: string): string {
  const match = isoDate.exec(text);
  const parsed = new Date(`${text}T00:00:00Z`);
  if (!match || Number.isNaN(parsed.getTime()) || parsed.toISOString().slice(0, 10) !== text) {
    throw new RangeError(`expected a date YYYY-MM-DD, got '${text}'`);
  }
  return text;
}

/** The date `days` after `date` (negative: before). */
export function addDays(date: string, days: number): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + days * dayMs).toISOString().slice(0, 10);
}

export class WindowCalendar {
  readonly settings: WindowSettings;
  readonly #businessDays: ReadonlySet<number>;
  readonly #holidays: ReadonlySet<string>;
  readonly #debitOpen: number;
  readonly #debitClose: number;
  readonly #reconciliationClose: number;
  readonly #creditsFinalised: number | undefined;
  readonly #parts: Intl.DateTimeFormat;

  constructor(settings: WindowSettings) {
    let parts: Intl.DateTimeFormat;
    try {
      parts = new Intl.DateTimeFormat('en-GB', {
        timeZone: settings.timeZone,
        hourCycle: 'h23',
        year: 'numeric',
        month: '2-digit',
        day: '2-digit',
        hour: '2-digit',
        minute: '2-digit',
        second: '2-digit',
      });
    } catch {
      throw new RangeError(`unknown time zone '${settings.timeZone}'`);
    }
    this.#parts = parts;
    if (settings.businessDays.length === 0) throw new RangeError('at least one business day is needed');
    this.#businessDays = new Set(
      settings.businessDays.map((day) => {
        const index = weekdays.indexOf(day);
        if (index < 0) throw new RangeError(`unknown weekday '${day}' (use ${weekdays.join(', ')})`);
        return index;
      }),
    );
    this.#holidays = new Set(settings.holidays.map(assertIsoDate));
    this.#debitOpen = parseTimeOfDay(settings.debitWindowOpen);
    this.#debitClose = parseTimeOfDay(settings.debitWindowClose, true);
    this.#reconciliationClose = parseTimeOfDay(settings.reconciliationClose, true);
    this.#creditsFinalised =
      settings.creditsFinalisedAt === undefined ? undefined : parseTimeOfDay(settings.creditsFinalisedAt);
    if (this.#debitOpen >= this.#debitClose) {
      throw new RangeError('the debit window must open before it closes');
    }
    if (this.#debitClose > this.#reconciliationClose) {
      throw new RangeError('the reconciliation window cannot close before the debit window');
    }
    if (this.#creditsFinalised !== undefined && this.#creditsFinalised >= this.#debitClose) {
      throw new RangeError('credits must be finalised before the debit window closes');
    }
    this.settings = settings;
  }

  /** The local calendar date of an instant. */
  localDate(instant: Date): string {
    const { year, month, day } = this.#localParts(instant);
    return `${year}-${pad(month)}-${pad(day)}`;
  }

  isBusinessDay(date: string): boolean {
    let businessDay = this.#businessDayOf.get(date);
    if (businessDay === undefined) {
      const weekday = new Date(`${assertIsoDate(date)}T00:00:00Z`).getUTCDay();
      businessDay = this.#businessDays.has(weekday) && !this.#holidays.has(date);
      this.#businessDayOf.set(date, businessDay);
    }
    return businessDay;
  }

  /** The first business day on or after `date`. */
  businessDayOnOrAfter(date: string): string {
    let day = assertIsoDate(date);
    // Bounded: a week holds at least one business weekday, so only holidays can extend the walk.
    for (let step = 0; step < 7 + this.#holidays.size; step += 1) {
      if (this.isBusinessDay(day)) return day;
      day = addDays(day, 1);
    }
    throw new RangeError(`no business day found after ${date}`);
  }

  /** The first business day strictly after `date`. */
  nextBusinessDay(date: string): string {
    return this.businessDayOnOrAfter(addDays(date, 1));
  }

  /** The last business day strictly before `date`. */
  previousBusinessDay(date: string): string {
    let day = addDays(assertIsoDate(date), -1);
    for (let step = 0; step < 7 + this.#holidays.size; step += 1) {
      if (this.isBusinessDay(day)) return day;
      day = addDays(day, -1);
    }
    throw new RangeError(`no business day found before ${date}`);
  }

  /** The instant of a local time of day (minutes after midnight) on a date. */
  instantAt(date: string, minutes: number): Date {
    const [year, month, day] = assertIsoDate(date).split('-').map(Number) as [number, number, number];
    const wall = Date.UTC(year, month - 1, day, Math.floor(minutes / 60), minutes % 60);
    // The zone's offset at the wall time, found in two passes (exact unless the time falls in a gap).
    const first = wall - this.#offsetMs(new Date(wall));
    return new Date(wall - this.#offsetMs(new Date(first)));
  }

  /**
   * The windows of a date (whether or not it is a business day). The answer is shared by every caller
   * that asks about the same date (each debit and each delivery asks about today's): never change it.
   */
  windowsOf(date: string): BusinessDayWindows {
    let windows = this.#windowsOf.get(date);
    if (windows === undefined) {
      windows = Object.freeze({
        businessDate: date,
        debitOpensAt: this.instantAt(date, this.#debitOpen),
        debitClosesAt: this.instantAt(date, this.#debitClose),
        reconciliationClosesAt: this.instantAt(date, this.#reconciliationClose),
        ...(this.#creditsFinalised === undefined
          ? {}
          : { creditsFinalisedAt: this.instantAt(date, this.#creditsFinalised) }),
      });
      this.#windowsOf.set(date, windows);
    }
    return windows;
  }

  /** Whether the scheduled debit window of `date` is open at `now`, credits gate aside. */
  isWithinDebitHours(date: string, now: Date): boolean {
    if (!this.isBusinessDay(date)) return false;
    const windows = this.windowsOf(date);
    return now >= windows.debitOpensAt && now < windows.debitClosesAt;
  }

  /**
   * The business date of the reconciliation window that covers a message created at `origin`: the
   * reconciliation close of that business day, or of the next one when `origin` is on a day off or
   * after that day's close. The dispatcher retries a delivery until this window closes.
   */
  reconciliationWindowOf(origin: Date): string {
    const date = this.localDate(origin);
    if (this.isBusinessDay(date) && origin < this.windowsOf(date).reconciliationClosesAt) return date;
    return this.nextBusinessDay(date);
  }

  /** When retries of a delivery of a message created at `origin` stop (see reconciliationWindowOf). */
  deliveryDeadline(origin: Date): Date {
    return this.windowsOf(this.reconciliationWindowOf(origin)).reconciliationClosesAt;
  }

  /**
   * The business date of the debit window a debit that becomes ready at `now` waits for: today's if it
   * is a business day whose debit window has not closed (and `todayClosed` does not say an operator
   * closed it), else the next business day's; never before the requested collection date.
   */
  debitWindowFor(now: Date, requestedCollectionDate?: string, todayClosed = false): string {
    const today = this.localDate(now);
    const soonest =
      !todayClosed && this.isBusinessDay(today) && now < this.windowsOf(today).debitClosesAt
        ? today
        : this.nextBusinessDay(today);
    if (requestedCollectionDate !== undefined && requestedCollectionDate > soonest) {
      return this.businessDayOnOrAfter(requestedCollectionDate);
    }
    return soonest;
  }

  #localParts(instant: Date): { year: number; month: number; day: number } {
    const local = new Date(instant.getTime() + this.#offsetMs(instant));
    return { year: local.getUTCFullYear(), month: local.getUTCMonth() + 1, day: local.getUTCDate() };
  }

  /**
   * Answers by date, since they follow from the settings alone: every debit and every delivery asks about
   * today and its neighbours, and working them out each time (parsing, checking, the zone's offset) was a
   * per cent of the dispatcher's CPU.
   */
  readonly #businessDayOf = new RecentMap<string, boolean>(256);
  readonly #windowsOf = new RecentMap<string, BusinessDayWindows>(256);

  /** Offsets by minute since the epoch: today's minute, and the few that window times fall on. */
  readonly #offsets = new RecentMap<number, number>(256);

  /**
   * Local wall time minus UTC at an instant, in milliseconds (whole seconds). Asked of the time zone once
   * a minute at most: a zone's offset changes on a whole minute, and every debit and delivery asks for
   * today's date, which made the formatting a few percent of the dispatcher's CPU.
   */
  #offsetMs(instant: Date): number {
    const minute = Math.floor(instant.getTime() / 60_000);
    let offset = this.#offsets.get(minute);
    if (offset === undefined) {
      offset = this.#zoneOffsetMs(new Date(minute * 60_000));
      this.#offsets.set(minute, offset);
    }
    return offset;
  }

  #zoneOffsetMs(instant: Date): number {
    const values: Record<string, number> = {};
    for (const part of this.#parts.formatToParts(instant)) {
      if (part.type !== 'literal') values[part.type] = Number(part.value);
    }
    const wall = Date.UTC(
      values.year ?? 0,
      (values.month ?? 1) - 1,
      values.day ?? 1,
      values.hour ?? 0,
      values.minute ?? 0,
      values.second ?? 0,
    );
    return wall - Math.floor(instant.getTime() / 1000) * 1000;
  }
}

function pad(value: number): string {
  return String(value).padStart(2, '0');
}

/**
 * The window variables, shared by every service that needs the calendar (the scheduler runs the
 * windows; the dispatcher stops retrying at the reconciliation window's close).
 */
export const windowConfig = defineConfig({
  WINDOW_TIMEZONE: str({
    default: defaultWindowSettings.timeZone,
    doc: 'IANA time zone of the business calendar and of every window time',
  }),
  BUSINESS_DAYS: list({
    default: defaultWindowSettings.businessDays,
    doc: 'Weekdays that are business days (SUN..SAT, comma-separated)',
  }),
  BUSINESS_HOLIDAYS: list({
    optional: true,
    doc: 'Public holidays (YYYY-MM-DD, comma-separated): no windows on those days',
  }),
  DEBIT_WINDOW_OPEN: str({
    default: defaultWindowSettings.debitWindowOpen,
    pattern: timeOfDay,
    doc: 'Local HH:MM the debit window opens, once credits are finalised',
  }),
  DEBIT_WINDOW_CLOSE: str({
    default: defaultWindowSettings.debitWindowClose,
    pattern: closingTime,
    doc: 'Local HH:MM the debit window closes; 24:00 is the end of the day',
  }),
  RECONCILIATION_WINDOW_CLOSE: str({
    default: defaultWindowSettings.reconciliationClose,
    pattern: closingTime,
    doc: "Local HH:MM the reconciliation window closes: unresolved transactions become reconciliation items, deliveries stop retrying; 24:00 is the end of the day (the close runs on the next day's first tick)",
  }),
  CREDITS_FINALISED_AT: str({
    optional: true,
    pattern: timeOfDay,
    doc: 'The cut-off: local HH:MM credits count as finalised even if some are still in flight (reported as the cut-off); unset: no cut-off',
  }),
});

/** The settings from a loaded window config (see windowConfig). */
export function windowSettingsFromConfig(config: {
  readonly WINDOW_TIMEZONE: string;
  readonly BUSINESS_DAYS: readonly string[];
  readonly BUSINESS_HOLIDAYS: readonly string[] | undefined;
  readonly DEBIT_WINDOW_OPEN: string;
  readonly DEBIT_WINDOW_CLOSE: string;
  readonly RECONCILIATION_WINDOW_CLOSE: string;
  readonly CREDITS_FINALISED_AT: string | undefined;
}): WindowSettings {
  return {
    timeZone: config.WINDOW_TIMEZONE,
    businessDays: config.BUSINESS_DAYS.map((day) => day.toUpperCase() as Weekday),
    holidays: config.BUSINESS_HOLIDAYS ?? [],
    debitWindowOpen: config.DEBIT_WINDOW_OPEN,
    debitWindowClose: config.DEBIT_WINDOW_CLOSE,
    reconciliationClose: config.RECONCILIATION_WINDOW_CLOSE,
    ...(config.CREDITS_FINALISED_AT === undefined ? {} : { creditsFinalisedAt: config.CREDITS_FINALISED_AT }),
  };
}
