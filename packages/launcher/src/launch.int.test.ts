import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchPipeline, type Pipeline, serviceNodeFlags } from './launch.ts';

// Runs the built bank simulator only (it needs no Kafka, registry or MongoDB), so the endpoints are never
// dialled. Needs `services/bank-simulator/dist` (the build).
const root = fileURLToPath(new URL('../../..', import.meta.url));
const built = existsSync(join(root, 'services', 'bank-simulator', 'dist', 'main.js'));
const logDir = mkdtempSync(join(tmpdir(), 'rp-launcher-'));
let pipeline: Pipeline;

beforeAll(async () => {
  if (!built) throw new Error('services/bank-simulator is not built: run the build first');
  pipeline = await launchPipeline({
    root,
    logDir,
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

const answers = (url: string, timeoutMs = 1_000) =>
  fetch(`${url}/health/live`, { signal: AbortSignal.timeout(timeoutMs) }).then(
    (response) => response.status,
    () => 'no answer' as const,
  );

describe('extra instances', () => {
  it('starts another process of a service with its own port, environment and log', async () => {
    const instance = await pipeline.startInstance('bank-simulator', { env: { LOG_LEVEL: 'debug' } });
    expect(instance.name).toBe('bank-simulator-2');
    expect(instance.port).not.toBe(pipeline.ports['bank-simulator']);
    expect(await answers(instance.url)).toBe(200);
    expect(await answers(pipeline.url('bank-simulator'))).toBe(200);
    const log = readFileSync(instance.logFile, 'utf8');
    expect(log).toContain('"level":"debug"');
    await instance.stop();
    expect(instance.isRunning()).toBe(false);
    expect(await answers(instance.url)).toBe('no answer');
  });

  it('freezes an instance with SIGSTOP (no answer at all) and lets it go on with SIGCONT', async () => {
    const instance = await pipeline.startInstance('bank-simulator', { name: 'frozen' });
    instance.signal('SIGSTOP');
    expect(await answers(instance.url, 500)).toBe('no answer');
    expect(instance.isRunning()).toBe(true);
    instance.signal('SIGCONT');
    expect(await answers(instance.url, 5_000)).toBe(200);
    instance.signal('SIGSTOP');
    // stop() continues a frozen process so that it can end on SIGTERM.
    await instance.stop();
    expect(instance.isRunning()).toBe(false);
  });

  it("freezes one of the pipeline's own services and lets it go on", async () => {
    pipeline.signal('bank-simulator', 'SIGSTOP');
    expect(await answers(pipeline.url('bank-simulator'), 500)).toBe('no answer');
    expect(pipeline.isRunning('bank-simulator')).toBe(true);
    pipeline.signal('bank-simulator', 'SIGCONT');
    expect(await answers(pipeline.url('bank-simulator'), 5_000)).toBe(200);
  });

  it('ends the extra instances with the pipeline', async () => {
    const other = await launchPipeline({
      root,
      logDir,
      run: 'launcher-test-stop',
      endpoints: {
        kafkaBrokers: ['127.0.0.1:9'],
        schemaRegistryUrl: 'http://127.0.0.1:9',
        mongodbUri: 'mongodb://127.0.0.1:9',
      },
      services: ['bank-simulator'],
    });
    const instance = await other.startInstance('bank-simulator');
    const pid = other.pid('bank-simulator');
    expect(pid).toBeTypeOf('number');
    expect(pid).not.toBe(pipeline.pid('bank-simulator'));
    // The process of that id is alive (signal 0 only checks), and it is the one the pipeline stops.
    expect(() => process.kill(pid as number, 0)).not.toThrow();
    await other.stop();
    expect(instance.isRunning()).toBe(false);
    expect(other.isRunning('bank-simulator')).toBe(false);
    expect(other.pid('bank-simulator')).toBeUndefined();
    expect(() => process.kill(pid as number, 0)).toThrow();
  });
});

describe("a service's node", () => {
  it('starts with the flags of serviceNodeFlags before its main module', () => {
    const pid = pipeline.pid('bank-simulator');
    const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8')
      .split('\u0000')
      .filter((arg) => arg !== '');
    expect(pipeline.nodeFlags).toEqual(serviceNodeFlags());
    expect(argv.slice(1)).toEqual([
      ...serviceNodeFlags(),
      join(root, 'services', 'bank-simulator', 'dist', 'main.js'),
    ]);
  });
});

describe('a service started under a command', () => {
  it('runs the service through the command, which execs it: the process signalled is the service', async () => {
    const marker = join(logDir, 'wrapped');
    const wrapped = await launchPipeline({
      root,
      logDir,
      run: 'launcher-test-wrap',
      endpoints: {
        kafkaBrokers: ['127.0.0.1:9'],
        schemaRegistryUrl: 'http://127.0.0.1:9',
        mongodbUri: 'mongodb://127.0.0.1:9',
      },
      services: ['bank-simulator'],
      // The shell writes its own pid, then becomes the service.
      wrap: (service) => ['/bin/sh', '-c', 'echo $$ > "$0" && exec "$@"', `${marker}-${service}`],
    });
    try {
      expect(await answers(wrapped.url('bank-simulator'))).toBe(200);
      const pid = wrapped.pid('bank-simulator');
      expect(Number(readFileSync(`${marker}-bank-simulator`, 'utf8'))).toBe(pid);
      const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8')
        .split('\u0000')
        .filter((arg) => arg !== '');
      expect(argv.slice(1)).toEqual([
        ...serviceNodeFlags(),
        join(root, 'services', 'bank-simulator', 'dist', 'main.js'),
      ]);
    } finally {
      await wrapped.stop();
    }
    expect(wrapped.isRunning('bank-simulator')).toBe(false);
  });
});
