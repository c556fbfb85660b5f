import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { completedDebitJourney } from '@rp/contracts';
import { type EngineService, pipelineServices } from '@rp/launcher';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkCompletedDebit, postingsOnceArrived, reachedFinalPosting } from './events-helpers.ts';
import { type EndToEnd, startEndToEnd } from './pipeline.ts';

// The pipeline's six services in one process, the engine's, on the real stack; the bank simulator in a
// process of its own, as a bank would be.
const together: readonly EngineService[] = pipelineServices.filter(
  (service): service is EngineService => service !== 'bank-simulator',
);

let e2e: EndToEnd;
beforeAll(async () => {
  e2e = await startEndToEnd({ together });
});
afterAll(async () => {
  await e2e?.stop();
});

/** The engine's log lines that are JSON, in order. */
function engineLog(): Record<string, unknown>[] {
  return readFileSync(join(e2e.pipeline.logDir, 'engine.log'), 'utf8')
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** Sends an on-us debit and follows it to its last posting at the bank; answers the journey's check. */
async function completedDebit() {
  const { uetr, response } = await e2e.sendDebit();
  expect(response.status).toBe(202);
  await e2e.openDebitWindow();
  const deadline = Date.now() + 120_000;
  let postings = await postingsOnceArrived(
    e2e.pipeline.url('bank-simulator'),
    uetr,
    completedDebitJourney.length * 2,
    deadline,
  );
  while (!reachedFinalPosting(postings)) {
    postings = await postingsOnceArrived(
      e2e.pipeline.url('bank-simulator'),
      uetr,
      postings.length + 1,
      deadline,
    );
  }
  return checkCompletedDebit(uetr, postings);
}

describe('the services together in one process, the engine', () => {
  it('runs all six in one process, each answering on its own port with its own metrics', async () => {
    const pid = e2e.pipeline.pid('tracker');
    expect(pid).toBeDefined();
    for (const service of together) expect(e2e.pipeline.pid(service)).toBe(pid);
    expect(e2e.pipeline.pid('bank-simulator')).not.toBe(pid);
    const ports = new Set(together.map((service) => e2e.pipeline.ports[service]));
    expect(ports.size).toBe(together.length);
    for (const service of together) {
      const ready = await fetch(`${e2e.pipeline.url(service)}/health/ready`);
      expect(ready.status, service).toBe(200);
      const metrics = await (await fetch(`${e2e.pipeline.url(service)}/metrics`)).text();
      expect(metrics, service).toContain(`service="${service}"`);
    }
    expect(engineLog().find((line) => line.msg === 'all services started')?.services).toEqual([...together]);
  });

  it("answers the engine's own probes over all six on its own port", async () => {
    const probes = engineLog().findLast(
      (line) => line.msg === 'starting the services in one process',
    )?.probes;
    expect(typeof probes).toBe('string');
    expect((await fetch(`${probes}/health/live`)).status).toBe(200);
    const ready = await fetch(`${probes}/health/ready`);
    expect(ready.status).toBe(200);
    const report = (await ready.json()) as { state: string; checks: { name: string; ok: boolean }[] };
    expect(report.state).toBe('ready');
    expect(report.checks.map((check) => [check.name, check.ok])).toEqual(
      together.map((service) => [service, true]),
    );
  });

  it('takes an on-us debit through the whole journey: every posting once, in order, signed', async () => {
    const journey = await completedDebit();
    expect(journey.problems).toEqual([]);
    expect(journey.ids).toHaveLength(completedDebitJourney.length * 2);
    expect((await e2e.transaction(journey.uetr))?.state).toBe('DEBIT_COMPLETED');
  });

  it('stops on SIGTERM the ingress first and the tracker last, each whole, and starts again with all six', async () => {
    const engine = e2e.pipeline.pid('ingress');
    await e2e.pipeline.kill('ingress', 'SIGTERM');
    for (const service of together) expect(e2e.pipeline.isRunning(service), service).toBe(false);
    expect(e2e.pipeline.isRunning('bank-simulator')).toBe(true);

    const lines = engineLog();
    const stopping = lines.findLast((line) => line.msg === 'stopping services');
    expect(stopping?.services).toEqual([...together].reverse());
    const completions = lines
      .filter((line) => line.msg === 'shutdown complete')
      .map((line) => line.service)
      .slice(-together.length);
    expect(completions).toEqual([...together].reverse());
    expect(lines.filter((line) => line.msg === 'shutdown finished with failures')).toEqual([]);

    // Starting any of them starts the engine again, and with it all six, each waited for.
    await e2e.pipeline.start('tracker');
    const restarted = e2e.pipeline.pid('tracker');
    expect(restarted).toBeDefined();
    expect(restarted).not.toBe(engine);
    for (const service of together) {
      expect(e2e.pipeline.pid(service), service).toBe(restarted);
      expect((await fetch(`${e2e.pipeline.url(service)}/health/ready`)).status, service).toBe(200);
    }
    const journey = await completedDebit();
    expect(journey.problems).toEqual([]);
  });
});
