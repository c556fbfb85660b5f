import type { WindowCalendar } from './windows.ts';

/**
 * The "credits finalised" gate: the debit window of a business day opens only once its credits are
 * final (spec 1.7). Credits come through the engine in a later release; until then the gate is a time
 * of day and an operator's word. An implementation may ask another component, hence the promise.
 */
export interface CreditsGate {
  isFinalised(businessDate: string, now: Date): boolean | Promise<boolean>;
}

/** Finalised at the configured time of day (never, when none is configured). */
export function scheduledCreditsGate(calendar: WindowCalendar): CreditsGate {
  return {
    isFinalised(businessDate, now) {
      const at = calendar.windowsOf(businessDate).creditsFinalisedAt;
      return at !== undefined && now >= at;
    },
  };
}

/** Finalised when someone declared it for the date (the admin trigger). Remembers a few recent dates. */
export class DeclaredCreditsGate implements CreditsGate {
  readonly #dates = new Set<string>();

  declare(businessDate: string): void {
    this.#dates.add(businessDate);
    if (this.#dates.size > 31) {
      const oldest = this.#dates.values().next();
      if (!oldest.done) this.#dates.delete(oldest.value);
    }
  }

  isFinalised(businessDate: string): boolean {
    return this.#dates.has(businessDate);
  }
}

/** Finalised as soon as any of the gates says so. */
export function anyCreditsGate(...gates: readonly CreditsGate[]): CreditsGate {
  return {
    async isFinalised(businessDate, now) {
      for (const gate of gates) if (await gate.isFinalised(businessDate, now)) return true;
      return false;
    },
  };
}

export type DebitWindowState = 'not-a-business-day' | 'before-open' | 'awaiting-credits' | 'open' | 'closed';

/** What the admin API shows of one business date. */
export interface WindowStatus {
  now: string;
  timeZone: string;
  businessDate: string;
  isBusinessDay: boolean;
  debitWindow: {
    state: DebitWindowState;
    opensAt: string;
    closesAt: string;
    creditsFinalised: boolean;
    creditsFinalisedAt?: string;
    /** An operator's open or close, which wins over the schedule for the day. */
    override?: 'open' | 'closed';
  };
  reconciliationWindow: {
    closesAt: string;
    closed: boolean;
    closedAt?: string;
  };
  nextBusinessDate: string;
}

interface DayOverrides {
  debit?: 'open' | 'closed';
  reconciliationClosedAt?: Date;
}

/** Days whose overrides are remembered: the current one matters, a few more help the admin view. */
const rememberedDays = 14;

/**
 * The state of the windows: the calendar's schedule, the credits gate, and what operators did today.
 * Operator actions live in memory (one scheduler instance runs the windows): after a restart the
 * schedule decides again, and a reconciliation close that runs again records nothing twice.
 */
export class WindowController {
  readonly calendar: WindowCalendar;
  readonly #gate: CreditsGate;
  readonly #days = new Map<string, DayOverrides>();

  constructor(calendar: WindowCalendar, gate: CreditsGate) {
    this.calendar = calendar;
    this.#gate = gate;
  }

  /** An operator opens the debit window of `date` now (declaring its credits final). */
  openDebitWindow(date: string): void {
    this.#day(date).debit = 'open';
  }

  /** An operator closes the debit window of `date` for the rest of the day. */
  closeDebitWindow(date: string): void {
    this.#day(date).debit = 'closed';
  }

  markReconciliationClosed(date: string, at: Date): void {
    this.#day(date).reconciliationClosedAt ??= at;
  }

  /** A close that failed half way is forgotten, so the next tick runs it again. */
  forgetReconciliationClose(date: string): void {
    const day = this.#days.get(date);
    if (day) delete day.reconciliationClosedAt;
  }

  reconciliationClosedAt(date: string): Date | undefined {
    return this.#days.get(date)?.reconciliationClosedAt;
  }

  /** Whether the debit window of `date` was closed early (by an operator or by reconciliation). */
  isDebitWindowClosedEarly(date: string): boolean {
    const day = this.#days.get(date);
    return day?.debit === 'closed' || day?.reconciliationClosedAt !== undefined;
  }

  async debitWindowState(date: string, now: Date): Promise<DebitWindowState> {
    const day = this.#days.get(date);
    if (day?.reconciliationClosedAt !== undefined || day?.debit === 'closed') return 'closed';
    if (day?.debit === 'open') return 'open';
    if (!this.calendar.isBusinessDay(date)) return 'not-a-business-day';
    const windows = this.calendar.windowsOf(date);
    if (now >= windows.debitClosesAt) return 'closed';
    if (now < windows.debitOpensAt) return 'before-open';
    return (await this.#gate.isFinalised(date, now)) ? 'open' : 'awaiting-credits';
  }

  async isDebitWindowOpen(date: string, now: Date): Promise<boolean> {
    return (await this.debitWindowState(date, now)) === 'open';
  }

  /** Whether the scheduled reconciliation close of `date` has come and not yet been run. */
  isReconciliationDue(date: string, now: Date): boolean {
    return (
      this.calendar.isBusinessDay(date) &&
      this.reconciliationClosedAt(date) === undefined &&
      now >= this.calendar.windowsOf(date).reconciliationClosesAt
    );
  }

  async status(now: Date): Promise<WindowStatus> {
    const date = this.calendar.localDate(now);
    const windows = this.calendar.windowsOf(date);
    const day = this.#days.get(date);
    const state = await this.debitWindowState(date, now);
    const closedAt = day?.reconciliationClosedAt;
    return {
      now: now.toISOString(),
      timeZone: this.calendar.settings.timeZone,
      businessDate: date,
      isBusinessDay: this.calendar.isBusinessDay(date),
      debitWindow: {
        state,
        opensAt: windows.debitOpensAt.toISOString(),
        closesAt: windows.debitClosesAt.toISOString(),
        creditsFinalised: day?.debit === 'open' || (await this.#gate.isFinalised(date, now)),
        ...(windows.creditsFinalisedAt
          ? { creditsFinalisedAt: windows.creditsFinalisedAt.toISOString() }
          : {}),
        ...(day?.debit ? { override: day.debit } : {}),
      },
      reconciliationWindow: {
        closesAt: windows.reconciliationClosesAt.toISOString(),
        closed: closedAt !== undefined,
        ...(closedAt ? { closedAt: closedAt.toISOString() } : {}),
      },
      nextBusinessDate: this.calendar.nextBusinessDay(date),
    };
  }

  #day(date: string): DayOverrides {
    let day = this.#days.get(date);
    if (!day) {
      day = {};
      this.#days.set(date, day);
      if (this.#days.size > rememberedDays) {
        const oldest = [...this.#days.keys()].sort()[0];
        if (oldest !== undefined && oldest !== date) this.#days.delete(oldest);
      }
    }
    return day;
  }
}
