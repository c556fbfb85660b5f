/**
 * The benchmarks: the machine's raw limits (Kafka, MongoDB, HTTP) and the whole pipeline measured beside
 * them, in one run. Prints a table and writes the same figures, with the machine, to bench/results/.
 * `npm run bench -- --help` lists the options (`usage` below).
 *
 * Uses KAFKA_BROKERS (with SCHEMA_REGISTRY_URL) and MONGODB_URI when set, each on its own, and the local
 * stack for what they leave out; the run names the MongoDB server it measured. The
 * codec figures (what a message costs to encode and decode, and what a debit keeps of the tracker's
 * heap) need neither and come with every run;
 * `--only codec` runs them alone. `--only queue-memory` (not part of the full run: it took 41 min here)
 * measures each service's memory with a queue of a million debits beside a tenth of it. `--only soak`
 * (not part of the full run either) holds one steady rate for many minutes and reads each minute.
 * `--only catch-up` (not part of the full run either) has the tracker alone catch up on a backlog after
 * it was away.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { engineServices } from '@rp/engine';
import { type EngineService, pipelineServices } from '@rp/launcher';
import {
  ferretdbBackendDatabase,
  findPostgresBindir,
  kafkaLogDir,
  readStackEnv,
  resolveStackConfig,
  stackStatus,
  stackUp,
} from '@rp/local-stack';
import { codecBench } from './codec.ts';
import {
  chooseEndpoints,
  type EnvEndpoints,
  envEndpoints,
  localComponentsUsed,
  needsLocalStack,
} from './endpoints.ts';
import { kafkaEncodingBench } from './kafka-encoding.ts';
import { httpLimits } from './limits-http.ts';
import { kafkaLimits } from './limits-kafka.ts';
import { describeMongoServer, mongoLimits } from './limits-mongo.ts';
import { describeMachine } from './machine.ts';
import { kubernetesMemoryLimits, MemoryCgroups } from './memory-limits.ts';
import { pipelineBench } from './pipeline.ts';
import { postgresReader } from './postgres.ts';
import { queueMemoryBench } from './queue-memory.ts';
import { startCpuReferences } from './reference.ts';
import { formatTable, type Report, type Row, writeReport } from './report.ts';
import { bankSimulatorLogBench } from './simulator-memory.ts';
import { soakBench, soakRate } from './soak.ts';
import { trackerCatchUpBench } from './tracker-catch-up.ts';
import { trackerCacheBench } from './tracker-memory.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const usage = `Usage: npm run bench -- [options]

  --quick               every part, short (seconds, not minutes): rougher figures
  --only PART           limits, pipeline, codec, queue-memory, soak or catch-up (default: all but
                        queue-memory, soak and catch-up)
  --duration S          seconds of load in the burst, in each window of the search and in the latency
                        phase (default 60; --quick 10)
  --steps N             windows tried at most in the search for the sustained rate (default 6; --quick 2)
  --rate R              the search's first window, debits/s (default 60% of the burst); with --steps 1
                        the sustained window runs at R only; with --only soak, the soak's rate (default
                        half the sustained rate of the run of record, bench/results/latest.json)
  --concurrency N       debits in flight at the ingress in the burst (default 32)
  --queue N             debits queued behind a closed window, then drained (default 10000; 0: skip)
  --outage S            seconds the bank answers 503 under load in the recovery phase (default 60; 0: skip)
  --postings N          journeys whose rp.events.v1 records are copied as a backlog for the event path
                        alone (default 2000, 36,000 postings; --quick 100; 0: skip)
  --scheduler N         debits whose accepted record and report acknowledgement are copied as a backlog
                        for the scheduler alone, the pipeline's last phase (default 1500; --quick 200; 0: skip)
  --sample N            transactions of a sustained window whose latency and posting order are followed (default 300; the latency phase follows all of its)
  --large-queue N       debits queued by --only queue-memory (default 1000000)
  --soak-minutes M      minutes of steady load in --only soak, each read on its own (default 15)
  --catch-up-debits N   debits in the backlog of --only catch-up: the tracker, started after it was away
                        (--outage seconds), catching up with TRACKER_SNAPSHOT_INTERVAL at 500 ms and at
                        5 s, alternating (default 6000, made at --rate or 150 a second; --quick 1000)
  --profile             every service under node --cpu-prof: its CPU by package, and the busiest
                        service's top functions, in the table (profiles in bench/results/profiles/)
  --heap-sample S,...   with --only soak: these services' heaps sampled in the middle minute (V8's sampling
                        heap profiler over their inspectors): what each allocates a second and what
                        outlives its scavenges, by package and by function, in the table (profiles in
                        bench/results/profiles/, for Chrome's DevTools)
  --k8s-memory          every service of the pipeline phases in a memory cgroup of its Kubernetes
                        manifest's limit (infra/k8s/base), started inside it as in a pod so that V8 sizes
                        its heap from it: what each held at most and any kill, in the table (Linux with
                        the memory controller, as root; such a run is never the run of record)
  --together S,...      the pipeline phases with these services together in one process, the engine's
                        (services/engine; "all" for the six it runs), each on its own port, instead of a
                        process each; the scheduler alone is skipped when the scheduler is among them (its
                        CPU would be the engine's)
  --help                this text

Uses KAFKA_BROKERS (with SCHEMA_REGISTRY_URL) and MONGODB_URI when set, each on its own, and starts the
local stack for what they leave out: MONGODB_URI alone runs the pipeline on that MongoDB beside the local
Kafka. Prints a table and writes the same figures, with the machine and the MongoDB server that answered,
to bench/results/<instant>.json (a full run also to latest.json).`;

/** A mistake on the command line: said in one line with the usage, never as a stack trace. */
function refuse(message: string): never {
  console.error(`bench: ${message}\n\n${usage}`);
  process.exit(2);
}

