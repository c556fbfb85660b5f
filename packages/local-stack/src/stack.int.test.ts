import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import {
  chmodSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Kafka, logLevel } from 'kafkajs';
import { MongoClient } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backendDatabase } from './components/ferretdb.ts';
import { ginTwinsSql } from './components/ferretdb-indexes.ts';
import { findPostgresBindir } from './components/postgres.ts';
import { type ComponentName, componentNames, resolveStackConfig, type StackPorts } from './config.ts';
import { delay, processAlive, runCommand } from './process.ts';
import { killComponent, readStackEnv, type StackUpResult, stackDown, stackStatus, stackUp } from './stack.ts';

/**
 * A stack of its own, 100 ports above the shared one (as configured, so two runs with their own ports
 * never meet) and in its own folder, so this test never
 * disturbs the stack other packages' tests are using. It shares only the download cache.
 */
const shared = resolveStackConfig().ports;
const ports: StackPorts = {
  kafka: shared.kafka + 100,
  kafkaController: shared.kafkaController + 100,
  registry: shared.registry + 100,
  postgres: shared.postgres + 100,
  mongo: shared.mongo + 100,
};
const stackDirPrefix = 'rp-stack-test-';
const stackDir = mkdtempSync(join(tmpdir(), stackDirPrefix));
// PostgreSQL runs as its own user and has to get through to its data folder.
chmodSync(stackDir, 0o755);
// Whose stack it is: one whose test process has ended was left by an interrupted run.
const ownerFile = 'owner.pid';
writeFileSync(join(stackDir, ownerFile), String(process.pid));
const lines: string[] = [];
const options = { stackDir, ports, log: (line: string) => lines.push(line) };
const portEnv = {
  RP_STACK_DIR: stackDir,
  RP_STACK_KAFKA_PORT: String(ports.kafka),
  RP_STACK_KAFKA_CONTROLLER_PORT: String(ports.kafkaController),
  RP_STACK_REGISTRY_PORT: String(ports.registry),
  RP_STACK_POSTGRES_PORT: String(ports.postgres),
  RP_STACK_MONGO_PORT: String(ports.mongo),
};
const minutes = (n: number) => n * 60_000;
const seenPids = new Set<number>();

function remember(result: StackUpResult): Map<ComponentName, number> {
  for (const component of result.components) seenPids.add(component.pid);
  return new Map(result.components.map((component) => [component.name, component.pid]));
}

async function kafkaRoundTrip(brokers: string[]): Promise<string> {
  const kafka = new Kafka({ clientId: 'local-stack-test', brokers, logLevel: logLevel.NOTHING });
  const topic = `local-stack-${process.pid}-${Date.now()}`;
  const admin = kafka.admin();
  await admin.connect();
  await admin.createTopics({ topics: [{ topic, numPartitions: 1 }], waitForLeaders: true });
  await admin.disconnect();
  const producer = kafka.producer();
  await producer.connect();
  await producer.send({ topic, messages: [{ key: 'k', value: 'hello from the stack test' }] });
  await producer.disconnect();
  const consumer = kafka.consumer({ groupId: `${topic}.group` });
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  const received = new Promise<string>((resolve) => {
    void consumer.run({
      eachMessage: async ({ message }) => resolve(message.value?.toString() ?? ''),
    });
  });
  try {
    return await received;
  } finally {
    await consumer.disconnect();
  }
}

async function registerSchema(baseUrl: string): Promise<{ id: number; fetched: string }> {
  const schema = JSON.stringify({
    type: 'record',
    name: 'StackCheck',
    namespace: 'local.stack',
    fields: [{ name: 'uetr', type: 'string' }],
  });
  const subject = `local-stack-check-${Date.now()}-value`;
  const registered = await fetch(`${baseUrl}/subjects/${subject}/versions`, {
    method: 'POST',
    headers: { 'content-type': 'application/vnd.schemaregistry.v1+json' },
    body: JSON.stringify({ schema }),
  });
  expect(registered.status).toBe(200);
  const { id } = (await registered.json()) as { id: number };
  const byId = await fetch(`${baseUrl}/schemas/ids/${id}`);
  expect(byId.status).toBe(200);
  const { schema: fetched } = (await byId.json()) as { schema: string };
  return { id, fetched };
}

async function mongoRoundTrip(uri: string): Promise<unknown> {
  const client = new MongoClient(uri, { serverSelectionTimeoutMS: 10_000 });
  await client.connect();
  try {
    const collection = client
      .db(`stack_test_${process.pid}`)
      .collection<{ _id: string; amount: string }>('checks');
    await collection.insertOne({ _id: `uetr-${Date.now()}`, amount: '100.25' });
    return (await collection.find({}).toArray()).map((document) => document.amount);
  } finally {
    await client.close();
  }
}

