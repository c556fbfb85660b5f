import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { postAll, withFloorServer } from './limits-http.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const example = readFileSync(`${root}avro/examples/TransactionStatePosting.debit-queued.json`, 'utf8');

/** A server of `handle` on a free loopback port (each request's body read), closed after `work`. */
async function withServer<T>(
  handle: (request: IncomingMessage, response: ServerResponse) => void,
  work: (url: string) => Promise<T>,
): Promise<T> {
  const server = createServer((request, response) => {
    request.resume();
    handle(request, response);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  try {
    return await work(`http://127.0.0.1:${port}`);
  } finally {
    server.close();
  }
}

function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe("the services' bare HTTP stack, the HTTP limit's floor", () => {
  it('answers every posting 202 and reports its own CPU a request', async () => {
    const measured = await withFloorServer((url) => postAll(url, example, 100, 4));
    expect(measured.perSecond).toBeGreaterThan(0);
    expect(measured.p50).toBeGreaterThan(0);
    expect(measured.p99).toBeGreaterThanOrEqual(measured.p50);
    // Read from the server's own process_cpu_seconds_total: a figure of zero would mean none was read.
    expect(measured.cpuMicros).toBeGreaterThan(0);
    // And the machine's readings around the measured requests, for the machine's CPU a request.
    expect(measured.requests).toBe(100);
    expect(measured.machine.after?.busySeconds).toBeGreaterThan(
      measured.machine.before?.busySeconds ?? Infinity,
    );
  });

  it('is stopped once the work is done, and when the work fails', async () => {
    const pid = await withFloorServer(async (_url, pid) => pid);
    expect(pid).toBeGreaterThan(0);
    expect(running(pid)).toBe(false);
    let failedPid = 0;
    await expect(
      withFloorServer(async (_url, pid) => {
        failedPid = pid;
        throw new Error('the work failed');
      }),
    ).rejects.toThrow('the work failed');
    expect(running(failedPid)).toBe(false);
  });

  it('sends the warm-up postings first, unmeasured, and reads the CPU after them', async () => {
    let posted = 0;
    let postedAtFirstReading: number | undefined;
    const measured = await withServer(
      (request, response) => {
        if (request.method === 'GET') {
          postedAtFirstReading ??= posted;
          response.end(`process_cpu_seconds_total ${posted / 1000}\n`);
        } else {
          posted += 1;
          response.statusCode = 202;
          response.end();
        }
      },
      (url) => postAll(url, example, 40, 4, 60),
    );
    expect(posted).toBe(100);
    expect(postedAtFirstReading).toBe(60);
    // The fake CPU counts 1 ms a posting: only the 40 measured ones are between the two readings.
    expect(measured.cpuMicros).toBeCloseTo(1000, 6);
  });

  it('refuses a server that does not answer 202', async () => {
    const refused = withServer(
      (request, response) => {
        if (request.method === 'GET') response.end('process_cpu_seconds_total 1\n');
        else {
          response.statusCode = 503;
          response.end();
        }
      },
      (url) => postAll(url, example, 1, 1),
    );
    await expect(refused).rejects.toThrow(/answered 503/);
  });
});