let parsed: ReturnType<typeof parseOptions>;
function parseOptions() {
  return parseArgs({
    options: {
      help: { type: 'boolean', default: false },
      quick: { type: 'boolean', default: false },
      only: { type: 'string' },
      duration: { type: 'string' },
      concurrency: { type: 'string' },
      steps: { type: 'string' },
      rate: { type: 'string' },
      queue: { type: 'string' },
      'large-queue': { type: 'string' },
      'soak-minutes': { type: 'string' },
      'catch-up-debits': { type: 'string' },
      outage: { type: 'string' },
      sample: { type: 'string' },
      postings: { type: 'string' },
      scheduler: { type: 'string' },
      profile: { type: 'boolean', default: false },
      'k8s-memory': { type: 'boolean', default: false },
      'heap-sample': { type: 'string' },
      together: { type: 'string' },
    },
  });
}
try {
  parsed = parseOptions();
} catch (error) {
  refuse(error instanceof Error ? error.message : String(error));
}
const { values } = parsed;
if (values.help === true) {
  console.log(usage);
  process.exit(0);
}
const quick = values.quick === true;
const number = (value: string | undefined, fallback: number, name: string) => {
  if (value === undefined) return fallback;
  const parsed = Number(value);
  if (!Number.isFinite(parsed) || parsed < 0) refuse(`--${name}: expected a number, got "${value}"`);
  return parsed;
};
const settings = {
  quick,
  only: values.only ?? 'all',
  durationSeconds: number(values.duration, quick ? 10 : 60, 'duration'),
  concurrency: number(values.concurrency, 32, 'concurrency'),
  steps: number(values.steps, quick ? 2 : 6, 'steps'),
  ...(values.rate === undefined ? {} : { rate: number(values.rate, 0, 'rate') }),
  queue: number(values.queue, quick ? 500 : 10_000, 'queue'),
  largeQueue: number(values['large-queue'], quick ? 20_000 : 1_000_000, 'large-queue'),
  soakMinutes: Math.floor(number(values['soak-minutes'], quick ? 2 : 15, 'soak-minutes')),
  catchUpDebits: Math.floor(number(values['catch-up-debits'], quick ? 1_000 : 6_000, 'catch-up-debits')),
  outageSeconds: number(values.outage, quick ? 10 : 60, 'outage'),
  sample: number(values.sample, quick ? 100 : 300, 'sample'),
  postings: Math.floor(number(values.postings, quick ? 100 : 2_000, 'postings')),
  scheduler: Math.floor(number(values.scheduler, quick ? 200 : 1_500, 'scheduler')),
  profile: values.profile === true,
  k8sMemory: values['k8s-memory'] === true,
  heapSample: values['heap-sample']?.split(',').filter((service) => service !== ''),
  together:
    values.together === 'all'
      ? [...engineServices]
      : values.together?.split(',').filter((service) => service !== ''),
  kafkaRecords: quick ? 20_000 : 200_000,
  mongoOperations: quick ? 1_000 : 5_000,
  mongoConcurrency: 16,
  httpRequests: quick ? 5_000 : 30_000,
  httpWarmUp: quick ? 5_000 : 20_000,
  httpConnections: 32,
};
if (!['all', 'limits', 'pipeline', 'codec', 'queue-memory', 'soak', 'catch-up'].includes(settings.only)) {
  refuse(`--only: limits, pipeline, codec, queue-memory, soak or catch-up, not "${settings.only}"`);
}
if (settings.only === 'catch-up' && settings.catchUpDebits < 1) refuse('--catch-up-debits: at least 1');
if (settings.only === 'soak' && settings.soakMinutes < 1) refuse('--soak-minutes: at least 1');
if (settings.k8sMemory && !['all', 'pipeline', 'soak'].includes(settings.only)) {
  refuse(
    `--k8s-memory: the pipeline phases' and the soak's services run under the limits; --only ${settings.only} runs none`,
  );
}
if (settings.together !== undefined) {
  if (settings.only !== 'all' && settings.only !== 'pipeline') {
    refuse(`--together: the pipeline phases run services together, and --only ${settings.only} runs none`);
  }
  if (settings.profile || settings.k8sMemory) {
    refuse(
      '--together: each service is profiled or limited in a process of its own; not with --profile or --k8s-memory',
    );
  }
  const unknown = settings.together.filter(
    (service) => !(engineServices as readonly string[]).includes(service),
  );
  if (settings.together.length < 2 || unknown.length > 0) {
    refuse(`--together: two or more of ${engineServices.join(', ')}, or all, not "${values.together}"`);
  }
}
if (settings.heapSample !== undefined) {
  if (settings.only !== 'soak') refuse('--heap-sample: the soak samples heaps; add --only soak');
  const unknown = settings.heapSample.filter(
    (service) => !(pipelineServices as readonly string[]).includes(service),
  );
  if (settings.heapSample.length === 0 || unknown.length > 0) {
    refuse(`--heap-sample: services of ${pipelineServices.join(', ')}, not "${values['heap-sample']}"`);
  }
}
const needsStack = settings.only !== 'codec';