/** Runs a query in FerretDB's backing database through psql; one row per line, columns split by |. */
async function backendQuery(postgresUrl: string, sql: string): Promise<string[][]> {
  const bindir = findPostgresBindir();
  if (!bindir) throw new Error('PostgreSQL is not installed');
  const url = postgresUrl.replace(/\/postgres$/, `/${backendDatabase}`);
  const result = await runCommand(join(bindir, 'psql'), ['-X', '-v', 'ON_ERROR_STOP=1', url, '-tAc', sql]);
  if (result.code !== 0) throw new Error(`psql failed: ${result.output}`);
  return result.output
    .split('\n')
    .filter((line) => line.length > 0)
    .map((line) => line.split('|'));
}

const twinsOf = (schema: string) =>
  `from pg_stat_user_indexes s where s.schemaname = '${schema}' and s.indexrelname like 'rp_gin_%' ` +
  `and s.relname not like '_ferretdb_%'`;

/** The expressions of the GIN twins on the schema's collections, sorted. */
async function twins(postgresUrl: string, schema: string): Promise<string[]> {
  const rows = await backendQuery(
    postgresUrl,
    `select obj_description(s.indexrelid, 'pg_class') ${twinsOf(schema)}`,
  );
  return rows.map(([expression]) => expression ?? '').sort();
}

/** How often each twin has been scanned, by expression. */
async function twinScans(postgresUrl: string, schema: string): Promise<Map<string, number>> {
  const rows = await backendQuery(
    postgresUrl,
    `select obj_description(s.indexrelid, 'pg_class'), s.idx_scan ${twinsOf(schema)}`,
  );
  return new Map(rows.map(([expression, scans]) => [expression ?? '', Number(scans)]));
}

/** Each twin's storage options (`{fastupdate=off}`), by expression. */
async function twinOptions(postgresUrl: string, schema: string): Promise<Map<string, string>> {
  const rows = await backendQuery(
    postgresUrl,
    `select obj_description(s.indexrelid, 'pg_class'), coalesce(c.reloptions::text, '') ` +
      `from pg_stat_user_indexes s join pg_class c on c.oid = s.indexrelid ` +
      `where s.schemaname = '${schema}' and s.indexrelname like 'rp_gin_%' and s.relname not like '_ferretdb_%'`,
  );
  return new Map(rows.map(([expression, options]) => [expression ?? '', options ?? '']));
}

/** The PostgreSQL table FerretDB keeps a collection in. */
async function tableOf(postgresUrl: string, schema: string, collection: string): Promise<string> {
  const rows = await backendQuery(
    postgresUrl,
    `select tablename from pg_tables where schemaname = '${schema}' and tablename like '${collection}\\_%'`,
  );
  const table = rows[0]?.[0];
  if (!table) throw new Error(`no table for collection ${collection} in ${schema}`);
  return table;
}

/** Index scans of the `_id` twin of a collection's table. */
async function tableScans(
  postgresUrl: string,
  schema: string,
  collection: string,
): Promise<{ twin: number }> {
  const table = await tableOf(postgresUrl, schema, collection);
  const [row] = await backendQuery(
    postgresUrl,
    `select s.idx_scan from pg_stat_user_indexes s where s.schemaname = '${schema}' and s.relname = '${table}' ` +
      `and s.indexrelname like 'rp_gin_%' and obj_description(s.indexrelid, 'pg_class') = '(_jsonb -> ''_id''::text)'`,
  );
  return { twin: Number(row?.[0] ?? 0) };
}

async function until(condition: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await delay(200);
  }
}

function runCli(args: string[]): Promise<{ code: number | null; output: string }> {
  const cli = fileURLToPath(new URL('./cli.ts', import.meta.url));
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [cli, ...args], {
      env: { ...process.env, ...portEnv },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.on('close', (code) => resolve({ code, output }));
  });
}

/**
 * A run stopped before its `afterAll` (Ctrl-C, a killed job) leaves its stack running on this test's
 * ports, and every later run would fail on them: each such stack, its test process gone, is taken down
 * and its folder removed first. A folder without an owner, or whose owner still runs, is left alone.
 */
