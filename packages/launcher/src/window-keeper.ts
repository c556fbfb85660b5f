import type { Pipeline } from './launch.ts';
import { johannesburgDate, untilJohannesburgMidnight } from './samples.ts';

/** What the keeper reads of the scheduler's window status (`GET /admin/windows`, and the open's answer). */
export interface DebitWindowView {
  /** The scheduler's business date (its calendar's, in Africa/Johannesburg). */
  readonly businessDate: string;
  readonly debitWindow: { readonly state: string };
}

export interface WindowKeeperDeps {
  /** Today's windows as the scheduler sees them (`GET /admin/windows`). */
  readonly windows: () => Promise<DebitWindowView>;
  /** Opens today's debit window (`POST /admin/windows/debit/open`): its answer; throws when refused. */
  readonly open: () => Promise<DebitWindowView>;
  readonly now?: () => Date;
  readonly log: (line: string) => void;
}

/**
 * States of today's debit window that the admin trigger opens: waiting for credits to be declared
 * final, or for its opening time. Not `closed` (past its close, or an operator closed it, or the day's
 * reconciliation window closed) nor `not-a-business-day`: no operator opens those.
 */
const openable = new Set(['awaiting-credits', 'before-open']);

/**
 * What an operator does each day, for a run of the pipeline on `anyTimeWindows` (tests, benchmarks, the
 * demo): there, a business day's debit window opens only by the admin trigger (credits declared final)
 * and closes when the day ends in Johannesburg. A run that opened the window and goes on past midnight
 * there has the debits made ready after it queued for the new business day, whose window nobody has
 * opened: its journeys would wait for ever.
 *
 * The keeper keeps open a window its caller opened (`opened`): `check()` opens the scheduler's new
 * business day's window once, the first time it finds it waiting to be opened on a date after the one
 * opened last. Never on a date its caller has not moved past (a window kept shut on purpose stays shut),
 * never a window an operator closed, and never twice a date (every open is audited, a write of the run's
 * own). Until the clock here says a new date, a look costs nothing; a date whose window no trigger opens
 * (closed, a day off) is asked about once.
 */
export class DebitWindowKeeper {
  #openedFor: string | undefined;
  /** A later business date found with a window no trigger opens (closed, a day off): not asked about again. */
  #passedFor: string | undefined;
  #checking: Promise<void> | undefined;
  /** The failure logged last, not logged again until a look ends without it (a scheduler down for a while). */
  #failure: string | undefined;
  readonly #deps: WindowKeeperDeps;
  readonly #now: () => Date;

  constructor(deps: WindowKeeperDeps) {
    this.#deps = deps;
    this.#now = deps.now ?? (() => new Date());
  }

  /** The business date whose window was opened last (by the caller, or by `check`); none before `opened`. */
  get openedFor(): string | undefined {
    return this.#openedFor;
  }

  /**
   * The caller opened the window of `date` (default: today here): from now on each later business day's
   * window is opened too. Never moves back to an earlier date.
   */
  opened(date: string = johannesburgDate(this.#now())): void {
    if (this.#openedFor === undefined || date > this.#openedFor) this.#openedFor = date;
  }

  /**
   * Opens today's debit window now (the admin trigger, as an operator would) and keeps it open from then
   * on: the scheduler's answer names the business date opened. Throws when the scheduler refuses.
   */
  async openToday(): Promise<DebitWindowView> {
    const answer = await this.#deps.open();
    this.opened(answer.businessDate);
    return answer;
  }

  /**
   * Looks once (one look at a time); resolves with the look's end. Never throws: a failure is logged, once
   * while it lasts (the same failure at every look of an outage is one line).
   */
  check(): Promise<void> {
    this.#checking ??= this.#look().finally(() => {
      this.#checking = undefined;
    });
    return this.#checking;
  }

  async #look(): Promise<void> {
    try {
      await this.#lookOnce();
      this.#failure = undefined;
    } catch (error) {
      const failure = `the debit window after ${this.#openedFor} not opened yet: ${String(error)}`;
      if (failure !== this.#failure) this.#deps.log(failure);
      this.#failure = failure;
    }
  }