/** The soak's rate: the one given, or half the run of record's sustained rate (refused without either). */
const soak = (() => {
  if (settings.only !== 'soak') return undefined;
  if (settings.rate !== undefined && settings.rate > 0)
    return { rate: settings.rate, source: 'the rate given' };
  const latest = fileURLToPath(new URL('../results/latest.json', import.meta.url));
  let record: Report;
  try {
    record = JSON.parse(readFileSync(latest, 'utf8')) as Report;
  } catch (error) {
    refuse(
      `--only soak: no --rate and no run of record to take half its sustained rate from (${(error as Error).message})`,
    );
  }
  const rate = soakRate(record);
  if (rate === undefined) refuse('--only soak: no --rate, and the run of record has no sustained rate');
  return rate;
})();

const log = (line: string) => console.log(`[${new Date().toISOString().slice(11, 19)}] ${line}`);
const startedAt = new Date().toISOString();
const run = `bench-${Date.now().toString(36)}`;

// Made before anything runs, so that a machine without the memory controller (or a user who is not root)
// is told at once rather than after the limits.
let memoryLimits: MemoryCgroups | undefined;
try {
  memoryLimits = settings.k8sMemory
    ? new MemoryCgroups(
        `${run}-${settings.only === 'soak' ? 'sk' : 'pl'}`,
        kubernetesMemoryLimits(root, pipelineServices),
      )
    : undefined;
} catch (error) {
  refuse((error as Error).message);
}
// Whatever ends the run, its cgroups go with it (an empty cgroup is removed; one still in use is left).
process.on('exit', () => memoryLimits?.remove());

