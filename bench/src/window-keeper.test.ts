import { describe, expect, it } from 'vitest';
import { DebitWindowKeeper, johannesburgDate } from './window-keeper.ts';

/** A keeper over a scheduler whose window state and answers the test sets, on a clock it moves. */
function keeperAt(start: string) {
  const state = { now: new Date(start), open: 0, accepts: true, fails: false };
  const calls = { metrics: 0, opens: 0 };
  const lines: string[] = [];
  const keeper = new DebitWindowKeeper({
    now: () => state.now,
    metrics: async () => {
      calls.metrics += 1;
      if (state.fails) throw new Error('connection refused');
      return new Map([['rp_scheduler_debit_window_open{service="scheduler"}', state.open]]);
    },
    open: async () => {
      calls.opens += 1;
      if (state.accepts) state.open = 1;
      return new Response(null, { status: state.accepts ? 204 : 503 });
    },
    log: (line) => lines.push(line),
  });
  return { keeper, state, calls, lines };
}

describe('the business date in Johannesburg', () => {
  it('changes at midnight there, 22:00 UTC', () => {
    expect(johannesburgDate(new Date('2026-12-05T21:59:59.999Z'))).toBe('2026-12-05');
    expect(johannesburgDate(new Date('2026-12-05T22:00:00.000Z'))).toBe('2026-12-06');
    expect(johannesburgDate(new Date('2026-12-31T23:30:00.000Z'))).toBe('2027-01-01');
  });
});

describe("keeping a run's debit window open across midnight", () => {
  it('leaves the date it started on alone: its caller opened the window, or keeps it shut on purpose', async () => {
    const { keeper, state, calls } = keeperAt('2026-12-05T21:57:00Z');
    await keeper.check();
    state.now = new Date('2026-12-05T21:59:00Z'); // 23:59 there: the window shut by its schedule
    await keeper.check();
    expect(calls).toEqual({ metrics: 0, opens: 0 });
    expect(keeper.openedFor).toBe('2026-12-05');
  });

  it('opens the new business day’s window once, when the scheduler says it is shut', async () => {
    const { keeper, state, calls, lines } = keeperAt('2026-12-05T21:57:00Z');
    state.now = new Date('2026-12-05T22:00:05Z');
    await keeper.check();
    expect(calls).toEqual({ metrics: 1, opens: 1 });
    expect(keeper.openedFor).toBe('2026-12-06');
    expect(lines).toEqual([
      'a new business day (2026-12-06 in Africa/Johannesburg): its debit window opened, as an operator would',
    ]);
    // Shut again later that day (an operator's close): not opened a second time.
    state.open = 0;
    state.now = new Date('2026-12-06T10:00:00Z');
    await keeper.check();
    expect(calls).toEqual({ metrics: 1, opens: 1 });
  });

  it('does not open a window the scheduler already has open', async () => {
    const { keeper, state, calls } = keeperAt('2026-12-05T21:57:00Z');
    state.open = 1;
    state.now = new Date('2026-12-05T22:00:05Z');
    await keeper.check();
    expect(calls).toEqual({ metrics: 1, opens: 0 });
    // Still the date before as far as the keeper knows: if the window shuts, it is opened.
    state.open = 0;
    await keeper.check();
    expect(calls).toEqual({ metrics: 2, opens: 1 });
  });

  it('tries again at the next look when the scheduler refuses or cannot be read, and says so', async () => {
    const { keeper, state, calls, lines } = keeperAt('2026-12-05T21:57:00Z');
    state.now = new Date('2026-12-05T22:00:05Z');
    state.accepts = false;
    await keeper.check();
    expect(keeper.openedFor).toBe('2026-12-05');
    state.accepts = true;
    state.fails = true;
    await keeper.check();
    expect(lines).toEqual(['the debit window of 2026-12-06 not opened yet: Error: connection refused']);
    state.fails = false;
    await keeper.check();
    expect(calls.opens).toBe(2);
    expect(keeper.openedFor).toBe('2026-12-06');
  });

  it('looks once at a time', async () => {
    const { keeper, state, calls } = keeperAt('2026-12-05T21:57:00Z');
    state.now = new Date('2026-12-05T22:00:05Z');
    await Promise.all([keeper.check(), keeper.check(), keeper.check()]);
    expect(calls).toEqual({ metrics: 1, opens: 1 });
  });
});
