import { type KnownTransactionState, transactionStates } from '@rp/contracts';
import { RecentKeys } from '@rp/runtime';
import type { TransactionRepository } from '@rp/store';
import type { WindowCalendar } from './windows.ts';

/** What finalised a day's credits: its credits all reached a final state, the cut-off time, an operator. */
export type CreditsFinalisedBy = 'credits' | 'cut-off' | 'operator';

export interface CreditsVerdict {
  readonly finalised: boolean;
  readonly by?: CreditsFinalisedBy;
  /** Credits of the cycle not yet final, when a gate counted them (at most `inFlightCountLimit`). */
  readonly inFlight?: number;
}

/**
 * The "credits finalised" gate: the debit window of a business day opens only once its credits are
 * final (spec 1.7). An implementation may ask the store, hence the promise.
 */
export interface CreditsGate {
  check(businessDate: string, now: Date): CreditsVerdict | Promise<CreditsVerdict>;
}

const notFinalised: CreditsVerdict = { finalised: false };

/** The cut-off: finalised at the configured time of day (never, when none is configured). */
export function scheduledCreditsGate(calendar: WindowCalendar): CreditsGate {
  return {
    check(businessDate, now) {
      const at = calendar.windowsOf(businessDate).creditsFinalisedAt;
      return at !== undefined && now >= at ? { finalised: true, by: 'cut-off' } : notFinalised;
    },
  };
}

/** Recent business dates remembered: a month of them, the oldest forgotten first. */
const recentDates = 31;

/** Finalised when someone declared it for the date (the admin trigger). Remembers a few recent dates. */
export class DeclaredCreditsGate implements CreditsGate {
  readonly #dates = new RecentKeys(recentDates);

  declare(businessDate: string): void {
    this.#dates.add(businessDate);
  }

  check(businessDate: string): CreditsVerdict {
    return this.#dates.has(businessDate) ? { finalised: true, by: 'operator' } : notFinalised;
  }
}

/** The credit states that are not final: a credit in one of them is still in flight. */
export const creditStatesInFlight: readonly KnownTransactionState[] = (
  Object.keys(transactionStates) as KnownTransactionState[]
).filter((state) => state.startsWith('CREDIT_') && !transactionStates[state].final);

/** Counting stops here: the number only tells an operator how far off the day is. */
export const inFlightCountLimit = 500;

/**
 * Finalised when every credit of the day's cycle is final: the credits received since the previous
 * business day's reconciliation close, none of them still in flight. Once that holds the date is
 * remembered: the debit window has opened, and a credit arriving later does not shut it again (nor costs
 * a query). A credit that never becomes final holds the window until the cut-off (CREDITS_FINALISED_AT)
 * or an operator opens it.
 */
export class CreditFlowGate implements CreditsGate {
  readonly #transactions: Pick<TransactionRepository, 'search'>;
  readonly #calendar: WindowCalendar;
  readonly #finalised = new RecentKeys(recentDates);

  constructor(transactions: Pick<TransactionRepository, 'search'>, calendar: WindowCalendar) {
    this.#transactions = transactions;
    this.#calendar = calendar;
  }

  /** When the credit cycle of `businessDate` starts: the previous business day's reconciliation close. */
  cycleStart(businessDate: string): Date {
    return this.#calendar.windowsOf(this.#calendar.previousBusinessDay(businessDate)).reconciliationClosesAt;
  }

