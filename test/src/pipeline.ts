import { fileURLToPath } from 'node:url';
import { BankSimulatorClient } from '@rp/bank-simulator';
import {
  johannesburgDate,
  type LaunchOptions,
  launchPipeline,
  type Pipeline,
  type SampleDebitOptions,
  sampleOnUsDebit,
} from '@rp/launcher';
import { infra } from '@rp/testkit';

export const root = fileURLToPath(new URL('../..', import.meta.url));

/**
 * Windows for tests that may run at any hour on any day: every day is a business day, today's debit
 * window spans the whole day (so a debit collected today waits for today's window), and it opens only
 * when a test declares the credits final with the admin trigger. The reconciliation window closes by
 * the admin trigger as well.
 */
export const testWindows: Readonly<Record<string, string>> = {
  BUSINESS_DAYS: 'MON,TUE,WED,THU,FRI,SAT,SUN',
  DEBIT_WINDOW_OPEN: '00:00',
  DEBIT_WINDOW_CLOSE: '23:58',
  RECONCILIATION_WINDOW_CLOSE: '23:59',
  WINDOW_TICK: '200ms',
};

export interface EndToEnd {
  readonly pipeline: Pipeline;
  /** The bank simulator: what every bank received, faults to inject. */
  readonly bank: BankSimulatorClient;
  /** POSTs a JSON body to the ingress's bank-facing API (`path` below `/api/v1`). */
  post(path: string, body: string, headers?: Record<string, string>): Promise<Response>;
  /** An on-us debit of the default bank, collected today, sent as `outboundDirectDebit`. */
  sendDebit(
    options?: SampleDebitOptions,
  ): Promise<{ uetr: string; messageIdentification: string; response: Response; body: string }>;
  /** Declares credits final and opens today's debit window (the scheduler's admin trigger). */
  openDebitWindow(): Promise<unknown>;
  /** Closes today's reconciliation window; answers the scheduler's summary. */
  closeReconciliationWindow(): Promise<unknown>;
  /** The reconciliation items of today's window. */
  reconciliationItems(): Promise<ReconciliationEntry[]>;
  /** The tracker's snapshot of a transaction, or null. */
  transaction(uetr: string): Promise<Record<string, unknown> | null>;
  stop(): Promise<void>;
}

export interface ReconciliationEntry {
  readonly uetr: string;
  readonly [field: string]: unknown;
}

async function json(response: Response, what: string): Promise<unknown> {
  const text = await response.text();
  if (!response.ok) throw new Error(`${what}: HTTP ${response.status} ${text}`);
  return text.length > 0 ? JSON.parse(text) : null;
}

/** The whole pipeline as processes on this test run's infrastructure, with test windows. */
export async function startEndToEnd(
  options: Partial<Omit<LaunchOptions, 'root' | 'endpoints'>> = {},
): Promise<EndToEnd> {
  const endpoints = await infra();
  const pipeline = await launchPipeline({
    ...options,
    root,
    endpoints,
    env: { RESPONSE_DELAY: '20ms', ...testWindows, ...options.env },
  });
  const bank = new BankSimulatorClient(pipeline.url('bank-simulator'));
  const scheduler = pipeline.url('scheduler');
  const post = (path: string, body: string, headers: Record<string, string> = {}) =>
    fetch(`${pipeline.apiUrl}/${path.replace(/^\/+/, '')}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body,
    });
  return {
    pipeline,
    bank,
    post,
    async sendDebit(debitOptions = {}) {
      const sample = sampleOnUsDebit(root, debitOptions);
      const response = await post('outbound/direct-debit', sample.body);
      return {
        uetr: sample.uetr,
        messageIdentification: sample.messageIdentification,
        response,
        body: sample.body,
      };
    },
    openDebitWindow: async () =>
      json(await fetch(`${scheduler}/admin/windows/debit/open`, { method: 'POST' }), 'open debit window'),
    closeReconciliationWindow: async () =>
      json(
        await fetch(`${scheduler}/admin/windows/reconciliation/close`, { method: 'POST' }),
        'close reconciliation window',
      ),
    async reconciliationItems() {
      const items: ReconciliationEntry[] = [];
      let after: string | undefined;
      for (;;) {
        const query = new URLSearchParams({ window: johannesburgDate() });
        if (after) query.set('after', after);
        const page = (await json(
          await fetch(`${scheduler}/admin/reconciliation?${query}`),
          'reconciliation items',
        )) as { items: ReconciliationEntry[]; next?: string | null };
        items.push(...page.items);
        if (!page.next) return items;
        after = page.next;
      }
    },
    async transaction(uetr) {
      const response = await fetch(`${pipeline.url('tracker')}/admin/transactions/${uetr}`);
      if (response.status === 404) return null;
      return (await json(response, `transaction ${uetr}`)) as Record<string, unknown>;
    },
    stop: () => pipeline.stop(),
  };
}
