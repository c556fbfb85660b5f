import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { launchPipeline, type PipelineEndpoints } from '@rp/launcher';
import { Pool } from 'undici';
import { limitCpuRows, type MachineCpu, machineCpu } from './cpu.ts';
import type { Row } from './report.ts';
import { bounded, metricValue, parsePrometheus, round, summarize } from './stats.ts';

interface Measured {
  readonly perSecond: number;
  readonly p50: number;
  readonly p99: number;
  /** The server's own CPU a request, from its `process_cpu_seconds_total`. */
  readonly cpuMicros: number;
  readonly requests: number;
  /** The machine's CPU readings around the measured requests. */
  readonly machine: { readonly before?: MachineCpu; readonly after?: MachineCpu };
}

/**
 * `requests` postings of the example to `baseUrl` over `connections` keep-alive connections, after
 * `warmUp` of them unmeasured: the rate, the latencies and the server's CPU a request. A server's code
 * is compiled to its fastest tier only after thousands of requests (the bank simulator's CPU a request
 * halves over its first 25,000 or so), and the pipeline's servers are warm, so a limit is measured warm.
 */
export async function postAll(
  baseUrl: string,
  example: string,
  requests: number,
  connections: number,
  warmUp = 200,
): Promise<Measured> {
  const pool = new Pool(baseUrl, { connections, pipelining: 1, keepAliveTimeout: 30_000 });
  const cpuSeconds = async () => {
    const response = await pool.request({ method: 'GET', path: '/metrics' });
    const text = await response.body.text();
    if (response.statusCode !== 200) throw new Error(`${baseUrl}/metrics answered ${response.statusCode}`);
    return metricValue(parsePrometheus(text), 'process_cpu_seconds_total');
  };
  try {
    const post = async () => {
      const id = randomUUID();
      const body = example.replaceAll('2f6c1e0a-8b4d-4c7e-9a1f-3d5b7c9e1a24', id);
      const response = await pool.request({
        method: 'POST',
        path: '/banks/250655/events',
        headers: { 'content-type': 'application/json', 'webhook-id': `msg_${id}` },
        body,
      });
      await response.body.dump();
      if (response.statusCode !== 202) throw new Error(`${baseUrl} answered ${response.statusCode}`);
    };
    await bounded(warmUp, connections, post);
    const latencies: number[] = [];
    const cpuBefore = await cpuSeconds();
    const machineBefore = machineCpu();
    const started = performance.now();
    await bounded(requests, connections, async () => {
      const t = performance.now();
      await post();
      latencies.push(performance.now() - t);
    });
    const seconds = (performance.now() - started) / 1000;
    const machineAfter = machineCpu();
    const cpuAfter = await cpuSeconds();
    const summary = summarize(latencies);
    return {
      perSecond: requests / seconds,
      p50: summary.p50,
      p99: summary.p99,
      cpuMicros: ((cpuAfter - cpuBefore) * 1e6) / requests,
      requests,
      machine: {
        ...(machineBefore === undefined ? {} : { before: machineBefore }),
        ...(machineAfter === undefined ? {} : { after: machineAfter }),
      },
    };
  } finally {
    await pool.close();
  }
}

/**
 * The services' HTTP stack with nothing behind it (`http-floor-server.ts`) as its own process, its
 * workspace packages read from their sources as the bench's own are; stopped once `work` is done.
 */
export async function withFloorServer<T>(work: (url: string, pid: number) => Promise<T>): Promise<T> {
  const script = join(import.meta.dirname, 'http-floor-server.ts');
  const child = spawn(process.execPath, ['--conditions=source', script], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = once(child, 'exit');
  try {
    const lines = createInterface({ input: child.stdout });
    const first = await Promise.race([
      once(lines, 'line').then(([line]) => String(line)),
      exited.then(([code]) => {
        throw new Error(`the HTTP floor server exited (${code}) before it listened`);
      }),
    ]);
    const { url } = JSON.parse(first) as { url: string };
    return await work(url, child.pid ?? 0);
  } finally {
    if (child.exitCode === null) {
      child.kill('SIGTERM');
      await exited;
    }
  }
}

/**
 * How many event postings per second the bank simulator takes over keep-alive connections: the ceiling
 * of any delivery figure, since every posting of the pipeline ends there. A simulator of its own, without
 * signing secrets, so that the figure is the HTTP path and the posting's validation alone. Beside it,
 * the same requests to the services' HTTP stack with nothing behind the route: what the framework, Node
 * and the kernel cost a request before the simulator parses, checks and keeps the posting.
 */
export async function httpLimits(options: {
  root: string;
  endpoints: PipelineEndpoints;
  run: string;
  requests: number;
  connections: number;
  /** Postings sent to each server before the measured ones. */
  warmUp: number;
}): Promise<Row[]> {
  const example = readFileSync(
    join(options.root, 'avro', 'examples', 'TransactionStatePosting.debit-queued.json'),
    'utf8',
  );
  const simulator = await launchPipeline({
    root: options.root,
    endpoints: options.endpoints,
    run: `${options.run}-http`,
    services: ['bank-simulator'],
    env: { SIGNING_SECRETS: '{}', LOG_LEVEL: 'warn' },
  });
  const bank = await postAll(
    simulator.url('bank-simulator'),
    example,
    options.requests,
    options.connections,
    options.warmUp,
  ).finally(() => simulator.stop());
  const floor = await withFloorServer((url) =>
    postAll(url, example, options.requests, options.connections, options.warmUp),
  );
  const detail = (measured: Measured, what: string) =>
    `p50 ${round(measured.p50, 1)} ms, p99 ${round(measured.p99, 1)} ms; ${round(measured.cpuMicros, 0)} µs of its CPU a request, after ${options.warmUp} to warm it up${what}`;
  const bankName = `http POST /events to the bank simulator (${options.connections} keep-alive connections)`;
  const floorName = `http POST /events to the services' HTTP stack, nothing behind it (${options.connections} connections)`;
  const machineRows = (name: string, measured: Measured) =>
    limitCpuRows(name, 'request', measured.requests, measured.machine.before, measured.machine.after);
  return [
    {
      group: 'limit',
      name: bankName,
      value: round(bank.perSecond, 0),
      unit: 'requests/s',
      detail: detail(bank, ''),
    },
    ...machineRows(bankName, bank),
    {
      group: 'limit',
      name: floorName,
      value: round(floor.perSecond, 0),
      unit: 'requests/s',
      detail: detail(
        floor,
        ': the body read and 202 answered, not parsed, checked or kept; the rest of the bank simulator is its work on the posting',
      ),
    },
    ...machineRows(floorName, floor),
  ];
}