  async check(businessDate: string, now: Date): Promise<CreditsVerdict> {
    if (this.#finalised.has(businessDate)) return { finalised: true, by: 'credits', inFlight: 0 };
    const from = this.cycleStart(businessDate);
    // Snapshots are stamped with the tracker's time; a demo clock may run ahead of it, so no upper bound
    // before the real present.
    const to = new Date(Math.max(now.getTime(), Date.now()) + 1);
    // One query for every state in flight (the state and creation time index serves it).
    const inFlight = (
      await this.#transactions.search({ state: creditStatesInFlight, from, to, limit: inFlightCountLimit })
    ).length;
    if (inFlight > 0) return { finalised: false, inFlight };
    this.#finalised.add(businessDate);
    return { finalised: true, by: 'credits', inFlight: 0 };
  }
}

/**
 * Finalised as soon as any of the gates says so (the first one's reason is reported); otherwise the
 * count of credits in flight, if a gate made one.
 */
export function anyCreditsGate(...gates: readonly CreditsGate[]): CreditsGate {
  return {
    async check(businessDate, now) {
      let inFlight: number | undefined;
      for (const gate of gates) {
        const verdict = await gate.check(businessDate, now);
        if (verdict.finalised) return verdict;
        inFlight ??= verdict.inFlight;
      }
      return inFlight === undefined ? notFinalised : { finalised: false, inFlight };
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
    /** What finalised them: every credit of the cycle final, the cut-off time, or an operator. */
    creditsFinalisedBy?: CreditsFinalisedBy;
    /** Credits of the cycle still in flight (when counted). */
    creditsInFlight?: number;
    /** The cut-off: credits count as finalised at this time, whatever is still in flight. */
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
export const rememberedDays = 14;

/**
 * The state of the windows: the calendar's schedule, the credits gate, and what operators did today.
 * An operator's open or close is kept in the store as well (the service writes it before it answers)
 * and restored at start, so a scheduler that restarts honours it. The reconciliation close is not: one
 * that runs again after a restart records nothing twice.
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

  /** Takes back the operators' opens and closes kept in the store (at start). */
  restore(overrides: readonly { businessDate: string; debit: 'open' | 'closed' }[]): void {
    for (const override of overrides) this.#day(override.businessDate).debit = override.debit;
  }

  /** Takes back the reconciliation closes kept in the store (at start): a day closed stays closed. */
  restoreReconciliationCloses(closes: readonly { businessDate: string; closedAt: Date }[]): void {
    for (const close of closes) this.markReconciliationClosed(close.businessDate, close.closedAt);
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
    return (await this.#debitWindow(date, now)).state;
  }

  /** The state, and the gate's verdict when the state depended on it. */
  async #debitWindow(
    date: string,
    now: Date,
  ): Promise<{ state: DebitWindowState; credits?: CreditsVerdict }> {
    const day = this.#days.get(date);
    if (day?.reconciliationClosedAt !== undefined || day?.debit === 'closed') return { state: 'closed' };
    if (day?.debit === 'open') return { state: 'open', credits: { finalised: true, by: 'operator' } };
    if (!this.calendar.isBusinessDay(date)) return { state: 'not-a-business-day' };
    const windows = this.calendar.windowsOf(date);
    if (now >= windows.debitClosesAt) return { state: 'closed' };
    if (now < windows.debitOpensAt) return { state: 'before-open' };
    const credits = await this.#gate.check(date, now);
    return { state: credits.finalised ? 'open' : 'awaiting-credits', credits };
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

  /**
   * The business dates whose scheduled reconciliation close has come and not yet run, oldest first: the
   * last business day before today, whose close comes after its own date at `24:00` or was missed while
   * no scheduler ran, and today. Days before those are not looked at: what they left unresolved is
   * raised by the next close that runs, which takes every transaction created before it.
   */
  reconciliationsDue(now: Date): string[] {
    const today = this.calendar.localDate(now);
    return [this.calendar.previousBusinessDay(today), today].filter((date) =>
      this.isReconciliationDue(date, now),
    );
  }

  async status(now: Date): Promise<WindowStatus> {
    const date = this.calendar.localDate(now);
    const windows = this.calendar.windowsOf(date);
    const day = this.#days.get(date);
    const { state, credits: known } = await this.#debitWindow(date, now);
    const credits = known ?? (await this.#gate.check(date, now));
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
        creditsFinalised: credits.finalised,
        ...(credits.finalised && credits.by ? { creditsFinalisedBy: credits.by } : {}),
        ...(credits.inFlight === undefined ? {} : { creditsInFlight: credits.inFlight }),
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
