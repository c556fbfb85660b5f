import { metricValue } from './stats.ts';

/** The business calendar's zone: a business date changes at midnight there. */
const zone = 'Africa/Johannesburg';
const localDateFormat = new Intl.DateTimeFormat('en-CA', {
  timeZone: zone,
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
});

/** The business date (YYYY-MM-DD) in Johannesburg at `at`. */
export function johannesburgDate(at: Date): string {
  return localDateFormat.format(at);
}

export interface WindowKeeperDeps {
  /** The scheduler's metrics, parsed (`rp_scheduler_debit_window_open`). */
  readonly metrics: () => Promise<ReadonlyMap<string, number>>;
  /** Opens today's debit window with the admin trigger (`POST /admin/windows/debit/open`): its answer. */
  readonly open: () => Promise<Response>;
  readonly now?: () => Date;
  readonly log: (line: string) => void;
}

/**
 * What an operator does each day, for a run of the pipeline on `anyTimeWindows`: there, a business day's
 * debit window opens only by the admin trigger (credits declared final), and closes at 23:58 in
 * Johannesburg. A run that goes on past midnight there has the debits made ready after the close queued
 * for the new business day, whose window nobody has opened, and its journeys would wait for ever.
 *
 * `check()` opens the window once a business date, the first time it finds the scheduler saying it is
 * shut on a date it has not opened yet: never twice a date (every open is audited, a write of the
 * bench's own), and never on the date it was started on, which its caller opened or keeps shut on
 * purpose.
 */
export class DebitWindowKeeper {
  #openedFor: string;
  #checking: Promise<void> | undefined;
  readonly #deps: WindowKeeperDeps;
  readonly #now: () => Date;

  constructor(deps: WindowKeeperDeps) {
    this.#deps = deps;
    this.#now = deps.now ?? (() => new Date());
    this.#openedFor = johannesburgDate(this.#now());
  }

  /** The business date whose window was opened last (by the caller, or by `check`). */
  get openedFor(): string {
    return this.#openedFor;
  }

  /** Looks once (one look at a time); resolves with the look's end. Never throws: a failure is logged. */
  check(): Promise<void> {
    this.#checking ??= this.#look().finally(() => {
      this.#checking = undefined;
    });
    return this.#checking;
  }

  async #look(): Promise<void> {
    const today = johannesburgDate(this.#now());
    if (today === this.#openedFor) return;
    try {
      if (metricValue(await this.#deps.metrics(), 'rp_scheduler_debit_window_open') === 1) return;
      const response = await this.#deps.open();
      await response.arrayBuffer();
      if (response.ok) {
        this.#openedFor = today;
        this.#deps.log(
          `a new business day (${today} in ${zone}): its debit window opened, as an operator would`,
        );
      }
    } catch (error) {
      this.#deps.log(`the debit window of ${today} not opened yet: ${String(error)}`);
    }
  }

  /** Checks every `intervalMs` until the returned function is called. */
  every(intervalMs: number): () => void {
    const timer = setInterval(() => void this.check(), intervalMs);
    timer.unref();
    return () => clearInterval(timer);
  }
}