let env: EnvEndpoints = {};
try {
  env = envEndpoints(process.env);
} catch (error) {
  refuse((error as Error).message);
}
const local = needsStack && needsLocalStack(env) ? await stackUp() : undefined;
const endpoints = chooseEndpoints(env, local);
/** The local stack's endpoints (when it runs), and which of its components serve this run. */
const stackEnv = needsStack ? readStackEnv() : undefined;
const usedLocally = stackEnv ? localComponentsUsed(stackEnv, endpoints) : new Set<string>();

/** The local stack's processes that serve this run's endpoints: their CPU is accounted in the pipeline run. */
async function localInfrastructure(): Promise<Map<string, number>> {
  if (usedLocally.size === 0) return new Map();
  const status = await stackStatus();
  return new Map(
    status.components
      .filter(
        (component) =>
          usedLocally.has(component.name) && component.pid !== undefined && component.state !== 'dead',
      )
      .map((component) => [component.name, component.pid as number]),
  );
}

/** PostgreSQL's counters behind the local stack's FerretDB, when this run's MongoDB is that FerretDB. */
function localPostgres() {
  if (!stackEnv || !usedLocally.has('postgres')) return undefined;
  // Looked for only then: finding it may ask dpkg and pg_config.
  const bindir = findPostgresBindir();
  return bindir === undefined
    ? undefined
    : postgresReader(stackEnv.postgresUrl, ferretdbBackendDatabase, bindir);
}

