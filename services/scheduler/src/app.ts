import {
  type AppEnv,
  AppError,
  type Clock,
  type Operator,
  type OperatorAuthenticator,
  operatorGuard,
  operatorOf,
  wholeNumberQuery,
} from '@rp/runtime';
import type { DebitQueueRepository, ReconciliationRepository } from '@rp/store';
import type { Hono } from 'hono';
import type { ReconciliationSummary } from './reconciliation.ts';
import { csvHeader, csvLine, reportItem } from './report.ts';
import type { WindowController, WindowStatus } from './window-state.ts';
import { assertIsoDate } from './windows.ts';

export interface AdminDeps {
  readonly windows: WindowController;
  readonly clock: Clock;
  readonly debitQueue: Pick<DebitQueueRepository, 'depth' | 'countAwaiting'>;
  readonly reconciliation: Pick<ReconciliationRepository, 'list' | 'countOpen'>;
  /** Opens the debit window of today now and releases its debits (the operator is audited). */
  openDebitWindow(operator: Operator): Promise<WindowStatus>;
  closeDebitWindow(operator: Operator): Promise<WindowStatus>;
  /**
   * Closes the reconciliation window of `businessDate` (today's now; a past business day's at its
   * scheduled close), again if it already closed: nothing is raised twice.
   */
  closeReconciliationWindow(operator: Operator, businessDate: string): Promise<ReconciliationSummary>;
  onQueueDepth?(depth: number, awaiting: number): void;
  /**
   * Verifies the operator's access token on every admin call (reads need `operator.read`, the window
   * triggers `operator.replay`); unset: `ADMIN_AUTH=none`, anyone may call.
   */
  readonly operatorAuth?: OperatorAuthenticator;
}

const maxPage = 1_000;

/**
 * The operators' routes (and the demo's triggers):
 * - POST /admin/windows/debit/open, /admin/windows/debit/close, /admin/windows/reconciliation/close
 * - GET /admin/windows: today's windows and their state
 * - GET /admin/queue: debits queued (all, today's window, the next one) and awaiting their status report
 * - GET /admin/reconciliation?window=YYYY-MM-DD[&limit=&after=]: a window's items as JSON, a page at a time
 * - GET /admin/reconciliation/report.csv?window=YYYY-MM-DD: all of a window's items as CSV
 */
export function registerAdminRoutes(app: Hono<AppEnv>, deps: AdminDeps): void {
  const { windows, clock } = deps;
  app.use('/admin/*', operatorGuard(deps.operatorAuth));

  app.post('/admin/windows/debit/open', async (c) => c.json(await deps.openDebitWindow(operatorOf(c))));
  app.post('/admin/windows/debit/close', async (c) => c.json(await deps.closeDebitWindow(operatorOf(c))));
  app.post('/admin/windows/reconciliation/close', async (c) => {
    const today = windows.calendar.localDate(clock.now());
    const businessDate = windowParameter(c.req.query('window'), today);
    if (businessDate > today) {
      throw invalidWindow(`${businessDate} is after today (${today}): its window has not closed`);
    }
    if (businessDate < today && !windows.calendar.isBusinessDay(businessDate)) {
      throw invalidWindow(`${businessDate} was not a business day: it had no reconciliation window`);
    }
    return c.json(await deps.closeReconciliationWindow(operatorOf(c), businessDate));
  });
  app.get('/admin/windows', async (c) => c.json(await windows.status(clock.now())));

  app.get('/admin/queue', async (c) => {
    const now = clock.now();
    const today = windows.calendar.localDate(now);
    const next = windows.calendar.nextBusinessDay(today);
    const [depth, todayDepth, nextDepth, awaiting] = await Promise.all([
      deps.debitQueue.depth(),
      deps.debitQueue.depth(today),
      deps.debitQueue.depth(next),
      deps.debitQueue.countAwaiting(),
    ]);
    deps.onQueueDepth?.(depth, awaiting);
    return c.json({
      depth,
      byWindow: { [today]: todayDepth, [next]: nextDepth },
      awaitingStatusReport: awaiting,
    });
  });

  app.get('/admin/reconciliation', async (c) => {
    const windowId = windowParameter(c.req.query('window'), windows.calendar.localDate(clock.now()));
    const limit = wholeNumberQuery(c.req.query('limit'), { name: 'limit', fallback: maxPage, max: maxPage });
    const after = c.req.query('after');
    const [page, open] = await Promise.all([
      deps.reconciliation.list({ windowId, limit, ...(after ? { after } : {}) }),
      deps.reconciliation.countOpen(windowId),
    ]);
    return c.json({
      windowId,
      generatedAt: clock.now().toISOString(),
      open,
      items: page.items.map(reportItem),
      ...(page.next ? { next: page.next } : {}),
    });
  });

  app.get('/admin/reconciliation/report.csv', async (c) => {
    const windowId = windowParameter(c.req.query('window'), windows.calendar.localDate(clock.now()));
    const encoder = new TextEncoder();
    const page = (after: string | undefined) =>
      deps.reconciliation.list({ windowId, limit: maxPage, ...(after ? { after } : {}) });
    // The first page is read before the answer starts, so a store that cannot answer gets its 503. A
    // later page that fails ends the stream with an error (the connection is cut), never a short report.
    const first = await page(undefined);
    let after = first.next;
    let done = after === undefined;
    let pending: string | undefined = csvHeader() + first.items.map(csvLine).join('');
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        if (pending !== undefined) {
          controller.enqueue(encoder.encode(pending));
          pending = undefined;
          return;
        }
        if (done) {
          controller.close();
          return;
        }
        const next = await page(after);
        controller.enqueue(encoder.encode(next.items.map(csvLine).join('')));
        after = next.next;
        done = after === undefined;
      },
    });
    return c.body(body, 200, {
      'content-type': 'text/csv; charset=utf-8',
      'content-disposition': `attachment; filename="reconciliation-${windowId}.csv"`,
    });
  });
}

function invalidWindow(detail: string): AppError {
  return new AppError('VALIDATION_FAILED', `window: ${detail}`, {
    details: [{ pointer: '/window', detail }],
  });
}

function windowParameter(value: string | undefined, fallback: string): string {
  if (value === undefined || value === '') return fallback;
  try {
    return assertIsoDate(value);
  } catch {
    throw new AppError('VALIDATION_FAILED', 'window must be a business date YYYY-MM-DD', {
      details: [{ pointer: '/window', detail: 'expected YYYY-MM-DD' }],
    });
  }
}
