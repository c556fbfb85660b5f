import { clearOfDayEnd, type DebitWindowView } from '@rp/launcher';
import { beforeEach } from 'vitest';

/**
 * The end of the business day, kept out of the tests. The pipelines here run on `anyTimeWindows`, whose
 * reconciliation window closes at midnight in Johannesburg (22:00 UTC) and reconciles every journey in
 * flight then, as the product should. A test that sends transactions and waits for them to complete
 * cannot pass across that close, whenever the suite happens to run: so no test starts when midnight there
 * is nearer than it may take (`testBudgetMs`; a longer test asks for more with `clearOfDayEndFor`); it
 * starts once every running pipeline's scheduler is on the new business date instead (each pipeline's
 * `DebitWindowKeeper` opens that day's window).
 */

/** The schedulers of the pipelines running now (registered by `startEndToEnd`): their windows. */
export const runningSchedulers = new Set<() => Promise<DebitWindowView>>();

/** What a test of this suite may take, at most, from its start to its last journey complete. */
const testBudgetMs = 3 * 60_000;

/** How long a running pipeline's scheduler may take to be on the new business date after midnight. */
const graceMs = 2 * 60_000;

/** Resolves when a test that takes up to `budgetMs` can start: see above. */
export function clearOfDayEndFor(budgetMs: number): Promise<boolean> {
  return clearOfDayEnd(budgetMs, {
    schedulers: [...runningSchedulers],
    log: (line) => console.log(`end of the business day: ${line}`),
    graceMs,
  });
}

/** The time a hook that waits for `budgetMs` may take: the whole wait and the new day's grace. */
const dayEndHookTimeoutMs = (budgetMs: number) => budgetMs + graceMs + 60_000;

beforeEach(async () => {
  await clearOfDayEndFor(testBudgetMs);
}, dayEndHookTimeoutMs(testBudgetMs));