  async #lookOnce(): Promise<void> {
    const last = this.#openedFor;
    if (last === undefined) return;
    const here = johannesburgDate(this.#now());
    if (here <= last || (this.#passedFor !== undefined && here <= this.#passedFor)) return;
    const today = await this.#deps.windows();
    // The scheduler's calendar decides the date (a clock a moment behind this one is still on the last).
    if (today.businessDate <= last) return;
    if (today.debitWindow.state === 'open') {
      this.opened(today.businessDate);
      return;
    }
    if (!openable.has(today.debitWindow.state)) {
      this.#passedFor = today.businessDate;
      return;
    }
    const answer = await this.openToday();
    this.#deps.log(
      `a new business day (${answer.businessDate} in Africa/Johannesburg): its debit window opened, as an operator would`,
    );
  }

  /** Checks every `intervalMs` until the returned function is called. */
  every(intervalMs: number): () => void {
    const timer = setInterval(() => void this.check(), intervalMs);
    timer.unref();
    return () => clearInterval(timer);
  }
}

/** A launched pipeline's scheduler's window calls (`GET /admin/windows`, the open), with an operator's tokens. */
function schedulerCalls(pipeline: Pick<Pipeline, 'url' | 'operatorAuthorization'>) {
  return async (method: 'GET' | 'POST', path: string): Promise<DebitWindowView> => {
    const response = await fetch(`${pipeline.url('scheduler')}${path}`, {
      method,
      headers: {
        authorization: await pipeline.operatorAuthorization(
          method === 'GET' ? 'operator.read' : 'operator.replay',
        ),
      },
      signal: AbortSignal.timeout(10_000),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`${method} ${path} answered ${response.status}: ${text}`);
    return JSON.parse(text) as DebitWindowView;
  };
}

/** A launched pipeline's windows as its scheduler sees them (`GET /admin/windows`), for `clearOfDayEnd`. */
export function schedulerWindows(
  pipeline: Pick<Pipeline, 'url' | 'operatorAuthorization'>,
): () => Promise<DebitWindowView> {
  const call = schedulerCalls(pipeline);
  return () => call('GET', '/admin/windows');
}

/** A keeper of a launched pipeline's debit window: the scheduler's admin API, with an operator's tokens. */
export function pipelineWindowKeeper(
  pipeline: Pick<Pipeline, 'url' | 'operatorAuthorization'>,
  log: (line: string) => void,
): DebitWindowKeeper {
  const call = schedulerCalls(pipeline);
  return new DebitWindowKeeper({
    windows: () => call('GET', '/admin/windows'),
    open: () => call('POST', '/admin/windows/debit/open'),
    log,
  });
}

export interface DayEndOptions {
  /** The schedulers of the pipelines the run drives: their windows as each sees them (`GET /admin/windows`). */
  readonly schedulers: readonly (() => Promise<DebitWindowView>)[];
  readonly log: (line: string) => void;
  readonly now?: () => Date;
  /** How often the clock is looked at, and the schedulers asked once midnight has passed. */
  readonly intervalMs?: number;
  /** How long after midnight a scheduler may take to be on the new date before this gives up. */
  readonly graceMs?: number;
}

/**
 * Resolves when a run of `budgetMs` that starts now is clear of the end of the business day: at once
 * when midnight in Johannesburg is further off than that (or no scheduler runs), otherwise once it has
 * passed and every scheduler named is on the new business date. On `anyTimeWindows` the day's
 * reconciliation window closes at 24:00 and, as it should, reconciles every journey in flight then: a
 * run that must see its journeys complete (a test, a benchmark, the demo) does not start one it could
 * not finish before then. What it sends after that is the new day's (a pipeline's `DebitWindowKeeper`
 * opens its window). Resolves with whether it waited; throws when a scheduler is not on the new date
 * `graceMs` after midnight.
 */
export async function clearOfDayEnd(budgetMs: number, options: DayEndOptions): Promise<boolean> {
  const now = options.now ?? (() => new Date());
  const start = now();
  const left = untilJohannesburgMidnight(start);
  if (left >= budgetMs || options.schedulers.length === 0) return false;
  const today = johannesburgDate(start);
  options.log(
    `${Math.ceil(left / 1_000)} s to midnight in Africa/Johannesburg, less than the ${Math.ceil(budgetMs / 1_000)} s this run may take: it starts on the new business day (the day's reconciliation close reconciles every journey in flight at midnight)`,
  );
  const giveUpAt = start.getTime() + left + (options.graceMs ?? 120_000);
  let last = 'not asked yet';
  for (;;) {
    if (johannesburgDate(now()) > today) {
      const views = await Promise.all(
        options.schedulers.map((windows) => windows().catch((error: unknown) => String(error))),
      );
      const waiting = views.filter((view) => typeof view === 'string' || view.businessDate <= today);
      if (waiting.length === 0) return true;
      last = waiting
        .map((view) => (typeof view === 'string' ? view : `still on ${view.businessDate}`))
        .join('; ');
    }
    if (now().getTime() >= giveUpAt) {
      throw new Error(`the schedulers are not on the business day after ${today}: ${last}`);
    }
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 1_000));
  }
}
