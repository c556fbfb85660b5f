import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BankClient, classifyStatus } from './bank-client.ts';

let server: Server;
let base: string;
const sockets = new Set<unknown>();
const hanging: ServerResponse[] = [];

beforeAll(async () => {
  server = createServer((request: IncomingMessage, response: ServerResponse) => {
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

describe('classifyStatus', () => {
  it('delivers on 2xx, retries 408, 425, 429, 5xx and redirects, gives up on other 4xx', () => {
    expect([200, 202, 204].map(classifyStatus)).toEqual(['delivered', 'delivered', 'delivered']);
    expect([408, 425, 429, 500, 502, 503, 504, 301].map(classifyStatus)).toEqual(Array(8).fill('retryable'));
    expect([400, 401, 403, 404, 409, 410, 413, 422].map(classifyStatus)).toEqual(Array(8).fill('final'));
  });
});

describe('BankClient', () => {
  it('tells delivered, retryable (with Retry-After) and final answers apart over pooled connections', async () => {
    const client = new BankClient({
      attemptTimeoutMs: 2_000,
      connectTimeoutMs: 1_000,
      connectionsPerOrigin: 2,
      keepAliveMs: 4_000,
    });
    try {
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
    } finally {
      await client.close();
    }
  });

  it('counts no answer within the attempt timeout, and a refused connection, as retryable without a status', async () => {
    const client = new BankClient({
      attemptTimeoutMs: 200,
      connectTimeoutMs: 200,
      connectionsPerOrigin: 2,
      keepAliveMs: 4_000,
    });
    try {
      const hung = await client.post(`${base}/hang`, {}, '{}');
      expect(hung).toMatchObject({ kind: 'retryable', status: null, error: 'no answer within 200 ms' });
      expect(hung.latencyMs).toBeGreaterThanOrEqual(190);
      const refused = await client.post('http://127.0.0.1:9/events', {}, '{}');
      expect(refused).toMatchObject({ kind: 'retryable', status: null });
      expect(refused.kind === 'retryable' && refused.error).toMatch(/ECONNREFUSED/);
    } finally {
      await client.close();
    }
  });
});
