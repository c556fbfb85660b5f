import { Kafka, logLevel } from 'kafkajs';
import { MongoClient } from 'mongodb';
import { runCommand } from './process.ts';

/**
 * Each check speaks the component's own protocol: an open port proves little (a JVM binds its port
 * well before it serves, and a wedged server still accepts connections).
 */

async function withTimeout<T>(work: Promise<T>, timeoutMs: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

let timerWarningQuiet = false;

/**
 * kafkajs 2.2.4 arms a timer with a negative delay on every request and Node 24 warns about it. The
 * warning is harmless and would clutter the output of every program that starts the stack (the CLI, the
 * test setup, the benchmarks); every other warning still prints.
 */
export function quietKafkaJsTimerWarning(): void {
  if (timerWarningQuiet) return;
  timerWarningQuiet = true;
  const printWarning = process.listeners('warning');
  process.removeAllListeners('warning');
  process.on('warning', (warning) => {
    if (warning.name === 'TimeoutNegativeWarning') return;
    for (const listener of printWarning) listener(warning);
  });
}

/** A Kafka metadata round trip through a real client: the broker knows itself and its controller. */
export async function kafkaAnswers(broker: string, timeoutMs: number): Promise<boolean> {
  quietKafkaJsTimerWarning();
  const admin = new Kafka({
    clientId: 'rp-local-stack',
    brokers: [broker],
    logLevel: logLevel.NOTHING,
    connectionTimeout: Math.min(timeoutMs, 3_000),
    requestTimeout: timeoutMs,
    retry: { retries: 0 },
  }).admin();
  try {
    const cluster = await withTimeout(
      (async () => {
        await admin.connect();
        return admin.describeCluster();
      })(),
      timeoutMs,
      'kafka',
    );
    return cluster.brokers.length > 0 && cluster.controller !== null;
  } catch {
    return false;
  } finally {
    await admin.disconnect().catch(() => {});
  }
}

/** The registry's Confluent-compatible API lists its subjects. */
export async function registryAnswers(baseUrl: string, timeoutMs: number): Promise<boolean> {
  try {
    const response = await fetch(`${baseUrl}/subjects`, { signal: AbortSignal.timeout(timeoutMs) });
    await response.arrayBuffer();
    return response.status === 200;
  } catch {
    return false;
  }
}

/** Accepting connections (pg_isready) and running a query (psql), both over TCP. */
export async function postgresAnswers(bindir: string, port: number, timeoutMs: number): Promise<boolean> {
  const seconds = String(Math.max(1, Math.ceil(timeoutMs / 1000)));
  try {
    const ready = await runCommand(
      `${bindir}/pg_isready`,
      ['-q', '-h', '127.0.0.1', '-p', String(port), '-t', seconds],
      { timeoutMs },
    );
    if (ready.code !== 0) return false;
    const query = await runCommand(
      `${bindir}/psql`,
      ['-X', '-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', '-d', 'postgres', '-tAc', 'select 1'],
      { timeoutMs, env: { ...process.env, PGCONNECT_TIMEOUT: seconds } },
    );
    return query.code === 0 && query.output.trim() === '1';
  } catch {
    return false;
  }
}

/** The MongoDB driver's ping, the same call an application's readiness check makes. */
export async function mongoAnswers(uri: string, timeoutMs: number): Promise<boolean> {
  const client = new MongoClient(uri, {
    directConnection: true,
    serverSelectionTimeoutMS: timeoutMs,
    connectTimeoutMS: timeoutMs,
    socketTimeoutMS: timeoutMs,
  });
  try {
    const answer = await withTimeout(
      (async () => {
        await client.connect();
        return client.db('admin').command({ ping: 1 });
      })(),
      timeoutMs,
      'mongodb',
    );
    return answer.ok === 1;
  } catch {
    return false;
  } finally {
    await client.close(true).catch(() => {});
  }
}
