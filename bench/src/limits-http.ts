import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { launchPipeline, type PipelineEndpoints } from '@rp/launcher';
import { Pool } from 'undici';
import type { Row } from './report.ts';
import { bounded, round, summarize } from './stats.ts';

/**
 * How many event postings per second the bank simulator takes over keep-alive connections: the ceiling
 * of any delivery figure, since every posting of the pipeline ends there. A simulator of its own, without
 * signing secrets, so that the figure is the HTTP path and the posting's validation alone.
 */
export async function httpLimits(options: {
  root: string;
  endpoints: PipelineEndpoints;
  run: string;
  requests: number;
  connections: number;
}): Promise<Row[]> {
  const simulator = await launchPipeline({
    root: options.root,
    endpoints: options.endpoints,
    run: `${options.run}-http`,
    services: ['bank-simulator'],
    env: { SIGNING_SECRETS: '{}', LOG_LEVEL: 'warn' },
  });
  const example = readFileSync(
    join(options.root, 'avro', 'examples', 'TransactionStatePosting.debit-queued.json'),
    'utf8',
  );
  const pool = new Pool(simulator.url('bank-simulator'), {
    connections: options.connections,
    pipelining: 1,
    keepAliveTimeout: 30_000,
  });
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
      if (response.statusCode !== 202) throw new Error(`bank simulator answered ${response.statusCode}`);
    };
    await bounded(200, options.connections, post); // warm-up
    const latencies: number[] = [];
    const started = performance.now();
    await bounded(options.requests, options.connections, async () => {
      const t = performance.now();
      await post();
      latencies.push(performance.now() - t);
    });
    const seconds = (performance.now() - started) / 1000;
    const summary = summarize(latencies);
    return [
      {
        group: 'limit',
        name: `http POST /events to the bank simulator (${options.connections} keep-alive connections)`,
        value: round(options.requests / seconds, 0),
        unit: 'requests/s',
        detail: `p50 ${round(summary.p50, 1)} ms, p99 ${round(summary.p99, 1)} ms`,
      },
    ];
  } finally {
    await pool.close();
    await simulator.stop();
  }
}
