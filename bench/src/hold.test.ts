import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchPipeline, type Pipeline } from '@rp/launcher';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { holdService, serviceMetrics } from './pipeline.ts';
import { metricValue } from './stats.ts';

// The bank simulator alone (it needs no Kafka, registry or MongoDB, so the endpoints are never dialled).
const root = fileURLToPath(new URL('../..', import.meta.url));
const logDir = mkdtempSync(join(tmpdir(), 'rp-bench-hold-'));
let pipeline: Pipeline;

beforeAll(async () => {
  pipeline = await launchPipeline({
    root,
    logDir,
    run: 'bench-hold-test',
    endpoints: {
      kafkaBrokers: ['127.0.0.1:9'],
      schemaRegistryUrl: 'http://127.0.0.1:9',
      mongodbUri: 'mongodb://127.0.0.1:9',
    },
    services: ['bank-simulator'],
    readyTimeoutMs: 30_000,
  });
});
afterAll(async () => {
  await pipeline?.stop();
  rmSync(logDir, { recursive: true, force: true });
});

const answers = (timeoutMs: number) =>
  fetch(`${pipeline.url('bank-simulator')}/health/live`, { signal: AbortSignal.timeout(timeoutMs) }).then(
    (response) => response.status,
    () => 'no answer' as const,
  );

describe('a service held while a phase is prepared', () => {
  it('is frozen, its last reading stands for it, and it goes on when let go', async () => {
    const release = await holdService(pipeline, 'bank-simulator');
    try {
      expect(await answers(500)).toBe('no answer');
      // Read while it answers nothing: the reading taken as it was held, the same each time.
      const held = await serviceMetrics(pipeline, 'bank-simulator');
      expect(metricValue(held, 'process_cpu_seconds_total')).toBeGreaterThan(0);
      expect(await serviceMetrics(pipeline, 'bank-simulator')).toBe(held);
    } finally {
      release();
    }
    expect(await answers(5_000)).toBe(200);
    const fresh = await serviceMetrics(pipeline, 'bank-simulator');
    expect(fresh).not.toBe(await serviceMetrics(pipeline, 'bank-simulator'));
  });
});
