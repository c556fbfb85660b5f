import { type HttpServer, startHttpServer } from '@rp/runtime';
import { Hono } from 'hono';

/** One request a test bank received. */
export interface ReceivedCall {
  bank: string;
  path: string;
  headers: Record<string, string>;
  body: string;
  /** Real time it arrived (ms). */
  at: number;
}

/** What a bank answers to the n-th call (1-based) of one message (webhook-id). */
export type Script = (call: number) => { status: number; headers?: Record<string, string> } | 'hang';

export interface TestBanks {
  readonly url: string;
  readonly calls: ReceivedCall[];
  callsOf(bank: string, webhookId?: string): ReceivedCall[];
  /** Resolves once `count` calls matching arrived. */
  waitForCalls(
    match: (call: ReceivedCall) => boolean,
    count: number,
    timeoutMs?: number,
  ): Promise<ReceivedCall[]>;
  close(): Promise<void>;
}

/**
 * A real HTTP server playing several banks, each under its own path prefix (`{url}/{bank}`), each
 * answering by its script: per message, the n-th call gets the n-th answer. A hanging answer is held
 * until the server closes, like a bank that never answers.
 */
export async function startTestBanks(scripts: Record<string, Script>): Promise<TestBanks> {
  const calls: ReceivedCall[] = [];
  const counts = new Map<string, number>();
  const held: (() => void)[] = [];
  const waiters = new Set<() => void>();
  const app = new Hono();
  app.post('/:bank/*', async (c) => {
    const bank = c.req.param('bank');
    const script = scripts[bank];
    if (!script) return c.text('no such bank', 404);
    const body = await c.req.text();
    const headers = Object.fromEntries(c.req.raw.headers.entries());
    const call: ReceivedCall = {
      bank,
      path: c.req.path.slice(bank.length + 1),
      headers,
      body,
      at: Date.now(),
    };
    calls.push(call);
    for (const wake of [...waiters]) wake();
    const key = `${bank}:${headers['webhook-id'] ?? ''}`;
    const n = (counts.get(key) ?? 0) + 1;
    counts.set(key, n);
    const answer = script(n);
    if (answer === 'hang') {
      await new Promise<void>((resolve) => held.push(resolve));
      return c.text('too late', 503);
    }
    return c.body(null, answer.status as 202, answer.headers ?? {});
  });
  const server: HttpServer = await startHttpServer(app, {
    port: 0,
    host: '127.0.0.1',
    closeTimeoutMs: 1_000,
  });
  return {
    url: server.url,
    calls,
    callsOf: (bank, webhookId) =>
      calls.filter(
        (call) => call.bank === bank && (webhookId === undefined || call.headers['webhook-id'] === webhookId),
      ),
    waitForCalls(match, count, timeoutMs = 30_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = calls.filter(match);
          if (found.length < count) return;
          waiters.delete(check);
          clearTimeout(timer);
          resolve(found);
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(
            new Error(`${calls.filter(match).length} of ${count} expected calls within ${timeoutMs} ms`),
          );
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    async close() {
      for (const release of held.splice(0)) release();
      await server.close();
    },
  };
}