/** A fresh directory for this run's CPU profiles, beside its results. */
function profileDir(): string {
  const dir = fileURLToPath(
    new URL(`../results/profiles/${startedAt.replace(/[:.]/g, '-')}`, import.meta.url),
  );
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** What served the run: named in the report, so that figures from different servers are never mixed up. */
const infrastructure = needsStack
  ? {
      kafka: env.kafkaBrokers ? 'KAFKA_BROKERS' : 'the local stack',
      mongodb: `${await describeMongoServer(endpoints.mongodbUri)}, ${env.mongodbUri ? 'MONGODB_URI' : 'the local stack'}`,
    }
  : undefined;

const rows: Row[] = [];
if (settings.only === 'all' || settings.only === 'codec') {
  log('codec: encoding and decoding the messages of a journey');
  rows.push(...codecBench({ root, calls: quick ? 2_000 : 20_000, rounds: 5 }));
  log("codec: kafkajs's encoding of produced records, as shipped and as changed");
  rows.push(...(await kafkaEncodingBench({ root, calls: quick ? 500 : 5_000, rounds: 5 })));
  log("codec: the heap a debit keeps in the tracker's caches");
  rows.push(...trackerCacheBench({ root, count: quick ? 1_000 : 10_000 }));
  log("codec: the heap the bank simulator's logs keep");
  // 5,556 debits' postings fill the default POSTING_LOG_SIZE of 100,000.
  rows.push(...bankSimulatorLogBench({ root, debits: quick ? 556 : 5_556 }));
}
if (settings.only === 'all' || settings.only === 'limits') {
  log(`kafka: ${settings.kafkaRecords} records`);
  rows.push(
    ...(await kafkaLimits({
      brokers: endpoints.kafkaBrokers,
      run,
      records: settings.kafkaRecords,
      batch: 1_000,
      recordBytes: 1_024,
    })),
  );
  log(`mongodb: ${settings.mongoOperations} operations of each kind`);
  rows.push(
    ...(await mongoLimits({
      uri: endpoints.mongodbUri,
      database: run.replace(/-/g, '_'),
      operations: settings.mongoOperations,
      concurrency: settings.mongoConcurrency,
      serverProcesses: new Map(
        [...(await localInfrastructure())].filter(([name]) => name === 'ferretdb' || name === 'postgres'),
      ),
    })),
  );
  log(
    `http: ${settings.httpRequests} postings to the bank simulator, then to the services' bare HTTP stack, each after ${settings.httpWarmUp} to warm it up`,
  );
  rows.push(
    ...(await httpLimits({
      root,
      endpoints,
      run,
      requests: settings.httpRequests,
      connections: settings.httpConnections,
      warmUp: settings.httpWarmUp,
    })),
  );
}
if (settings.only === 'all' || settings.only === 'pipeline') {
  const postgres = localPostgres();
  const references = await startCpuReferences(root);
  rows.push(
    ...(await pipelineBench(
      {
        root,
        endpoints,
        run: `${run}-pl`,
        durationSeconds: settings.durationSeconds,
        concurrency: settings.concurrency,
        steps: settings.steps,
        ...(settings.rate === undefined || settings.rate <= 0 ? {} : { rate: settings.rate }),
        queue: settings.queue,
        outageSeconds: settings.outageSeconds,
        sample: settings.sample,
        postings: settings.postings,
        // The scheduler alone reads its own process's CPU: not when it runs in the engine.
        scheduler: settings.together?.includes('scheduler') ? 0 : settings.scheduler,
        ...(settings.together === undefined ? {} : { together: settings.together as EngineService[] }),
        infrastructure: await localInfrastructure(),
        ...(usedLocally.has('kafka') ? { kafkaLogDir: kafkaLogDir(resolveStackConfig()) } : {}),
        ...(postgres === undefined ? {} : { postgres }),
        cpuReference: () => references.read(),
        ...(settings.profile ? { profileDir: profileDir() } : {}),
        ...(memoryLimits === undefined ? {} : { memoryLimits }),
      },
      log,
    ).finally(() => references.close())),
  );
}

if (settings.only === 'queue-memory') {
  log(`queue memory: ${settings.largeQueue} debits against a tenth of them`);
  rows.push(
    ...(await queueMemoryBench(
      {
        root,
        endpoints,
        run: `${run}-qm`,
        small: Math.max(1, Math.floor(settings.largeQueue / 10)),
        large: settings.largeQueue,
        concurrency: 32,
        releaseMinutes: 30,
      },
      log,
    )),
  );
}

if (settings.only === 'catch-up') {
  const rate = settings.rate !== undefined && settings.rate > 0 ? settings.rate : 150;
  log(
    `tracker catch-up: ${settings.catchUpDebits} debits at ${rate}/s, the tracker away ${settings.outageSeconds} s`,
  );
  rows.push(
    ...(await trackerCatchUpBench(
      {
        root,
        endpoints,
        run: `${run}-cu`,
        debits: settings.catchUpDebits,
        rate,
        journeySeconds: 1,
        outageSeconds: settings.outageSeconds,
        rounds: quick ? 1 : 2,
      },
      log,
    )),
  );
}

if (soak !== undefined) {
  const postgres = localPostgres();
  rows.push(
    ...(await soakBench(
      {
        root,
        endpoints,
        run: `${run}-sk`,
        rate: soak.rate,
        rateSource: soak.source,
        minutes: settings.soakMinutes,
        sample: settings.sample,
        infrastructure: await localInfrastructure(),
        ...(usedLocally.has('kafka') ? { kafkaLogDir: kafkaLogDir(resolveStackConfig()) } : {}),
        ...(postgres === undefined ? {} : { postgres }),
        ...(memoryLimits === undefined ? {} : { memoryLimits }),
        ...(settings.heapSample === undefined
          ? {}
          : { heapSample: { services: settings.heapSample, dir: profileDir() } }),
      },
      log,
    )),
  );
}

const machine = describeMachine();
console.log(
  `\n${machine.cores} cores, ${machine.memoryGiB} GiB, ${machine.cpuModel}; Node ${machine.node}; commit ${machine.versions.commit}${
    infrastructure ? `\nKafka from ${infrastructure.kafka}; ${infrastructure.mongodb}` : ''
  }\n`,
);
console.log(formatTable(rows));
const path = writeReport(
  fileURLToPath(new URL('../results', import.meta.url)),
  {
    startedAt,
    finishedAt: new Date().toISOString(),
    machine,
    ...(infrastructure ? { infrastructure } : {}),
    settings,
    rows,
  },
  // The run of record: every part at full length. A quick run or a single part is written beside it only.
  settings.only === 'all' && !settings.quick && !settings.k8sMemory,
);
console.log(`\nwritten to ${path.slice(root.length)}`);
