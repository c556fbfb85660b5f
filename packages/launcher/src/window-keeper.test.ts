import { describe, expect, it } from 'vitest';
import { johannesburgDate, untilJohannesburgMidnight } from './samples.ts';
import { clearOfDayEnd, DebitWindowKeeper, type DebitWindowView } from './window-keeper.ts';

/**
 * A keeper over a scheduler whose calendar runs on the same clock as the keeper's (which the test moves)
 * and whose window state and answers the test sets: `state` is the scheduler's window state on `date`,
 * until the date changes, when a new business day's window waits for its credits.
 */
function keeperAt(start: string) {
  const scheduler = {
    now: new Date(start),
    date: johannesburgDate(new Date(start)),
    state: 'awaiting-credits',
    refuses: false,
    unreachable: false,
    /** How far the scheduler's clock is behind the keeper's. */
    behindMs: 0,
  };
  const today = () => {
    const date = johannesburgDate(new Date(scheduler.now.getTime() - scheduler.behindMs));
    if (date !== scheduler.date) Object.assign(scheduler, { date, state: 'awaiting-credits' });
    return { businessDate: date, debitWindow: { state: scheduler.state } };
  };
  const calls = { windows: 0, opens: 0 };
  const lines: string[] = [];
  const keeper = new DebitWindowKeeper({
    now: () => scheduler.now,
    windows: async () => {
      calls.windows += 1;
      if (scheduler.unreachable) throw new Error('connection refused');
      return today();
    },
    open: async () => {
      calls.opens += 1;
      if (scheduler.refuses) throw new Error('POST /admin/windows/debit/open answered 503');
      today();
      scheduler.state = 'open';
      return today();
    },
    log: (line) => lines.push(line),
  });
  return { keeper, scheduler, calls, lines };
}

describe('the business date in Johannesburg', () => {
  it('changes at midnight there, 22:00 UTC', () => {
    expect(johannesburgDate(new Date('2026-12-05T21:59:59.999Z'))).toBe('2026-12-05');
    expect(johannesburgDate(new Date('2026-12-05T22:00:00.000Z'))).toBe('2026-12-06');
    expect(johannesburgDate(new Date('2026-12-31T23:30:00.000Z'))).toBe('2027-01-01');
  });

  it('is this far from its next change', () => {
    expect(untilJohannesburgMidnight(new Date('2026-12-05T21:59:59.250Z'))).toBe(750);
    expect(untilJohannesburgMidnight(new Date('2026-12-05T22:00:00.000Z'))).toBe(86_400_000);
    expect(untilJohannesburgMidnight(new Date('2026-12-05T10:30:00.000Z'))).toBe(11.5 * 3_600_000);
    expect(untilJohannesburgMidnight(new Date('2026-12-31T23:30:00.000Z'))).toBe(22.5 * 3_600_000);
  });
});

describe('a run kept clear of the end of the business day', () => {
  /**
   * A clock that moves a second at each look, and schedulers on it that come to the new date `lateMs`
   * after midnight (a clock behind, a tick not yet run).
   */
  function dayEnd(start: string) {
    let at = new Date(start).getTime();
    const lines: string[] = [];
    let asked = 0;
    const scheduler = (lateMs: number) => async (): Promise<DebitWindowView> => {
      asked += 1;
      return { businessDate: johannesburgDate(new Date(at - lateMs)), debitWindow: { state: 'open' } };
    };
    return {
      scheduler,
      lines,
      log: (line: string) => lines.push(line),
      at: () => new Date(at),
      tick: () => {
        at += 1_000;
        return new Date(at);
      },
      asked: () => asked,
    };
  }

  it('starts at once when midnight is further off than the run may take, or no pipeline runs', async () => {
    const clock = dayEnd('2026-12-05T21:50:00Z');
    const options = { schedulers: [clock.scheduler(0)], log: clock.log, now: clock.at };
    expect(await clearOfDayEnd(9 * 60_000, options)).toBe(false);
    expect(await clearOfDayEnd(11 * 60_000, { ...options, schedulers: [] })).toBe(false);
    expect(clock.asked()).toBe(0);
    expect(clock.lines).toEqual([]);
  });

  it('waits past midnight until every scheduler is on the new business date', async () => {
    const clock = dayEnd('2026-12-05T21:59:57Z');
    const waited = await clearOfDayEnd(60_000, {
      schedulers: [clock.scheduler(0), clock.scheduler(3_000)],
      log: clock.log,
      now: clock.tick,
      intervalMs: 0,
    });
    expect(waited).toBe(true);
    // The clock first read a second on (21:59:58); not asked before the date changed here, done once the
    // later scheduler came to it.
    expect(clock.at().getTime()).toBeGreaterThanOrEqual(new Date('2026-12-05T22:00:03Z').getTime());
    expect(clock.at().getTime()).toBeLessThan(new Date('2026-12-05T22:00:06Z').getTime());
    expect(clock.asked()).toBeGreaterThanOrEqual(4);
    expect(clock.lines).toEqual([
      "2 s to midnight in Africa/Johannesburg, less than the 60 s this run may take: it starts on the new business day (the day's reconciliation close reconciles every journey in flight at midnight)",
    ]);
  });

  it('says which scheduler is not on the new date once the grace after midnight is over', async () => {
    const clock = dayEnd('2026-12-05T21:59:58Z');
    await expect(
      clearOfDayEnd(60_000, {
        schedulers: [clock.scheduler(3_600_000), async () => Promise.reject(new Error('connection refused'))],
        log: clock.log,
        now: clock.tick,
        intervalMs: 0,
        graceMs: 10_000,
      }),
    ).rejects.toThrow(
      'the schedulers are not on the business day after 2026-12-05: still on 2026-12-05; Error: connection refused',
    );
  });
});