async function takeDownLeftStacks(): Promise<void> {
  for (const name of readdirSync(tmpdir())) {
    const dir = join(tmpdir(), name);
    if (!name.startsWith(stackDirPrefix) || dir === stackDir) continue;
    let owner: number;
    try {
      owner = Number(readFileSync(join(dir, ownerFile), 'utf8'));
    } catch {
      continue;
    }
    if (!Number.isInteger(owner) || processAlive(owner, 'node')) continue;
    await stackDown({ stackDir: dir, ports, log: () => undefined }).catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('local stack', () => {
  beforeAll(takeDownLeftStacks, minutes(2));

  afterAll(async () => {
    await stackDown(options).catch(() => undefined);
    rmSync(stackDir, { recursive: true, force: true });
  }, minutes(2));

  it(
    'starts every component, and each answers its own client',
    async () => {
      const result = await stackUp(options);
      remember(result);
      expect(result.components.map((component) => component.name).sort()).toEqual([...componentNames].sort());
      expect(result.kafkaBrokers).toEqual([`127.0.0.1:${ports.kafka}`]);
      expect(readStackEnv(options)).toEqual({
        kafkaBrokers: result.kafkaBrokers,
        schemaRegistryUrl: `http://127.0.0.1:${ports.registry}/apis/ccompat/v7`,
        mongodbUri: `mongodb://127.0.0.1:${ports.mongo}/`,
        postgresUrl: `postgres://postgres@127.0.0.1:${ports.postgres}/postgres`,
      });

      expect(await kafkaRoundTrip(result.kafkaBrokers)).toBe('hello from the stack test');
      const { id, fetched } = await registerSchema(result.schemaRegistryUrl);
      expect(id).toBeGreaterThan(0);
      expect(JSON.parse(fetched)).toMatchObject({ name: 'StackCheck' });
      expect(await mongoRoundTrip(result.mongodbUri)).toEqual(['100.25']);
      // FerretDB's tables are never analyzed automatically (postgres.ts); autovacuum itself still runs.
      const postgresUrl = `postgres://postgres@127.0.0.1:${ports.postgres}/postgres`;
      expect(await backendQuery(postgresUrl, 'show autovacuum_analyze_threshold')).toEqual([['2147483647']]);
      expect(await backendQuery(postgresUrl, 'show autovacuum')).toEqual([['on']]);
    },
    minutes(10),
  );

  it(
    "serves FerretDB's pushed-down filters from GIN twins of its indexes, and drops a twin with its index",
    async () => {
      const env = readStackEnv(options);
      if (!env) throw new Error('the stack wrote no stack.env');
      const database = `twins_${process.pid}`;
      const client = new MongoClient(env.mongodbUri, { serverSelectionTimeoutMS: 10_000 });
      await client.connect();
      try {
        const collection = client.db(database).collection<{ _id: string; uetr: string }>('postings');
        // Enough documents that PostgreSQL prefers an index to reading the whole (small) table.
        await collection.insertMany(
          Array.from({ length: 5000 }, (_, n) => ({ _id: `posting-${n}`, uetr: `uetr-${n % 500}` })),
        );
        await collection.createIndex({ uetr: 1, _id: 1 }, { name: 'by_uetr' });
        expect(await twins(env.postgresUrl, database)).toEqual([
          "(_jsonb -> '_id'::text)",
          "(_jsonb -> 'uetr'::text)",
        ]);

        // No pending list: every key is in the index once its insert ends, for the reads that follow.
        expect([...(await twinOptions(env.postgresUrl, database)).values()]).toEqual([
          '{fastupdate=off}',
          '{fastupdate=off}',
        ]);
        // A twin an earlier version of the stack made, with a pending list, is switched at the next start.
        await backendQuery(
          env.postgresUrl,
          `do $$ declare twin record; begin for twin in select schemaname, indexrelname from pg_stat_user_indexes ` +
            `where schemaname = '${database}' and indexrelname like 'rp_gin_%' loop ` +
            `execute format('alter index %I.%I set (fastupdate = on)', twin.schemaname, twin.indexrelname); ` +
            `end loop; end $$`,
        );
        expect([...(await twinOptions(env.postgresUrl, database)).values()]).toEqual([
          '{fastupdate=on}',
          '{fastupdate=on}',
        ]);
        await collection.insertMany(
          Array.from({ length: 100 }, (_, n) => ({ _id: `late-${n}`, uetr: `uetr-${n % 500}` })),
        );
        await backendQuery(env.postgresUrl, ginTwinsSql(backendDatabase));
        expect([...(await twinOptions(env.postgresUrl, database)).values()]).toEqual([
          '{fastupdate=off}',
          '{fastupdate=off}',
        ]);
        expect(await collection.countDocuments({ uetr: 'uetr-7' })).toBe(11);

        expect(await collection.findOne({ _id: 'posting-42' })).toEqual({
          _id: 'posting-42',
          uetr: 'uetr-42',
        });
        expect(await collection.countDocuments({ uetr: 'uetr-3' })).toBe(11);
        // PostgreSQL counts index scans once a backend's statistics are flushed (within a second or so).
        await until(async () => {
          const scans = await twinScans(env.postgresUrl, database);
          return scans.get("(_jsonb -> '_id'::text)")! > 0 && scans.get("(_jsonb -> 'uetr'::text)")! > 0;
        });

        await collection.dropIndex('by_uetr');
        expect(await twins(env.postgresUrl, database)).toEqual(["(_jsonb -> '_id'::text)"]);

        // Large documents are TOASTed, so their table's heap is small: once analyzed, the planner would
        // cost a sequential scan (detoasting every row) below the twin. The database turns scans off.
        const snapshots = client.db(database).collection<{ _id: string; history: string[] }>('snapshots');
        await snapshots.insertMany(
          Array.from({ length: 300 }, (_, n) => ({
            _id: `uetr-${n}`,
            history: Array.from({ length: 200 }, (_, entry) => `${randomUUID()}-${entry}`),
          })),
        );
        await backendQuery(
          env.postgresUrl,
          `analyze "${database}"."${await tableOf(env.postgresUrl, database, 'snapshots')}"`,
        );
        for (let n = 0; n < 20; n += 1) {
          expect((await snapshots.findOne({ _id: `uetr-${n}` }))?.history).toHaveLength(200);
        }
        // Every read was served by the twin (a scan would not count there).
        await until(async () => (await tableScans(env.postgresUrl, database, 'snapshots')).twin >= 20);
      } finally {
        await client.db(database).dropDatabase();
        await client.close();
      }
    },
    minutes(2),
  );

  it(
    'reuses running components when several callers ask at once',
    async () => {
      const [first, second] = await Promise.all([stackUp(options), stackUp(options)]);
      for (const result of [first, second]) {
        expect(result.components.every((component) => component.action === 'reused')).toBe(true);
        for (const component of result.components) expect(seenPids.has(component.pid)).toBe(true);
      }
    },
    minutes(2),
  );

  it(
    'restarts a component killed with SIGKILL, once, when two processes run up together',
    async () => {
      const before = remember(await stackUp(options));
      const killed = await killComponent('ferretdb', options);
      expect(killed).toBe(before.get('ferretdb'));
      const status = await stackStatus(options);
      expect(status.healthy).toBe(false);
      expect(status.components.find((component) => component.name === 'ferretdb')?.state).toBe('dead');

      const [one, two] = await Promise.all([runCli(['up']), runCli(['up'])]);
      expect(one.code, one.output).toBe(0);
      expect(two.code, two.output).toBe(0);
      const restartNotices = `${one.output}\n${two.output}`.match(
        /ferretdb: pid \d+ from an earlier start is gone/g,
      );
      expect(restartNotices).toHaveLength(1);

      const after = remember(await stackUp(options));
      expect(after.get('ferretdb')).not.toBe(killed);
      expect(after.get('kafka')).toBe(before.get('kafka'));
      expect(await mongoRoundTrip(readStackEnv(options)?.mongodbUri ?? '')).toHaveLength(2);
    },
    minutes(5),
  );

  it(
    'stops everything on down and leaves no process behind',
    async () => {
      const stopped = await stackDown(options);
      expect(stopped.map((report) => report.name).sort()).toEqual([...componentNames].sort());
      expect(stopped.every((report) => report.outcome !== 'not-running')).toBe(true);
      for (const pid of seenPids) expect(processAlive(pid, `${stackDir}/`)).toBe(false);
      expect(existsSync(join(stackDir, 'stack.env'))).toBe(false);
      const status = await stackStatus(options);
      expect(status.components.map((component) => component.state)).toEqual([
        'stopped',
        'stopped',
        'stopped',
        'stopped',
      ]);
      // Stopped, each keeps its data.
      for (const component of status.components) expect(component.dataKb, component.name).toBeGreaterThan(0);
      expect(lines.some((line) => line.includes('stack up in'))).toBe(true);
    },
    minutes(2),
  );

  it(
    'deletes the data on reset and keeps the logs',
    async () => {
      const data = join(stackDir, 'data');
      expect(readdirSync(join(data, 'kafka')).length).toBeGreaterThan(0);
      const reset = await runCli(['reset']);
      expect(reset.code, reset.output).toBe(0);
      expect(reset.output).toContain('stack is down and its data deleted');
      expect(existsSync(data)).toBe(false);
      expect(readdirSync(join(stackDir, 'logs')).length).toBeGreaterThan(0);
      const status = await stackStatus(options);
      expect(status.components.map((component) => component.dataKb)).toEqual([
        undefined,
        undefined,
        undefined,
        undefined,
      ]);
    },
    minutes(2),
  );
});
