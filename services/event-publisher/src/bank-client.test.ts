import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BankClient, type BankClientOptions, classifyStatus } from './bank-client.ts';

let server: Server;
let base: string;
const sockets = new Set<unknown>();
const hanging: ServerResponse[] = [];
/** Chunks written by the answers that never end. */
let trickled = 0;
/** Requests the server has received. */
let received = 0;

beforeAll(async () => {
  server = createServer((request: IncomingMessage, response: ServerResponse) => {
    received += 1;
    let body = '';
    request.on('data', (chunk) => {
      body += chunk;
    });
    request.on('end', () => {
      const status = Number(request.url?.slice(1));
      if (request.url === '/hang') {
        hanging.push(response);
        return;
      }
      if (request.url === '/trickle') {
        // Headers at once, then a body that never ends: only the attempt's own deadline stops it.
        response.writeHead(202, { 'content-type': 'text/plain' });
        const timer = setInterval(() => {
          trickled += 1;
          response.write('.');
        }, 20);
        response.on('close', () => clearInterval(timer));
        hanging.push(response);
        return;
      }
      if (request.url === '/long') {
        response.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' });
        response.end(`${'é'.repeat(150)}\n${'ü'.repeat(150)}`);
        return;
      }
      if (status === 503) response.setHeader('retry-after', '7');
      response.writeHead(status, { 'content-type': 'text/plain' });
      response.end(status >= 400 ? `nope ${body.length}` : '');
    });
  });
  server.on('connection', (socket) => sockets.add(socket));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  for (const response of hanging) response.destroy();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

/** A client over the test server's pool (2 s attempts, 4 connections unless told), closed after `use`. */
async function withClient(
  options: Partial<BankClientOptions>,
  use: (client: BankClient) => Promise<void>,
): Promise<void> {
  const client = new BankClient({
    attemptTimeoutMs: 2_000,
    connectTimeoutMs: 1_000,
    connectionsPerOrigin: 4,
    keepAliveMs: 4_000,
    ...options,
  });
  try {
    await use(client);
  } finally {
    await client.close();
  }
}

describe('classifyStatus', () => {
  it('delivers on 2xx, retries 408, 425, 429, 5xx and redirects, gives up on other 4xx', () => {
    expect([200, 202, 204].map(classifyStatus)).toEqual(['delivered', 'delivered', 'delivered']);
    expect([408, 425, 429, 500, 502, 503, 504, 301].map(classifyStatus)).toEqual(Array(8).fill('retryable'));
    expect([400, 401, 403, 404, 409, 410, 413, 422].map(classifyStatus)).toEqual(Array(8).fill('final'));
  });
});

describe('BankClient', () => {
  it('tells delivered, retryable (with Retry-After) and final answers apart over pooled connections', async () => {
    await withClient({ connectionsPerOrigin: 2 }, async (client) => {
      const results = [];
      for (const status of [202, 202, 503, 404, 202, 202]) {
        results.push(
          await client.post(`${base}/${status}`, { 'content-type': 'application/json' }, '{"a":1}'),
        );
      }
      expect(results.map((result) => result.kind)).toEqual([
        'delivered',
        'delivered',
        'retryable',
        'final',
        'delivered',
        'delivered',
      ]);
      expect(results[2]).toMatchObject({ status: 503, retryAfter: '7', error: 'HTTP 503: nope 7' });
      expect(results[3]).toMatchObject({ status: 404 });
      // Six requests over the keep-alive pool: at most its two connections were opened.
      expect(sockets.size).toBeGreaterThanOrEqual(1);
      expect(sockets.size).toBeLessThanOrEqual(2);
    });
  });

  it('counts no answer within the attempt timeout, and a refused connection, as retryable without a status', async () => {
    await withClient(
      { attemptTimeoutMs: 200, connectTimeoutMs: 200, connectionsPerOrigin: 2 },
      async (client) => {
        const hung = await client.post(`${base}/hang`, {}, '{}');
        expect(hung).toMatchObject({ kind: 'retryable', status: null, error: 'no answer within 200 ms' });
        expect(hung.latencyMs).toBeGreaterThanOrEqual(190);
        const refused = await client.post('http://127.0.0.1:9/events', {}, '{}');
        expect(refused).toMatchObject({ kind: 'retryable', status: null });
        expect(refused.kind === 'retryable' && refused.error).toMatch(/ECONNREFUSED/);
      },
    );
  });

  it('ends an attempt when its caller aborts, and takes none once the signal has aborted', async () => {
    await withClient({ attemptTimeoutMs: 30_000 }, async (client) => {
      const stop = new AbortController();
      const waiting = hanging.length;
      const pending = [1, 2].map(() => client.post(`${base}/hang`, {}, '{}', stop.signal));
      await expect.poll(() => hanging.length).toBe(waiting + 2);
      stop.abort();
      const ended = await Promise.all(pending);
      expect(ended).toEqual([
        expect.objectContaining({ kind: 'retryable', status: null, error: 'aborted' }),
        expect.objectContaining({ kind: 'retryable', status: null, error: 'aborted' }),
      ]);
      const requests = received;
      expect(await client.post(`${base}/202`, {}, '{}', stop.signal)).toMatchObject({
        kind: 'retryable',
        error: 'aborted',
      });
      // Nothing was sent for it: the next request is the only one the server gets.
      expect(await client.post(`${base}/202`, {}, '{}')).toMatchObject({ kind: 'delivered' });
      expect(received).toBe(requests + 1);
      // Another caller's signal is its own: the client goes on delivering.
      expect(await client.post(`${base}/202`, {}, '{}', new AbortController().signal)).toMatchObject({
        kind: 'delivered',
        status: 202,
      });
    });
  });

  it('times out attempts started one after another, each at its own deadline, and goes on delivering', async () => {
    await withClient({ attemptTimeoutMs: 300 }, async (client) => {
      const waiting = hanging.length;
      const first = client.post(`${base}/hang`, {}, '{}');
      await expect.poll(() => hanging.length).toBe(waiting + 1);
      const second = client.post(`${base}/hang`, {}, '{}');
      const delivered = await client.post(`${base}/202`, {}, '{}');
      expect(delivered).toMatchObject({ kind: 'delivered', status: 202 });
      const [one, two] = await Promise.all([first, second]);
      for (const result of [one, two]) {
        expect(result).toMatchObject({ kind: 'retryable', status: null, error: 'no answer within 300 ms' });
        expect(result.latencyMs).toBeGreaterThanOrEqual(290);
      }
      expect(await client.post(`${base}/202`, {}, '{}')).toMatchObject({ kind: 'delivered' });
    });
  });

  it('ends an answer that never finishes at the deadline, also after an attempt that finished early', async () => {
    await withClient({ attemptTimeoutMs: 300 }, async (client) => {
      const first = client.post(`${base}/trickle`, {}, '{}');
      // The second attempt starts well after the first, so that its deadline (it finished long before)
      // comes between the first's and the third's.
      const from = trickled;
      await expect.poll(() => trickled - from).toBeGreaterThanOrEqual(5);
      expect(await client.post(`${base}/202`, {}, '{}')).toMatchObject({ kind: 'delivered' });
      const third = client.post(`${base}/trickle`, {}, '{}');
      const [one, three] = await Promise.all([first, third]);
      for (const result of [one, three]) {
        expect(result).toMatchObject({ kind: 'retryable', status: null, error: 'no answer within 300 ms' });
        expect(result.latencyMs).toBeGreaterThanOrEqual(290);
      }
    });
  });

  it("keeps the first 200 characters of an error answer's body, whitespace folded", async () => {
    await withClient({ connectionsPerOrigin: 1 }, async (client) => {
      const result = await client.post(`${base}/long`, {}, '{}');
      expect(result).toMatchObject({ kind: 'retryable', status: 500 });
      expect(result.kind === 'retryable' && result.error).toBe(
        `HTTP 500: ${'é'.repeat(150)} ${'ü'.repeat(49)}`,
      );
      const invalid = await client.post('not a url', {}, '{}');
      expect(invalid).toMatchObject({ kind: 'retryable', status: null });
      expect(invalid.kind === 'retryable' && invalid.error).toMatch(/not an absolute URL/);
    });
  });
});