describe("keeping a run's debit window open across midnight in Johannesburg", () => {
  it('opens nothing for a run that has not opened a window: one kept shut on purpose stays shut', async () => {
    const { keeper, scheduler, calls } = keeperAt('2026-12-05T21:57:00Z');
    scheduler.now = new Date('2026-12-06T08:00:00Z');
    await keeper.check();
    expect(calls).toEqual({ windows: 0, opens: 0 });
    expect(keeper.openedFor).toBeUndefined();
  });

  it('asks nothing on the date the run opened, even once the window shut by its schedule', async () => {
    const { keeper, scheduler, calls } = keeperAt('2026-12-05T21:57:00Z');
    keeper.opened();
    scheduler.state = 'closed'; // closed on the date it opened (by an operator, say)
    scheduler.now = new Date('2026-12-05T21:59:00Z');
    await keeper.check();
    expect(calls).toEqual({ windows: 0, opens: 0 });
    expect(keeper.openedFor).toBe('2026-12-05');
  });

  it("opens the new business day's window once, and says so", async () => {
    const { keeper, scheduler, calls, lines } = keeperAt('2026-12-05T21:57:00Z');
    keeper.opened();
    scheduler.now = new Date('2026-12-05T22:00:02Z');
    await keeper.check();
    expect(calls).toEqual({ windows: 1, opens: 1 });
    expect(scheduler.state).toBe('open');
    expect(keeper.openedFor).toBe('2026-12-06');
    expect(lines).toEqual([
      'a new business day (2026-12-06 in Africa/Johannesburg): its debit window opened, as an operator would',
    ]);
    // Closed later that day by an operator: not opened again, and not even asked about.
    scheduler.state = 'closed';
    scheduler.now = new Date('2026-12-06T10:00:00Z');
    await keeper.check();
    expect(calls).toEqual({ windows: 1, opens: 1 });
  });

  it('leaves a new day alone while the scheduler, a moment behind, still says the last one', async () => {
    const { keeper, scheduler, calls } = keeperAt('2026-12-05T21:57:00Z');
    keeper.opened();
    scheduler.state = 'closed';
    scheduler.behindMs = 1_000;
    scheduler.now = new Date('2026-12-05T22:00:00.500Z');
    await keeper.check();
    expect(calls).toEqual({ windows: 1, opens: 0 });
    expect(keeper.openedFor).toBe('2026-12-05');
    // A look later, the scheduler is on the new date too.
    scheduler.now = new Date('2026-12-05T22:00:02Z');
    await keeper.check();
    expect(calls).toEqual({ windows: 2, opens: 1 });
    expect(keeper.openedFor).toBe('2026-12-06');
  });

  it('takes a window found open as opened: neither opened again nor asked about again that day', async () => {
    const { keeper, scheduler, calls } = keeperAt('2026-12-05T21:57:00Z');
    keeper.opened();
    scheduler.now = new Date('2026-12-05T22:00:02Z');
    await keeper.check(); // opens it: the date is now the new one
    scheduler.now = new Date('2026-12-06T22:00:02Z');
    scheduler.date = '2026-12-07';
    scheduler.state = 'open'; // someone else opened the 7th's first
    await keeper.check();
    expect(calls).toEqual({ windows: 2, opens: 1 });
    expect(keeper.openedFor).toBe('2026-12-07');
    await keeper.check();
    expect(calls.windows).toBe(2);
  });

  it('does not open a window the scheduler will not open on any trigger', async () => {
    const { keeper, scheduler, calls } = keeperAt('2026-12-05T21:57:00Z');
    keeper.opened();
    for (const state of ['closed', 'not-a-business-day']) {
      scheduler.state = state;
      scheduler.now = new Date(scheduler.now.getTime() + 86_400_000);
      scheduler.date = johannesburgDate(scheduler.now);
      await keeper.check();
      // Asked about once that date: nothing any trigger opens there.
      await keeper.check();
    }
    expect(calls).toEqual({ windows: 2, opens: 0 });
    expect(keeper.openedFor).toBe('2026-12-05');
    // The next date is looked at again, and its window opened.
    scheduler.now = new Date(scheduler.now.getTime() + 86_400_000);
    await keeper.check();
    expect(calls).toEqual({ windows: 3, opens: 1 });
    expect(keeper.openedFor).toBe(johannesburgDate(scheduler.now));
  });

  it('tries again at the next look when the scheduler refuses or cannot be reached, and says so once while it lasts', async () => {
    const { keeper, scheduler, calls, lines } = keeperAt('2026-12-05T21:57:00Z');
    keeper.opened();
    scheduler.now = new Date('2026-12-05T22:00:02Z');
    scheduler.refuses = true;
    await keeper.check();
    expect(keeper.openedFor).toBe('2026-12-05');
    scheduler.refuses = false;
    scheduler.unreachable = true;
    // A scheduler down for a while: a look a second, one line.
    for (let look = 0; look < 5; look += 1) await keeper.check();
    expect(lines).toEqual([
      'the debit window after 2026-12-05 not opened yet: Error: POST /admin/windows/debit/open answered 503',
      'the debit window after 2026-12-05 not opened yet: Error: connection refused',
    ]);
    scheduler.unreachable = false;
    await keeper.check();
    expect(calls).toEqual({ windows: 7, opens: 2 });
    expect(keeper.openedFor).toBe('2026-12-06');
  });

  it('says so again when the scheduler fails once more after a look that went through', async () => {
    const { keeper, scheduler, lines } = keeperAt('2026-12-05T21:57:00Z');
    keeper.opened();
    scheduler.now = new Date('2026-12-05T22:00:02Z');
    scheduler.unreachable = true;
    await keeper.check();
    await keeper.check();
    // The scheduler answers, a moment behind (still on the last date), then goes away again.
    Object.assign(scheduler, { unreachable: false, behindMs: 60_000 });
    await keeper.check();
    scheduler.unreachable = true;
    await keeper.check();
    expect(lines).toEqual([
      'the debit window after 2026-12-05 not opened yet: Error: connection refused',
      'the debit window after 2026-12-05 not opened yet: Error: connection refused',
    ]);
    expect(keeper.openedFor).toBe('2026-12-05');
  });

  it('looks once at a time', async () => {
    const { keeper, scheduler, calls } = keeperAt('2026-12-05T21:57:00Z');
    keeper.opened();
    scheduler.now = new Date('2026-12-05T22:00:02Z');
    await Promise.all([keeper.check(), keeper.check(), keeper.check()]);
    expect(calls).toEqual({ windows: 1, opens: 1 });
  });

  it("opens today's window for its caller by the scheduler's date, and keeps it; a refusal is the caller's to see", async () => {
    const { keeper, scheduler, calls } = keeperAt('2026-12-05T22:00:30Z');
    // Midnight here, not yet at the scheduler (its clock a minute behind): its business date is the one
    // opened, not the date here.
    scheduler.behindMs = 60_000;
    scheduler.refuses = true;
    await expect(keeper.openToday()).rejects.toThrow('answered 503');
    expect(keeper.openedFor).toBeUndefined();
    scheduler.refuses = false;
    expect(await keeper.openToday()).toEqual({ businessDate: '2026-12-05', debitWindow: { state: 'open' } });
    expect(keeper.openedFor).toBe('2026-12-05');
    scheduler.now = new Date('2026-12-05T22:02:00Z');
    await keeper.check();
    expect(calls).toEqual({ windows: 1, opens: 3 });
    expect(keeper.openedFor).toBe('2026-12-06');
  });

  it('never moves back to an earlier date', () => {
    const { keeper } = keeperAt('2026-12-05T21:57:00Z');
    keeper.opened('2026-12-06');
    keeper.opened('2026-12-05');
    expect(keeper.openedFor).toBe('2026-12-06');
  });
});
