import { BankSimulatorClient, type SimulatorStats } from '@rp/bank-simulator';
import { eventPublisherConfigSpec } from '@rp/event-publisher';
import { registerZstd } from '@rp/kafka';
import {
  anyTimeWindows,
  clearOfDayEnd,
  defaultBank,
  type EngineService,
  launchPipeline,
  type Pipeline,
  type PipelineEndpoints,
  type PipelineService,
  pipelineServices,
  pipelineWindowKeeper,
  sampleOnUsDebit,
  schedulerWindows,
  stopAndDrop,
} from '@rp/launcher';
import { stateHeader } from '@rp/scheduler';
import { Kafka, logLevel } from 'kafkajs';
import { MongoClient } from 'mongodb';
import { Pool } from 'undici';
import {
  machineCpu,
  processSwitches,
  processTable,
  processTreeSeconds,
  processTreeSwitches,
  type Switches,
  switchesBetween,
} from './cpu.ts';
import { inspectOption } from './inspector.ts';
import { type LagWindow, lagByGroup, lagRow, mergeLag, watchLag } from './lag.ts';
import { type MemoryCgroups, memoryLimitRows } from './memory-limits.ts';
import {
  type FirstAttempt,
  firstPostingSplitMissing,
  firstPostingSplitRow,
  firstRecordTimes,
  type PauseReading,
  pauseReading,
  pausesRow,
  slowestHundredth,
  splitFirstPostings,
} from './path-times.ts';
import { type PostgresCounters, postgresRows } from './postgres.ts';
import { CopyWriter, copyJourney, copyParts, type RawRecord, readJourney } from './postings.ts';
import { engineProcessName } from './process-names.ts';
import { type ProfileSummary, summarizeProfiles } from './profile.ts';
import type { CpuReference } from './reference.ts';
import type { Row } from './report.ts';
import { servicesEnvironment, servicesEnvironmentRow } from './service-env.ts';
import { bounded, metricValue, parsePrometheus, round, summarize } from './stats.ts';
import { kafkaLogBytes, mongoSizes, mongoTotalBytes, type StorageReading, storageRow } from './storage.ts';

export interface PipelineBenchOptions {
  readonly root: string;
  readonly endpoints: PipelineEndpoints;
  readonly run: string;
  /** Seconds of offered load in the burst, in each window of the sustained search and in the latency phase. */
  readonly durationSeconds: number;
  /** Debits in flight at the ingress in the burst (a closed loop: as fast as it answers). */
  readonly concurrency: number;
  /** Debits to queue behind a closed window for the memory phase (0: skip). */
  readonly queue: number;
  /** Seconds the bank answers 503 under load in the recovery phase (0: skip). */
  readonly outageSeconds: number;
  /** Transactions whose postings are fetched to check order and measure latency. */
  readonly sample: number;
  /** Windows tried at most in the search for the sustained rate. Default 4. */
  readonly steps?: number;
  /**
   * The rate of the search's first window, debits/s; default 60% of the burst. With `steps` 1, the
   * sustained window runs at this rate only: per-debit figures of two runs compare at one load (several
   * writes are batched, so a debit costs fewer commands at a higher rate).
   */
  readonly rate?: number;
  /**
   * Where each service writes its V8 CPU profile of the whole run (`node --cpu-prof`), summarised at the
   * end; none when undefined.
   */
  readonly profileDir?: string;
  /** Processes of the infrastructure on this machine (the local stack's), by name, for CPU accounting. */
  readonly infrastructure?: ReadonlyMap<string, number>;
  /** Services run together in one process, the engine's (`LaunchOptions.together`); default none. */
  readonly together?: readonly EngineService[];
  /** The broker's log directory, when it is on this machine (the local stack's): what a debit keeps in Kafka. */
  readonly kafkaLogDir?: string;
  /**
   * The machine's speed at the moment in microseconds of a fixed piece of work, on one thread (by the
   * clock and in its own CPU time) and on every core at once (`startCpuReferences`), taken just before and
   * just after each window of the sustained search and the event path; none when undefined.
   */
  readonly cpuReference?: () => Promise<CpuReference>;
  /**
   * Copies of a journey's rp.events.v1 records produced as a backlog for the event path alone, last (0 or
   * undefined: skip).
   */
  readonly postings?: number;
  /**
   * Copies of a journey's accepted debit and report acknowledgement produced as a backlog for the
   * scheduler alone, the very last phase (0 or undefined: skip).
   */
  readonly scheduler?: number;
  /** PostgreSQL's own counters behind the local stack's FerretDB (`postgres.ts`); none when undefined. */
  readonly postgres?: () => Promise<PostgresCounters | undefined>;
  /**
   * Each service in a memory cgroup of its Kubernetes limit (`--k8s-memory`), started inside it as in a
   * pod; what each held at most, and any kill, in the table. None when undefined.
   */
  readonly memoryLimits?: MemoryCgroups;
}

const completedState = 'DEBIT_COMPLETED';

/** DEBIT_COMPLETED postings the bank has stored since its last reset, each once. */
const completedAtBank = (stats: SimulatorStats) =>
  stats.postingsByName[`TRANSACTION_STATE_${completedState}`] ?? 0;
/**
 * Postings of one on-us ZA_EFT debit's journey at its bank, which subscribes to both classes: nine
 * TRANSACTION_STATE and nine ESM_STATE. A journey counts as done only when all of them were delivered.
 */
const postingsPerDebit = 18;

/**
 * The last reading of each service that `holdService` froze: a stopped process answers nothing, and
 * its counters cannot move until it goes on.
 */
const heldReadings = new WeakMap<Pipeline, Map<PipelineService, Map<string, number>>>();

/** A service's own metrics (Prometheus text), by name; a held service's, as it was when it was held. */
export async function serviceMetrics(
  pipeline: Pipeline,
  service: PipelineService,
): Promise<Map<string, number>> {
  const held = heldReadings.get(pipeline)?.get(service);
  if (held) return held;
  const response = await fetch(`${pipeline.url(service)}/metrics`);
  return parsePrometheus(await response.text());
}

/**
 * Freezes a service (SIGSTOP) after one last reading of its metrics, which stands for it in every
 * reading until the returned function lets it go on (SIGCONT).
 */
export async function holdService(pipeline: Pipeline, service: PipelineService): Promise<() => void> {
  const reading = await serviceMetrics(pipeline, service);
  let held = heldReadings.get(pipeline);
  if (!held) {
    held = new Map();
    heldReadings.set(pipeline, held);
  }
  held.set(service, reading);
  pipeline.signal(service, 'SIGSTOP');
  return () => {
    pipeline.signal(service, 'SIGCONT');
    held.delete(service);
  };
}

/**
 * The processes of the running services, each named and read through one of its services: a service's
 * own process by the service's name, the engine's (the services run together) as `engine (tracker,
 * validator, ...)`, read through the first of them (each of them reports the whole process).
 */
export function serviceProcesses(
  pipeline: Pipeline,
): { readonly name: string; readonly service: PipelineService; readonly pid: number | undefined }[] {
  const byPid = new Map<number, PipelineService[]>();
  const processes: { name: string; service: PipelineService; pid: number | undefined }[] = [];
  for (const service of pipelineServices) {
    if (!pipeline.isRunning(service)) continue;
    const pid = pipeline.pid(service);
    const sharing = pid === undefined ? undefined : byPid.get(pid);
    if (sharing !== undefined) {
      sharing.push(service);
      continue;
    }
    if (pid !== undefined) byPid.set(pid, [service]);
    processes.push({ name: service, service, pid });
  }
  return processes.map((process) => {
    const services = process.pid === undefined ? [] : (byPid.get(process.pid) ?? []);
    return services.length > 1 ? { ...process, name: engineProcessName(services) } : process;
  });
}

/** A figure of every running service, read from its own `/metrics`: its own counts, not its process's. */
export async function perRunningService<T>(
  pipeline: Pipeline,
  read: (metrics: Map<string, number>) => T,
): Promise<Record<string, T>> {
  const entries = await Promise.all(
    pipelineServices
      .filter((service) => pipeline.isRunning(service))
      .map(async (service) => [service, read(await serviceMetrics(pipeline, service))] as const),
  );
  return Object.fromEntries(entries);
}

/**
 * A figure of every running service's process (its memory, collections, event loop), read from the
 * `/metrics` of one of its services, by the process's name (see `serviceProcesses`).
 */
export async function perRunningProcess<T>(
  pipeline: Pipeline,
  read: (metrics: Map<string, number>) => T,
): Promise<Record<string, T>> {
  const entries = await Promise.all(
    serviceProcesses(pipeline).map(
      async ({ name, service }) => [name, read(await serviceMetrics(pipeline, service))] as const,
    ),
  );
  return Object.fromEntries(entries);
}

/** A service's resident set (MB), from one reading of its own process metrics. */
function residentMb(metrics: ReadonlyMap<string, number>): number {
  return round(metricValue(metrics, 'process_resident_memory_bytes') / 2 ** 20, 0);
}

/** Resident set (MB) of every running service, from each one's own process metrics. */
export function servicesMemory(pipeline: Pipeline): Promise<Record<string, number>> {
  return perRunningProcess(pipeline, residentMb);
}

/**
 * Every service's resident set (MB) and the seconds its main thread has stood still in V8's major
 * collections (mark-compact) so far, from one reading of its own metrics (`nodejs_gc_duration_seconds`,
 * Node's performance observer): a stop holds every message the service has.
 */
export function servicesMemoryAndCollections(
  pipeline: Pipeline,
): Promise<Record<string, { readonly residentMb: number; readonly majorGcSeconds: number }>> {
  return perRunningProcess(pipeline, (metrics) => ({
    residentMb: residentMb(metrics),
    majorGcSeconds: metricValue(metrics, 'nodejs_gc_duration_seconds_sum', { kind: 'major' }),
  }));
}

/** MongoDB write and read commands a service has sent so far, from its own command metrics. */
function mongoCommandsOf(metrics: Map<string, number>): MongoCommands {
  const total = (names: readonly string[]) =>
    names.reduce((sum, command) => sum + metricValue(metrics, 'rp_mongodb_commands_total', { command }), 0);
  return { writes: total(mongoWriteCommands), reads: total(mongoReadCommands) };
}

/**
 * Statements of the write commands a service has sent so far (an insert's documents, an update's
 * statements, ...), by `collection command`, from its own `rp_mongodb_write_statements_total`.
 */
export function mongoStatementsOf(metrics: ReadonlyMap<string, number>): Record<string, number> {
  const counts: Record<string, number> = {};
  const prefix = 'rp_mongodb_write_statements_total{';
  for (const [series, value] of metrics) {
    if (!series.startsWith(prefix)) continue;
    const collection = /collection="([^"]*)"/.exec(series)?.[1];
    const command = /command="([^"]*)"/.exec(series)?.[1];
    if (collection === undefined || command === undefined) continue;
    const key = `${collection} ${command}`;
    counts[key] = (counts[key] ?? 0) + value;
  }
  return counts;
}

/** Every service's statements between two readings, summed by `collection command`. */
export function mongoStatementsBetween(
  before: Readonly<Record<string, Readonly<Record<string, number>>>>,
  after: Readonly<Record<string, Readonly<Record<string, number>>>>,
): Record<string, number> {
  const sum: Record<string, number> = {};
  for (const [service, counts] of Object.entries(after)) {
    for (const [key, count] of Object.entries(counts)) {
      sum[key] = (sum[key] ?? 0) + count - (before[service]?.[key] ?? 0);
    }
  }
  return sum;
}

/**
 * A window's MongoDB write statements per debit, by collection, most first, each split by command:
 * what the server does per document, where the commands say what it does per round trip. `name`: the
 * row's, for a phase other than the sustained window.
 */
export function mongoStatementsRow(
  statements: Readonly<Record<string, number>>,
  debits: number,
  name = 'mongodb write statements per debit',
): Row {
  const byCollection = new Map<string, Map<string, number>>();
  for (const [key, count] of Object.entries(statements)) {
    if (count <= 0) continue;
    const [collection = '', command = ''] = key.split(' ');
    const commands = byCollection.get(collection) ?? new Map<string, number>();
    commands.set(command, count);
    byCollection.set(collection, commands);
  }
  const total = (commands: ReadonlyMap<string, number>) => [...commands.values()].reduce((a, b) => a + b, 0);
  const perDebit = (count: number) => round(count / debits, 2);
  const detail = [...byCollection]
    .sort(([, a], [, b]) => total(b) - total(a))
    .map(
      ([collection, commands]) =>
        `${collection} ${perDebit(total(commands))} (${[...commands]
          .sort(([, a], [, b]) => b - a)
          .map(([command, count]) => `${command} ${perDebit(count)}`)
          .join(', ')})`,
    );
  return {
    group: 'pipeline',
    name,
    value: round([...byCollection.values()].reduce((sum, commands) => sum + total(commands), 0) / debits, 1),
    unit: 'statements',
    detail: `documents inserted and update, delete and findAndModify statements, the services' own counts, by collection: ${detail.join('; ')}`,
  };
}

interface ServiceCounts {
  readonly mongo: MongoCommands;
  readonly statements: Record<string, number>;
  readonly kafka: KafkaRequests;
  /** The reading they came from, for a phase's own figures. */
  readonly metrics: ReadonlyMap<string, number>;
}

/** Each running service's MongoDB commands and Kafka requests so far, from one reading of its metrics. */
function servicesCounts(pipeline: Pipeline): Promise<Record<string, ServiceCounts>> {
  return perRunningService(pipeline, (metrics) => ({
    mongo: mongoCommandsOf(metrics),
    statements: mongoStatementsOf(metrics),
    kafka: kafkaRequestsOf(metrics),
    metrics,
  }));
}

/** Each service's MongoDB write and read commands between two readings, per debit, busiest first. */
function servicesMongoBetween(
  before: Readonly<Record<string, ServiceCounts>>,
  after: Readonly<Record<string, ServiceCounts>>,
  debits: number,
): string {
  return Object.entries(after)
    .map(([service, counts]) => ({
      service,
      writes: counts.mongo.writes - (before[service]?.mongo.writes ?? 0),
      reads: counts.mongo.reads - (before[service]?.mongo.reads ?? 0),
    }))
    .filter(({ writes, reads }) => writes + reads > 0)
    .sort((a, b) => b.writes + b.reads - (a.writes + a.reads))
    .map(
      ({ service, writes, reads }) =>
        `${service} ${round(writes / debits, 2)} writes, ${round(reads / debits, 2)} reads`,
    )
    .join('; ');
}

/** Each service's pauses from the same reading as its counts. */
function eachPauses(counts: Readonly<Record<string, ServiceCounts>>): Record<string, PauseReading> {
  return Object.fromEntries(
    Object.entries(counts).map(([service, count]) => [service, pauseReading(count.metrics)]),
  );
}

/** Picks one kind of count out of `servicesCounts`. */
function eachService<K extends keyof ServiceCounts>(
  counts: Readonly<Record<string, ServiceCounts>>,
  kind: K,
): Record<string, ServiceCounts[K]> {
  return Object.fromEntries(Object.entries(counts).map(([service, count]) => [service, count[kind]]));
}

interface MongoCommands {
  readonly writes: number;
  readonly reads: number;
}

/** The Kafka APIs a debit's requests are counted by; the rest (metadata, group joins, ...) as `other`. */
const kafkaRequestApis = ['Produce', 'Fetch', 'OffsetCommit', 'Heartbeat'] as const;

type KafkaRequests = Record<(typeof kafkaRequestApis)[number] | 'other', number>;

/** Kafka requests a service has sent so far, by API, from its own request metrics. */
function kafkaRequestsOf(metrics: Map<string, number>): KafkaRequests {
  const counted = (api?: string) =>
    metricValue(metrics, 'rp_kafka_requests_total', api === undefined ? {} : { api });
  const byApi = Object.fromEntries(kafkaRequestApis.map((api) => [api, counted(api)]));
  const named = Object.values(byApi).reduce((sum, count) => sum + count, 0);
  return { ...byApi, other: counted() - named } as KafkaRequests;
}

/** What each service sent between two readings of its Kafka requests. */
export function kafkaRequestsBetween(
  before: Record<string, KafkaRequests>,
  after: Record<string, KafkaRequests>,
): Record<string, KafkaRequests> {
  return Object.fromEntries(
    Object.entries(after).map(([service, requests]) => [
      service,
      Object.fromEntries(
        Object.entries(requests).map(([api, count]) => [
          api,
          count - (before[service]?.[api as keyof KafkaRequests] ?? 0),
        ]),
      ) as KafkaRequests,
    ]),
  );
}

/** The commands that write, as the server counts them (`serverStatus.metrics.commands`). */
const mongoWriteCommands = ['insert', 'update', 'delete', 'findAndModify'] as const;

/** The commands that read. */
const mongoReadCommands = ['find', 'aggregate', 'getMore', 'count'] as const;

/** How long an idle PostgreSQL backend may hold its counters, and a second more. */
const postgresReportMs = 11_000;

/** Everything the pipeline bench measures from outside: ingress, bank simulator, metrics, the servers. */
export class Probe {
  readonly pipeline: Pipeline;
  readonly #kafka: Kafka;
  readonly #mongo: MongoClient;
  readonly bank: BankSimulatorClient;
  readonly #ingress: Pool;
  readonly brokers: readonly string[];
  readonly #postgres: (() => Promise<PostgresCounters | undefined>) | undefined;
  readonly #kafkaLogDir: string | undefined;

  constructor(
    pipeline: Pipeline,
    endpoints: PipelineEndpoints,
    postgres?: () => Promise<PostgresCounters | undefined>,
    kafkaLogDir?: string,
  ) {
    this.pipeline = pipeline;
    this.#postgres = postgres;
    this.#kafkaLogDir = kafkaLogDir;
    this.brokers = endpoints.kafkaBrokers;
    // The run's topics hold zstd batches when the services are set to write them (KAFKA_COMPRESSION).
    registerZstd();
    this.#kafka = new Kafka({
      clientId: 'bench-probe',
      brokers: [...endpoints.kafkaBrokers],
      logLevel: logLevel.NOTHING,
    });
    this.#mongo = new MongoClient(endpoints.mongodbUri, { maxPoolSize: 2 });
    this.bank = new BankSimulatorClient(pipeline.url('bank-simulator'));
    this.#ingress = new Pool(pipeline.url('ingress'), { connections: 256, keepAliveTimeout: 30_000 });
  }

  /**
   * The earliest timestamp of each of `uetrs` on the run's topic `topic` (`rp.events.v1`, ...) among
   * the records written since `since` (epoch ms).
   */
  firstRecords(topic: string, since: number, uetrs: ReadonlySet<string>): Promise<Map<string, number>> {
    return firstRecordTimes(this.#kafka, `${this.pipeline.run}.${topic}`, since, uetrs);
  }

  /**
   * The event publisher's first attempt of a posting at a bank, from its delivery log: when it began
   * (its concurrency slot at the bank taken, ms resolution) and how long the POST took.
   */
  async firstAttempt(eventId: string, memberId: string): Promise<FirstAttempt | undefined> {
    const response = await fetch(
      `${this.pipeline.url('event-publisher')}/admin/events/${encodeURIComponent(eventId)}/deliveries`,
      { headers: { authorization: await this.pipeline.operatorAuthorization('operator.read') } },
    ).catch(() => undefined);
    if (!response?.ok) return undefined;
    const body = (await response.json()) as {
      deliveries: { memberId: string; attempts: { at: string; latencyMs: number }[] }[];
    };
    const attempt = body.deliveries.find((delivery) => delivery.memberId === memberId)?.attempts[0];
    return attempt && { at: Date.parse(attempt.at), latencyMs: attempt.latencyMs };
  }

  async close() {
    await this.#ingress.close();
    await this.#mongo.close();
  }

  /** Debits sent again after a 503 (the ingress over its capacity), as a bank resends them. */
  resends = 0;

  /**
   * Sends one debit as a bank does: a 503 is waited out (its Retry-After) and the same message sent
   * again. Resolves with the time of the 202, the waits included; throws on any other answer.
   */
  async send(root: string): Promise<{ uetr: string; sentAt: number; acceptedAt: number }> {
    const sample = sampleOnUsDebit(root);
    const sentAt = Date.now();
    const t0 = performance.now();
    for (;;) {
      const response = await this.#ingress.request({
        method: 'POST',
        path: '/api/v1/outbound/direct-debit',
        headers: {
          'content-type': 'application/json',
          authorization: await this.pipeline.bankAuthorization(defaultBank.memberId),
        },
        body: sample.body,
      });
      const text = await response.body.text();
      if (response.statusCode === 202) {
        return { uetr: sample.uetr, sentAt, acceptedAt: sentAt + (performance.now() - t0) };
      }
      const retryAfter = Number(response.headers['retry-after']);
      if (response.statusCode !== 503 || !Number.isFinite(retryAfter)) {
        throw new Error(`ingress answered ${response.statusCode}: ${text}`);
      }
      this.resends += 1;
      await new Promise((resolve) => setTimeout(resolve, retryAfter * 1000));
    }
  }

  metrics(service: PipelineService): Promise<Map<string, number>> {
    return serviceMetrics(this.pipeline, service);
  }

  /**
   * Journeys whose DEBIT_COMPLETED posting the bank has stored since its last reset (once each). Counted
   * at the bank rather than by the tracker's applied changes: a change applied in a batch that then failed
   * is a repeat when the batch runs again, and would never be counted.
   */
  async completed(): Promise<number> {
    return completedAtBank(await this.bank.stats());
  }

  /** Resident set of every service (MB), from each one's own process metrics. */
  memory(): Promise<Record<string, number>> {
    return servicesMemory(this.pipeline);
  }

  /**
   * CPU seconds so far: each service (its own process metrics), each infrastructure process tree, this
   * bench process, and the machine as a whole; and the context switches of each of them (every thread's,
   * from /proc) and of the machine.
   */
  async cpu(infrastructure: ReadonlyMap<string, number>) {
    const processes = serviceProcesses(this.pipeline);
    const services = await Promise.all(
      processes.map(
        async ({ name, service }) =>
          [name, metricValue(await this.metrics(service), 'process_cpu_seconds_total')] as const,
      ),
    );
    const cpuUsage = process.cpuUsage();
    // The services and this process alone: the services are this process's children.
    const own = new Map<string, number>([['bench (load generator)', process.pid]]);
    for (const { name, pid } of processes) if (pid !== undefined) own.set(name, pid);
    const table = processTable();
    return {
      processes: new Map<string, number>([
        ...services,
        ...processTreeSeconds(infrastructure, table),
        ['bench (load generator)', (cpuUsage.user + cpuUsage.system) / 1e6],
      ]),
      switches: new Map([...processTreeSwitches(infrastructure, table), ...processSwitches(own)]),
      machine: machineCpu(),
    };
  }

  /**
   * PostgreSQL's counters behind the local stack's FerretDB, when the run uses it, read once its backends
   * have reported the work so far: an idle backend holds its counts for up to 10 s (PostgreSQL 15's
   * `PGSTAT_IDLE_INTERVAL`), so the reading waits that long, with the pipeline quiet, before it is taken.
   * Read before a phase's other readings and after them, so that the phase's own figures are not moved.
   */
  async postgres(): Promise<PostgresCounters | undefined> {
    if (this.#postgres === undefined) return undefined;
    await new Promise((resolve) => setTimeout(resolve, postgresReportMs));
    return this.#postgres();
  }

  /** Commands the MongoDB-compatible server has run, by kind (server-wide counters). */
  async mongoCommands(): Promise<{ writes: number; reads: number }> {
    const status = await this.#mongo.db('admin').command({ serverStatus: 1 });
    const commands = (status.metrics?.commands ?? {}) as Record<string, { total?: number }>;
    const total = (names: readonly string[]) =>
      names.reduce((sum, name) => sum + Number(commands[name]?.total ?? 0), 0);
    return {
      writes: total(mongoWriteCommands),
      reads: total(mongoReadCommands),
    };
  }

  /** The storage the pipeline holds: its database's collections, and its topics' log when on this machine. */
  async storage(): Promise<StorageReading> {
    const db = this.#mongo.db(this.pipeline.database);
    const reading = { mongoTotalBytes: await mongoTotalBytes(db), mongo: await mongoSizes(db) };
    return this.#kafkaLogDir === undefined
      ? reading
      : { ...reading, kafkaLogBytes: kafkaLogBytes(this.#kafkaLogDir, `${this.pipeline.run}.`) };
  }

  /** Records written to the pipeline's topics so far (sum of end offsets). */
  async kafkaRecords(): Promise<number> {
    const admin = this.#kafka.admin();
    await admin.connect();
    try {
      const topics = (await admin.listTopics()).filter((topic) => topic.startsWith(`${this.pipeline.run}.`));
      let total = 0;
      for (const topic of topics) {
        for (const partition of await admin.fetchTopicOffsets(topic)) total += Number(partition.high);
      }
      return total;
    } finally {
      await admin.disconnect();
    }
  }

  async httpAtBank(): Promise<number> {
    const stats = await this.bank.stats();
    return stats.routes.events.received + stats.routes.outbound.received + stats.routes.inbound.received;
  }

  async postingsAccepted(): Promise<number> {
    return (await this.bank.stats()).routes.events.accepted;
  }

  /**
   * Waits until `count` more debits than `completedBefore` completed and the bank accepted every posting
   * of `count` journeys since its last reset.
   */
  async journeysDone(what: string, completedBefore: number, count: number, timeoutMs: number) {
    await this.until(
      what,
      async () => {
        const stats = await this.bank.stats();
        return (
          completedAtBank(stats) - completedBefore >= count &&
          stats.routes.events.accepted >= count * postingsPerDebit
        );
      },
      timeoutMs,
      500,
    );
  }

  /** Polls `condition` until it holds; rejects after `timeoutMs`. The bench's only waiting. */
  async until(what: string, condition: () => Promise<boolean>, timeoutMs: number, everyMs = 250) {
    const deadline = Date.now() + timeoutMs;
    while (!(await condition())) {
      if (Date.now() > deadline) throw new Error(`${what}: not reached within ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, everyMs));
    }
  }
}

export interface Sent {
  readonly uetr: string;
  readonly sentAt: number;
  readonly acceptedAt: number;
}

/** A journey sent, with its first posting as the bank received it (when, its event id, the bank). */
interface FirstReceived {
  readonly uetr: string;
  readonly acceptedAt: number;
  readonly receivedAt: number;
  readonly eventId: string;
  readonly memberId: string;
}

/**
 * The bank simulator checks each bank's postings of a transaction as they arrive, every one (its
 * `outOfOrder`): what a phase's postings came to.
 */
export function orderChecked(postings: number, outOfOrder: number): string {
  return `order checked on all ${postings} as they arrived: ${outOfOrder} out of order`;
}

/**
 * How busy the event publisher's consumer kept itself in a phase, from its metrics before and after:
 * the batches it handled at a time on average (its handlers' time over the phase's), against the
 * `allowed` its EVENTS_PARTITIONS_CONCURRENTLY gives, and the posts it had in flight to banks on average
 * (the attempts' time over the phase's, Little's law). Handlers idle while posts in flight stay low
 * point at the consumer; many posts in flight, each slower, at the bank or the CPU.
 */
export function publisherConsumerRow(
  before: ReadonlyMap<string, number>,
  after: ReadonlyMap<string, number>,
  seconds: number,
  allowed: number,
  prefix: string,
): Row {
  const between = (name: string, labels: Readonly<Record<string, string>> = {}) =>
    metricValue(after, name, labels) - metricValue(before, name, labels);
  const handlerSeconds = between('rp_events_batch_duration_seconds_sum');
  const calls = between('rp_events_batch_duration_seconds_count');
  const records = between('rp_events_batch_records_total');
  const fetches = between('rp_kafka_request_duration_seconds_count', { api: 'Fetch' });
  const attemptSeconds = between('rp_events_attempt_duration_seconds_sum');
  const attempts = between('rp_events_attempt_duration_seconds_count');
  const per = (total: number, count: number, scale = 1) =>
    count > 0 ? round((scale * total) / count, 1) : 0;
  return {
    group: 'pipeline',
    name: `${prefix}batches the event publisher handled at a time`,
    value: seconds > 0 ? round(handlerSeconds / seconds, 2) : 0,
    unit: 'batches',
    detail: `on average, of the ${allowed} its EVENTS_PARTITIONS_CONCURRENTLY allows: ${calls} handler calls of ${records} records (${per(records, calls)} a call) from ${fetches} fetches; ${seconds > 0 ? round(attemptSeconds / seconds, 1) : 0} posts in flight to banks on average, ${per(attemptSeconds, attempts, 1000)} ms an attempt over ${attempts} attempts`,
  };
}

/**
 * The journeys of a window (the bank reset at its start) whose postings the bank simulator still keeps
 * when they are read back: it keeps the latest `kept` of them (`POSTING_LOG_SIZE`), so when a window
 * delivers more, its oldest are gone and a journey of its first seconds would read as incomplete. A steady
 * window's postings come at an even rate, so the journeys accepted in the share of its time that the gone
 * postings took, and two seconds more, are left out; `fromSeconds` says from when the rest were accepted.
 */
export function keptJourneys(
  sent: readonly Sent[],
  window: { readonly startedAt: number; readonly seconds: number },
  postings: { readonly accepted: number; readonly kept: number },
): { readonly journeys: readonly Sent[]; readonly fromSeconds: number } {
  const gone = postings.accepted - postings.kept;
  if (gone <= 0 || postings.accepted <= 0) return { journeys: sent, fromSeconds: 0 };
  const fromSeconds = Math.min(window.seconds, Math.ceil((window.seconds * gone) / postings.accepted) + 2);
  const from = window.startedAt + fromSeconds * 1000;
  return { journeys: sent.filter((entry) => entry.acceptedAt >= from), fromSeconds };
}

/** Order and latency of a sample of transactions, from the postings the bank received. */
export async function examine(probe: Probe, sent: readonly Sent[], sampleSize: number) {
  const step = Math.max(1, Math.floor(sent.length / sampleSize));
  const sample = sent.filter((_, index) => index % step === 0).slice(0, sampleSize);
  const firstPosting: number[] = [];
  const firstReceived: FirstReceived[] = [];
  const toCompleted: number[] = [];
  let outOfOrder = 0;
  let incomplete = 0;
  await bounded(sample.length, 8, async (index) => {
    const entry = sample[index] as Sent;
    const postings = await probe.bank.postings(entry.uetr);
    const seen = new Set<string>();
    let last = 0;
    let completedAt: number | undefined;
    for (const received of postings) {
      if (received.posting.class !== 'TRANSACTION_STATE' || seen.has(received.eventId)) continue;
      seen.add(received.eventId);
      const stage = received.posting.stageVersion;
      if (stage <= last) outOfOrder += 1;
      last = stage;
      if ('type' in received.posting && received.posting.type === completedState)
        completedAt = Date.parse(received.receivedAt);
    }
    const first = postings[0];
    if (first) {
      const receivedAt = Date.parse(first.receivedAt);
      firstPosting.push(receivedAt - entry.acceptedAt);
      firstReceived.push({
        uetr: entry.uetr,
        acceptedAt: entry.acceptedAt,
        receivedAt,
        eventId: first.eventId,
        memberId: first.memberId,
      });
    }
    if (completedAt === undefined) incomplete += 1;
    else toCompleted.push(completedAt - entry.acceptedAt);
  });
  return {
    sampled: sample.length,
    outOfOrder,
    incomplete,
    firstPosting: summarize(firstPosting),
    firstReceived,
    toCompleted: summarize(toCompleted),
    /** The same, each journey's own, for a summary over several samples (the soak's minute). */
    toCompletedMs: toCompleted,
  };
}

/**
 * The latency phase's 202-to-first-posting split at each journey's first records (the state topic's,
 * rp.events.v1's) and, for the slowest hundredth, at the event publisher's first attempt.
 */
async function splitLatency(probe: Probe, since: number, firstReceived: readonly FirstReceived[]) {
  const uetrs = new Set(firstReceived.map((entry) => entry.uetr));
  const [stateTimes, eventTimes] = await Promise.all([
    probe.firstRecords('rp.transaction.state.v1', since, uetrs),
    probe.firstRecords('rp.events.v1', since, uetrs),
  ]);
  const paths = firstReceived.map((entry) => ({
    ...entry,
    stateAt: stateTimes.get(entry.uetr),
    eventAt: eventTimes.get(entry.uetr),
  }));
  const attempts = new Map<string, FirstAttempt>();
  for (const path of slowestHundredth(paths)) {
    const attempt = await probe.firstAttempt(path.eventId, path.memberId);
    if (attempt) attempts.set(path.uetr, attempt);
  }
  return splitFirstPostings(paths, attempts);
}

/**
 * The event path alone: `copies` copies of one journey's rp.events.v1 records (`journey`, as the tracker
 * wrote them) produced as a backlog while the event publisher is held (SIGSTOP) and nothing else is
 * sent, then delivered once it goes on, so that only the event publisher, the bank, Kafka and the
 * delivery log's store work. The rate is the postings the bank accepted over the time from the event
 * publisher's going on to the last posting accepted; order is checked on every posting as the bank
 * receives it, and read back on a sample.
 */
async function eventPath(
  probe: Probe,
  infrastructure: ReadonlyMap<string, number>,
  topic: string,
  journey: readonly RawRecord[],
  copies: number,
  sampleSize: number,
  cpuReference: (() => Promise<CpuReference>) | undefined,
): Promise<Row[]> {
  const made = Array.from({ length: copies }, () => copyJourney(journey));
  const keys = made.map((copy) => (copy[0] as RawRecord).key.toString());
  const expected = copies * journey.length;
  // The postings the delivery log holds: the event publisher is the only service that writes it.
  const logged = (metrics: ReadonlyMap<string, number> = new Map()) =>
    metricValue(metrics, 'rp_events_delivery_log_first_attempts_total');
  const loggedNow = async () => logged(await probe.metrics('event-publisher'));
  // The backlog written while the event publisher is held, then the readings: the clock starts when the
  // event publisher goes on, so that the writing of the backlog (the load generator's and Kafka's work,
  // the tracker's in the whole journey) is not the phase's.
  const writeBacklog = async (writer: CopyWriter) => {
    await probe.bank.reset();
    const postgres = await probe.postgres();
    const release = await holdService(probe.pipeline, 'event-publisher');
    try {
      const producing = performance.now();
      await writer.write([{ topic, copies: made }]);
      const producedSeconds = (performance.now() - producing) / 1000;
      // Before the readings, so that its own CPU is not the phase's.
      const reference = await cpuReference?.();
      const services = await servicesCounts(probe.pipeline);
      const bankBefore = await probe.bank.stats();
      const before = {
        accepted: bankBefore.routes.events.accepted,
        outOfOrder: bankBefore.outOfOrder,
        logged: logged(services['event-publisher']?.metrics),
        mongo: await probe.mongoCommands(),
        services,
        postgres,
        reference,
        cpu: await probe.cpu(infrastructure),
      };
      return { before, producedSeconds };
    } finally {
      release();
    }
  };
  const writer = new CopyWriter(probe.brokers);
  await writer.connect();
  const { before, producedSeconds } = await writeBacklog(writer).finally(() => writer.disconnect());
  const startedAt = Date.now();
  const started = performance.now();
  await probe.until(
    'every posting of the event path accepted',
    async () => (await probe.postingsAccepted()) - before.accepted >= expected,
    1_800_000,
    100,
  );
  const seconds = (performance.now() - started) / 1000;
  // The delivery log's entries of the last postings follow their 202s: the readings wait for them, so
  // that the writes and their CPU are the phase's.
  await probe.until(
    "the event path's delivery log written",
    async () => (await loggedNow()) - before.logged >= expected,
    120_000,
    100,
  );
  const after = {
    mongo: await probe.mongoCommands(),
    services: await servicesCounts(probe.pipeline),
    cpu: await probe.cpu(infrastructure),
  };
  const referenceAfter = await cpuReference?.();
  const postgresAfter = await probe.postgres();
  const stats = await probe.bank.stats();
  const examined = await examine(
    probe,
    keys.map((uetr) => ({ uetr, sentAt: startedAt, acceptedAt: startedAt })),
    sampleSize,
  );
  const accepted = stats.routes.events.accepted - before.accepted;
  const statements = mongoStatementsBetween(
    eachService(before.services, 'statements'),
    eachService(after.services, 'statements'),
  );
  const documents = Object.values(statements).reduce((sum, count) => sum + count, 0);
  return [
    {
      group: 'pipeline',
      name: 'event path alone: postings delivered from a backlog, in order (both classes)',
      value: round(accepted / seconds, 1),
      unit: 'postings/s',
      detail: `${accepted} postings of ${copies} journeys' ${expected} records of rp.events.v1 (produced in ${round(producedSeconds, 1)} s while the event publisher was held) accepted in ${round(seconds, 1)} s once it went on; ${stats.duplicates} duplicates, ${stats.signatureFailures} signature failures; ${orderChecked(accepted, stats.outOfOrder - before.outOfOrder)}; ${examined.sampled} transactions followed: ${examined.outOfOrder} out of order, ${examined.incomplete} incomplete`,
    },
    {
      group: 'pipeline',
      name: 'event path alone: mongodb writes per 100 postings',
      value: round((100 * (after.mongo.writes - before.mongo.writes)) / accepted, 1),
      unit: 'commands',
      detail: `${round((100 * documents) / accepted, 1)} documents and statements per 100 postings, by collection: ${
        Object.entries(statements)
          .filter(([, count]) => count > 0)
          .map(([name, count]) => `${name} ${round((100 * count) / accepted, 1)}`)
          .join(', ') || 'none'
      }`,
    },
    publisherConsumerRow(
      before.services['event-publisher']?.metrics ?? new Map(),
      after.services['event-publisher']?.metrics ?? new Map(),
      seconds,
      partitionsConcurrently(),
      'event path alone: ',
    ),
    ...cpuRows(before.cpu, after.cpu, accepted, eventPathPer),
    ...(before.reference === undefined || referenceAfter === undefined
      ? []
      : cpuReferenceRows(
          before.cpu,
          after.cpu,
          accepted,
          { before: before.reference, after: referenceAfter },
          eventPathPer,
        )),
    ...postgresRows(before.postgres, postgresAfter, accepted, eventPathPer),
  ];
}

/** What the scheduler alone is given of a journey: its accepted debit and its report's acknowledgement. */
interface SchedulerJourney {
  readonly accepted: readonly RawRecord[];
  readonly acknowledged: readonly RawRecord[];
}

/**
 * The acknowledgement of an ACCP report: the outcome that makes an on-us debit ready in the scheduler, by
 * the header in which the dispatcher names the state it led to.
 */
const isAcceptanceAcknowledged = (record: RawRecord) =>
  record.headers[stateHeader]?.toString() === 'DEBIT_ACCEPTANCE_DELIVERED';

/**
 * The scheduler alone: `copies` copies of one journey's accepted debit and the acknowledgement of its
 * status report (as the validator and the dispatcher wrote them), written together as a backlog while
 * the scheduler is held (SIGSTOP), then made ready and released once it goes on, its debit window open.
 * The services that read what it writes (the tracker its DEBIT_QUEUED, the dispatcher its due debits)
 * stay held through the phase, so that only the scheduler, Kafka and the store work. The scheduler runs
 * as one instance (it runs the windows, and alone knows when a window's queue is empty), so what it takes
 * on a core is a ceiling of the whole pipeline however many instances of the other services run. The
 * copies are transactions the rest of the pipeline never saw: the phase is the run's last.
 */
async function schedulerAlone(
  probe: Probe,
  infrastructure: ReadonlyMap<string, number>,
  topics: { readonly accepted: string; readonly outcome: string },
  journey: SchedulerJourney,
  copies: number,
  cpuReference: (() => Promise<CpuReference>) | undefined,
): Promise<Row[]> {
  const made = Array.from({ length: copies }, () =>
    copyParts([
      { message: 'DirectDebit', records: journey.accepted },
      { message: 'DeliveryOutcome', records: journey.acknowledged },
    ]),
  );
  const released = (metrics: ReadonlyMap<string, number> = new Map()) =>
    metricValue(metrics, 'rp_scheduler_debits_released_total');
  const atOnce = (metrics: ReadonlyMap<string, number> = new Map()) =>
    metricValue(metrics, 'rp_scheduler_debits_released_at_once_total');
  // The scheduler's releases, by kind: rounds of debits released as they became ready (their due records
  // produced, then their tombstones written), and drains of the window's queue.
  const releases = (
    kind: 'ready' | 'queue',
    before: ReadonlyMap<string, number> = new Map(),
    after: ReadonlyMap<string, number> = new Map(),
  ) => {
    const read = (metrics: ReadonlyMap<string, number>, part: '_count' | '_sum') =>
      metricValue(metrics, `rp_scheduler_drain_duration_seconds${part}`, { kind });
    return {
      count: read(after, '_count') - read(before, '_count'),
      seconds: read(after, '_sum') - read(before, '_sum'),
    };
  };
  // Each let go at the end, whatever fails after it was held.
  const downstream: (() => void)[] = [];
  try {
    downstream.push(await holdService(probe.pipeline, 'tracker'));
    downstream.push(await holdService(probe.pipeline, 'dispatcher'));
    const writer = new CopyWriter(probe.brokers);
    await writer.connect();
    const writeBacklog = async () => {
      const release = await holdService(probe.pipeline, 'scheduler');
      try {
        const producing = performance.now();
        await writer.write([
          { topic: topics.accepted, copies: made.map((copy) => copy[0] ?? []) },
          { topic: topics.outcome, copies: made.map((copy) => copy[1] ?? []) },
        ]);
        const producedSeconds = (performance.now() - producing) / 1000;
        // Before the readings, so that its own CPU is not the phase's.
        const reference = await cpuReference?.();
        const services = await servicesCounts(probe.pipeline);
        return {
          producedSeconds,
          before: {
            services,
            reference,
            mongo: await probe.mongoCommands(),
            cpu: await probe.cpu(infrastructure),
          },
        };
      } finally {
        release();
      }
    };
    const { before, producedSeconds } = await writeBacklog().finally(() => writer.disconnect());
    const releasedBefore = released(before.services.scheduler?.metrics);
    const started = performance.now();
    await probe.until(
      'every debit of the backlog released by the scheduler',
      async () => released(await probe.metrics('scheduler')) - releasedBefore >= copies,
      1_800_000,
      100,
    );
    const seconds = (performance.now() - started) / 1000;
    const after = {
      mongo: await probe.mongoCommands(),
      services: await servicesCounts(probe.pipeline),
      cpu: await probe.cpu(infrastructure),
    };
    const referenceAfter = await cpuReference?.();
    return schedulerAloneRows({
      copies,
      producedSeconds,
      seconds,
      released: released(after.services.scheduler?.metrics) - releasedBefore,
      atOnce: atOnce(after.services.scheduler?.metrics) - atOnce(before.services.scheduler?.metrics),
      rounds: releases('ready', before.services.scheduler?.metrics, after.services.scheduler?.metrics),
      drains: releases('queue', before.services.scheduler?.metrics, after.services.scheduler?.metrics),
      kafkaRequests: kafkaRequestsBetween(
        eachService(before.services, 'kafka'),
        eachService(after.services, 'kafka'),
      ).scheduler,
      writes: after.mongo.writes - before.mongo.writes,
      statements: mongoStatementsBetween(
        eachService(before.services, 'statements'),
        eachService(after.services, 'statements'),
      ),
      cpu: { before: before.cpu, after: after.cpu },
      ...(before.reference === undefined || referenceAfter === undefined
        ? {}
        : { reference: { before: before.reference, after: referenceAfter } }),
    });
  } finally {
    for (const release of downstream) release();
  }
}

/** What the scheduler alone did, as read around its phase. */
export interface SchedulerAloneReading {
  readonly copies: number;
  /** Seconds the backlog took to write. */
  readonly producedSeconds: number;
  /** From the scheduler's going on to its last release. */
  readonly seconds: number;
  readonly released: number;
  /** Of them, released the moment they became ready (the window open, its queue empty). */
  readonly atOnce: number;
  /**
   * The release rounds (a round: its due records produced, then their tombstones written, the next round's
   * records produced meanwhile), and their seconds: rounds overlap, so their sum may pass the phase's.
   */
  readonly rounds: { readonly count: number; readonly seconds: number };
  /** The drains of the window's queue (before a release, unless the queue is known empty), and their seconds. */
  readonly drains: { readonly count: number; readonly seconds: number };
  /** The scheduler's own Kafka requests over the phase. */
  readonly kafkaRequests: KafkaRequests | undefined;
  /** MongoDB write commands, server-wide. */
  readonly writes: number;
  readonly statements: Readonly<Record<string, number>>;
  readonly cpu: { readonly before: CpuReading; readonly after: CpuReading };
  readonly reference?: { readonly before: CpuReference; readonly after: CpuReference };
}

const schedulerAlonePer: CpuPer = {
  busy: 'scheduler alone: machine CPU busy',
  noun: 'debit',
  unit: 'ms',
  prefix: 'scheduler alone: ',
};

/**
 * The scheduler alone's rows: its rate from the backlog, what one instance of it takes on a core of its
 * own (the debits over its own CPU seconds), its writes and each process's CPU a debit.
 */
export function schedulerAloneRows(reading: SchedulerAloneReading): Row[] {
  const { copies, released, seconds } = reading;
  const own = cpuBetween(reading.cpu.before, reading.cpu.after).processes.find(
    ([name]) => name === 'scheduler',
  )?.[1];
  const requests = reading.kafkaRequests;
  const requestsSaid =
    requests === undefined
      ? ''
      : `; its Kafka requests a debit: ${round(
          Object.values(requests).reduce((sum, count) => sum + count, 0) / released,
          2,
        )} (Produce ${round(requests.Produce / released, 2)}, Fetch ${round(requests.Fetch / released, 2)})`;
  const { rounds, drains } = reading;
  const share = (part: number) => `${round((100 * part) / seconds, 0)}% of the phase`;
  const roundsSaid =
    rounds.count > 0
      ? `; ${rounds.count} release rounds of ${round(released / rounds.count, 1)} debits on average, ${round((1000 * rounds.seconds) / rounds.count, 0)} ms each (its due records produced, then their tombstones written while the next round's records go out), together ${share(rounds.seconds)}`
      : '';
  const drainsSaid =
    drains.count > 0
      ? `; ${drains.count} drains of the window's queue, ${round((1000 * drains.seconds) / drains.count, 0)} ms each, ${share(drains.seconds)}`
      : '; no drain of the queue (known empty)';
  const rows: Row[] = [
    {
      group: 'pipeline',
      name: 'scheduler alone: debits made ready and released from a backlog',
      value: round(released / seconds, 1),
      unit: 'debits/s',
      detail: `${released} of ${copies} debits (their accepted records and their reports' acknowledgements, written in ${round(reading.producedSeconds, 1)} s while the scheduler was held) released in ${round(seconds, 1)} s once it went on, ${reading.atOnce === released ? 'every one' : `${reading.atOnce}`} of them at once${reading.atOnce === released ? '' : ', the rest through the queue'}; the tracker and the dispatcher held${roundsSaid}${drainsSaid}${requestsSaid}`,
    },
  ];
  if (own !== undefined && own > 0) {
    rows.push({
      group: 'pipeline',
      name: "scheduler alone: one instance's ceiling, debits a second of its own CPU",
      value: round(released / own, 0),
      unit: 'debits/s',
      detail: `${released} debits over the scheduler's ${round(own, 1)} CPU-seconds (${round((1000 * own) / released, 2)} ms a debit): what one scheduler could release on a core of this machine kept for it, at this hour's speed; it runs as a single instance, so this bounds the whole pipeline whatever the other services' replicas`,
    });
  }
  rows.push(
    {
      group: 'pipeline',
      name: 'scheduler alone: mongodb write commands per debit',
      value: round(reading.writes / released, 2),
      unit: 'commands',
      detail: 'server-wide counters over the phase',
    },
    mongoStatementsRow(reading.statements, released, 'scheduler alone: mongodb write statements per debit'),
    ...cpuRows(reading.cpu.before, reading.cpu.after, released, schedulerAlonePer),
    ...(reading.reference === undefined
      ? []
      : cpuReferenceRows(
          reading.cpu.before,
          reading.cpu.after,
          released,
          reading.reference,
          schedulerAlonePer,
        )),
  );
  return rows;
}

/** The event publisher's EVENTS_PARTITIONS_CONCURRENTLY, as its processes inherit it from the bench. */
function partitionsConcurrently(): number {
  const set = Number(process.env.EVENTS_PARTITIONS_CONCURRENTLY);
  return Number.isInteger(set) && set > 0
    ? set
    : (eventPublisherConfigSpec.EVENTS_PARTITIONS_CONCURRENTLY.defaultValue ?? 0);
}

const recoveryPer: CpuPer = {
  busy: 'recovery: machine CPU busy while catching up',
  noun: 'debit of the backlog',
  unit: 'ms',
  prefix: 'recovery: ',
};

const eventPathPer: CpuPer = {
  busy: 'event path alone: machine CPU busy',
  noun: 'posting',
  unit: 'µs',
  prefix: 'event path alone: ',
};

/**
 * A service's NODE_OPTIONS in a bench pipeline: the bench's own (a V8 flag under test) first, the
 * bench's options for it (the profiler's, the inspector's) added after them rather than in their place.
 */
export function benchNodeOptions(
  own: readonly (string | undefined)[],
  parent: Readonly<Record<string, string | undefined>> = process.env,
): string {
  return [parent.NODE_OPTIONS, ...own].filter((option) => option !== undefined && option !== '').join(' ');
}

/**
 * What the services were given from the bench's environment: what they inherit as it is, and the bench's
 * NODE_OPTIONS, which reach them under the bench's own options when it adds any (`benchNodeOptions`).
 */
export function benchServicesEnvironment(
  pipeline: Pick<Pipeline, 'inheritedEnv'>,
  parent: Readonly<Record<string, string | undefined>> = process.env,
): Record<string, string> {
  const nodeOptions = parent.NODE_OPTIONS;
  return { ...pipeline.inheritedEnv, ...(nodeOptions ? { NODE_OPTIONS: nodeOptions } : {}) };
}

/**
 * The pipeline as the bench runs it: every service on the given endpoints, logging warnings only, the
 * bank answering at once and the windows open at any hour; each service in its memory cgroup, or under
 * the CPU profiler, when asked.
 */
export function launchBenchPipeline(
  options: Pick<
    PipelineBenchOptions,
    'root' | 'endpoints' | 'run' | 'memoryLimits' | 'profileDir' | 'together'
  > & {
    /** Each service's inspector port (`--inspect` on 127.0.0.1), for collections forced through it. */
    readonly inspectors?: Readonly<Record<string, number>>;
  },
): Promise<Pipeline> {
  const nodeOptions = (service: PipelineService) =>
    benchNodeOptions([
      options.profileDir === undefined
        ? undefined
        : `--cpu-prof --cpu-prof-dir=${options.profileDir} --cpu-prof-name=${service}.cpuprofile`,
      options.inspectors?.[service] === undefined ? undefined : inspectOption(options.inspectors[service]),
    ]);
  return launchPipeline({
    root: options.root,
    endpoints: options.endpoints,
    run: options.run,
    ...(options.together === undefined ? {} : { together: options.together }),
    env: {
      LOG_LEVEL: 'warn',
      RESPONSE_DELAY: '0ms',
      ...anyTimeWindows,
    },
    ...(options.memoryLimits === undefined
      ? {}
      : { wrap: (service: PipelineService) => options.memoryLimits?.wrap(service) }),
    ...(options.profileDir === undefined && options.inspectors === undefined
      ? {}
      : {
          serviceEnv: Object.fromEntries(
            pipelineServices.map((service) => [service, { NODE_OPTIONS: nodeOptions(service) }]),
          ),
        }),
  });
}

/**
 * The whole journey measured from outside: on-us debits in at the ingress, every posting and message
 * out at the bank simulator. Phases: the burst (closed loop), the sustained rate (a steady open loop,
 * searched), latency at half of the sustained rate (open loop),
 * memory with a queue behind a closed window, and recovery after a bank outage.
 */
export async function pipelineBench(
  options: PipelineBenchOptions,
  log: (line: string) => void,
): Promise<Row[]> {
  const rows: Row[] = [];
  const pipeline = await launchBenchPipeline(options);
  const probe = new Probe(pipeline, options.endpoints, options.postgres, options.kafkaLogDir);
  const infrastructure = options.infrastructure ?? new Map<string, number>();
  const scheduler = pipeline.url('scheduler');
  const admin = async (path: string) =>
    fetch(`${scheduler}${path}`, {
      method: 'POST',
      headers: { authorization: await pipeline.operatorAuthorization('operator.replay') },
    }).then((response) => response.text());
  const environment = servicesEnvironmentRow(servicesEnvironment(benchServicesEnvironment(pipeline)));
  rows.push(environment);
  log(`services' settings from the environment: ${environment.detail}`);
  let stopKeeper = () => {};
  try {
    // Memory while debits wait for the debit window (credits not yet final, so today's window stays
    // shut), then the drain when it opens. First, because an operator's close would send later debits to
    // the next business day's window.
    if (options.queue > 0) {
      log(`memory: ${options.queue} debits queued until the debit window opens`);
      const queueDepth = async () => {
        const response = await fetch(`${scheduler}/admin/queue`, {
          headers: { authorization: await pipeline.operatorAuthorization('operator.read') },
        });
        return Number(((await response.json()) as { depth: number }).depth);
      };
      // Waited for by the scheduler's own count of debits queued, then confirmed by the queue's depth
      // once: on the stand-in every depth read reads every queued document, and polling it while
      // thousands queue would load FerretDB with the bench's own work.
      const queuedSoFar = async () =>
        metricValue(await probe.metrics('scheduler'), 'rp_scheduler_debits_queued_total');
      const untilQueued = async (what: string, depth: number, counted: number, timeoutMs: number) => {
        await probe.until(what, async () => (await queuedSoFar()) >= counted, timeoutMs);
        await probe.until(what, async () => (await queueDepth()) >= depth, timeoutMs, 2_000);
      };
      const baseline = await probe.memory();
      const queuedBefore = await queuedSoFar();
      const tenth = Math.max(1, Math.floor(options.queue / 10));
      await bounded(tenth, options.concurrency, async () => {
        await probe.send(options.root);
      });
      await untilQueued('a tenth of the debits queued', tenth, queuedBefore + tenth, 600_000);
      const memoryAtTenth = await probe.memory();
      await bounded(options.queue - tenth, options.concurrency, async () => {
        await probe.send(options.root);
      });
      await untilQueued('every debit queued', options.queue, queuedBefore + options.queue, 1_800_000);
      const memoryQueued = await probe.memory();
      const drainStart = Date.now();
      await admin('/admin/windows/debit/open');
      await probe.journeysDone('the queue drained, every journey done', 0, options.queue, 3_600_000);
      const drainSeconds = (Date.now() - drainStart) / 1000;
      // The bank's reports whose 202 it did not wait for are still being resent: the next phase starts
      // once the ingress has answered every one of them.
      await probe.until(
        "the bank's reports acknowledged",
        async () => (await probe.bank.stats()).responses.pending === 0,
        1_800_000,
        500,
      );
      const reports = (await probe.bank.stats()).responses;
      const memoryDrained = await probe.memory();
      for (const service of pipelineServices) {
        rows.push({
          group: 'pipeline',
          name: `memory with ${options.queue} debits queued: ${service}`,
          value: memoryQueued[service] ?? 0,
          unit: 'MB RSS',
          detail: `${baseline[service]} MB idle, ${memoryAtTenth[service]} MB with ${tenth} queued, ${memoryDrained[service]} MB after the drain`,
        });
      }
      rows.push({
        group: 'pipeline',
        name: `drain of ${options.queue} queued debits when the window opens`,
        value: round(options.queue / drainSeconds, 1),
        unit: 'debits/s',
        detail: `${round(drainSeconds, 1)} s from the window opening to the last DEBIT_COMPLETED; the bank sent its ${reports.sent} reports in ${reports.attempts} attempts`,
      });
    }
    // From here on every phase wants today's window open: one that runs past midnight in Johannesburg
    // has it opened for the new business day too, as an operator would (see DebitWindowKeeper).
    const keeper = pipelineWindowKeeper(pipeline, log);
    await keeper.openToday();
    stopKeeper = keeper.every(5_000);
    // No phase starts that the day's reconciliation close, at midnight in Johannesburg, would cut short
    // (it reconciles every journey in flight then): one that could not end before it waits for the new
    // business day's window. A phase's budget: its load, and five minutes to drain and read.
    const windowsNow = schedulerWindows(pipeline);
    const clearOfMidnight = (loadSeconds: number) =>
      clearOfDayEnd((loadSeconds + 300) * 1_000, { schedulers: [windowsNow], log });
    // Warm-up: connections, schemas, JIT; not measured.
    const warm = await warmUp(probe, options.root);

    // The journey the event path's phase copies: its records of rp.events.v1, as the tracker wrote them.
    const eventsTopic = `${pipeline.run}.rp.events.v1`;
    const journeyRecords =
      (options.postings ?? 0) > 0
        ? await readJourney(
            options.endpoints.kafkaBrokers,
            eventsTopic,
            (warm[0] as Sent).uetr,
            postingsPerDebit,
            60_000,
          )
        : [];
    // The journey the scheduler's phase copies: what the scheduler reads of it.
    const schedulerTopics = {
      accepted: `${pipeline.run}.rp.directdebit.accepted.v1`,
      outcome: `${pipeline.run}.rp.delivery.outcome.v1`,
    };
    const schedulerJourney: SchedulerJourney | undefined =
      (options.scheduler ?? 0) > 0
        ? {
            accepted: await readJourney(
              options.endpoints.kafkaBrokers,
              schedulerTopics.accepted,
              (warm[0] as Sent).uetr,
              1,
              60_000,
            ),
            acknowledged: await readJourney(
              options.endpoints.kafkaBrokers,
              schedulerTopics.outcome,
              (warm[0] as Sent).uetr,
              1,
              60_000,
              isAcceptanceAcknowledged,
            ),
          }
        : undefined;

    const settled: [string, Settled][] = [];
    settled.push(['idle', await settle(probe, infrastructure, 'the idle reading', log, settleThreshold())]);
    // The fixed cost: what the pipeline and its stack spend with nothing to do (consumers polling every
    // topic and retry tier, heartbeats, offset commits, timers), which every figure below carries.
    const idleSeconds = Math.min(20, options.durationSeconds);
    log(`idle: ${idleSeconds} s with nothing sent`);
    const idle = await cpuOver(probe, infrastructure, idleSeconds);
    rows.push(...idleCpuRows(idle.before, idle.after, idle.seconds));
    const idleBusy = settledBetween(idle.before, idle.after, idle.seconds).busyPercent;
    const threshold = settleThreshold(idle.before.machine ? idleBusy : undefined);

    // Phase 1: the burst, a closed loop at the given concurrency for the duration: the ingress takes debits
    // faster than the journeys complete, so this is the rate at which a backlog drains.
    await clearOfMidnight(options.durationSeconds);
    log(`burst: ${options.concurrency} debits in flight for ${options.durationSeconds} s`);
    await probe.bank.reset();
    const burstBefore = await probe.completed();
    const burstPausesBefore = await perRunningProcess(pipeline, pauseReading);
    const sent: Sent[] = [];
    const memoryPeak: Record<string, number> = {};
    // Each reading of a service's metrics starts its longest event-loop delay again, so the burst's is
    // the longest of the memory samples' and the last reading's.
    const burstLoopMaxMs: Record<string, number> = {};
    const sampleMemory = async () => {
      const readings = await perRunningProcess(pipeline, (metrics) => ({
        mb: residentMb(metrics),
        loopMaxMs: pauseReading(metrics).loopMaxMs,
      }));
      for (const [service, reading] of Object.entries(readings)) {
        memoryPeak[service] = Math.max(memoryPeak[service] ?? 0, reading.mb);
        burstLoopMaxMs[service] = Math.max(burstLoopMaxMs[service] ?? 0, reading.loopMaxMs);
      }
    };
    const started = Date.now();
    const stopAt = started + options.durationSeconds * 1000;
    const memoryTimer = setInterval(() => void sampleMemory().catch(() => undefined), 2_000);
    await Promise.all(
      Array.from({ length: options.concurrency }, async () => {
        while (Date.now() < stopAt) sent.push(await probe.send(options.root));
      }),
    );
    const offeredSeconds = (Date.now() - started) / 1000;
    await probe.journeysDone('every journey of the burst done', burstBefore, sent.length, 3_600_000);
    clearInterval(memoryTimer);
    const seconds = (Date.now() - started) / 1000;
    const burstCompleted = (await probe.completed()) - burstBefore;
    const burstRate = burstCompleted / seconds;
    const burstStats = await probe.bank.stats();
    rows.push({
      group: 'pipeline',
      name: 'burst: on-us debits through the whole journey, closed loop',
      value: round(burstRate, 1),
      unit: 'debits/s',
      detail: `${burstCompleted} of ${sent.length} sent completed in ${round(seconds, 1)} s (offered for ${round(offeredSeconds, 1)} s, ${options.concurrency} in flight); ${burstStats.duplicates} duplicate postings`,
    });
    const burstPausesAfter = await perRunningProcess(pipeline, pauseReading);
    rows.push(
      pausesRow(
        'the burst',
        burstPausesBefore,
        Object.fromEntries(
          Object.entries(burstPausesAfter).map(([service, reading]) => [
            service,
            { ...reading, loopMaxMs: Math.max(reading.loopMaxMs, burstLoopMaxMs[service] ?? 0) },
          ]),
        ),
      ),
    );
    for (const [service, mb] of Object.entries(memoryPeak))
      rows.push({ group: 'pipeline', name: `memory peak under load: ${service}`, value: mb, unit: 'MB RSS' });

    // Phase 2: the sustained rate, at a steady offered load (open loop) for the duration. The pipeline
    // keeps up when every journey of the window is done within a tenth of the window after it (at least
    // 5 s) and 95% took at most 5 s from the 202 to DEBIT_COMPLETED. The search starts at 60% of the
    // burst rate, rises by a fifth while the pipeline keeps up and falls by a quarter while it does not,
    // halving the gap instead once a rate on both sides is known, for at most `steps` windows or until
    // the gap is under 5%; the highest rate kept up is the figure, and the per-debit figures are that
    // window's. `rate` sets where the search starts.
    const steps = options.steps ?? 6;
    const windows: SteadyWindow[] = [];
    let offered = options.rate ?? Math.max(1, burstRate * 0.6);
    for (let step = 0; step < steps; step += 1) {
      await clearOfMidnight(options.durationSeconds);
      settled.push([
        `window ${step + 1}`,
        await settle(probe, infrastructure, `the window at ${round(offered, 1)}/s`, log, threshold),
      ]);
      log(`sustained: ${round(offered, 1)} debits/s for ${options.durationSeconds} s`);
      const window = await offerSteady(probe, options, offered, infrastructure);
      windows.push(window);
      log(
        `  ${window.keptUp ? 'kept up' : 'fell behind'}: ${window.sent.length} sent, p95 202 to completed ${round(window.examined.toCompleted.p95 / 1000, 1)} s, the last done ${round(window.drainSeconds, 1)} s after the window`,
      );
      const highestKept = Math.max(0, ...windows.filter((entry) => entry.keptUp).map((entry) => entry.rate));
      const lowestFailed = Math.min(
        Number.POSITIVE_INFINITY,
        ...windows.filter((entry) => !entry.keptUp).map((entry) => entry.rate),
      );
      if (lowestFailed < Number.POSITIVE_INFINITY && lowestFailed - highestKept < lowestFailed * 0.05) break;
      let next = window.keptUp ? offered * 1.2 : offered * 0.75;
      if (next >= lowestFailed || next <= highestKept) next = (highestKept + lowestFailed) / 2;
      offered = next;
    }
    const best = windows.filter((entry) => entry.keptUp).sort((a, b) => b.rate - a.rate)[0];
    const tried = windows.map(
      (entry) =>
        `${round(entry.rate, 1)} ${entry.keptUp ? 'kept up' : 'fell behind'} (p95 ${round(entry.examined.toCompleted.p95 / 1000, 1)} s, last ${round(entry.drainSeconds, 1)} s after)`,
    );
    if (best === undefined) {
      rows.push(...fellBehindRows(windows, tried));
    } else {
      rows.push(...steadyRows(best, tried, options.durationSeconds));
      // Where the records waited at the lowest rate the pipeline did not keep up with: the hop that
      // binds it is the group whose backlog grew.
      const behind = windows
        .filter((entry) => !entry.keptUp && entry.rate > best.rate)
        .sort((a, b) => a.rate - b.rate)[0];
      if (behind !== undefined) rows.push(...behindRows(behind));
    }
    const rate = best?.rate ?? Math.max(1, burstRate * 0.3);

    // Phase 3: latency at half of the sustained rate, open loop.
    const halfRate = Math.max(1, rate / 2);
    await clearOfMidnight(options.durationSeconds);
    settled.push(['latency', await settle(probe, infrastructure, 'the latency phase', log, threshold)]);
    log(`latency: ${round(halfRate, 1)} debits/s for ${options.durationSeconds} s`);
    await probe.bank.reset();
    const latencyBefore = await probe.completed();
    const paced: Sent[] = [];
    const ingressTimes: number[] = [];
    const interval = 1000 / halfRate;
    // Read just before the phase: each service's longest event-loop delay then covers the phase alone.
    const pausesBefore = await perRunningProcess(pipeline, pauseReading);
    const pacedSince = Date.now();
    const pacedStart = performance.now();
    const total = Math.round(halfRate * options.durationSeconds);
    const inFlight: Promise<void>[] = [];
    for (let index = 0; index < total; index += 1) {
      const due = pacedStart + index * interval;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      inFlight.push(
        probe.send(options.root).then((entry) => {
          paced.push(entry);
          ingressTimes.push(entry.acceptedAt - entry.sentAt);
        }),
      );
    }
    await Promise.all(inFlight);
    await probe.journeysDone(
      'every journey of the latency phase done',
      latencyBefore,
      paced.length,
      3_600_000,
    );
    const pauses = pausesRow(
      'the latency phase',
      pausesBefore,
      await perRunningProcess(pipeline, pauseReading),
    );
    // Every journey of the phase the bank still keeps the postings of, not a sample: its p99 is then the
    // phase's, not the third worst of 300.
    const latencyBank = await probe.bank.stats();
    const latencyKept = keptJourneys(
      paced,
      { startedAt: pacedSince, seconds: options.durationSeconds },
      { accepted: latencyBank.routes.events.accepted, kept: latencyBank.postingsKept },
    );
    const latency = await examine(probe, latencyKept.journeys, latencyKept.journeys.length);
    const keptFrom =
      latencyKept.fromSeconds > 0
        ? ` (those accepted ${latencyKept.fromSeconds} s or more into the phase: the bank simulator keeps the latest ${latencyBank.postingsKept} postings)`
        : '';
    // The split is a diagnosis: a failure to read the topics or the log costs its row, not the run.
    const splitRow = await splitLatency(probe, pacedSince, latency.firstReceived).then(
      (split) => {
        log(
          `  the slowest first postings (s into the phase: ms to the bank, at the tracker, to the publisher's attempt, its POST to the bank's receipt, the POST's whole round trip): ${split.slowest.each.map((entry) => entry.join(':')).join(' ')}`,
        );
        return firstPostingSplitRow(split);
      },
      (error: unknown) => firstPostingSplitMissing(error instanceof Error ? error.message : String(error)),
    );
    const ingress = summarize(ingressTimes);
    const ms = (value: number) => round(value, 0);
    rows.push(
      {
        group: 'pipeline',
        name: `latency ingress 202 at ${round(halfRate, 1)} debits/s, p50 / p95 / p99`,
        value: ms(ingress.p99),
        unit: 'ms (p99)',
        detail: `${ms(ingress.p50)} / ${ms(ingress.p95)} / ${ms(ingress.p99)} ms over ${ingress.count}`,
      },
      {
        group: 'pipeline',
        name: '202 to the first posting at the bank, p50 / p95 / p99',
        value: ms(latency.firstPosting.p99),
        unit: 'ms (p99)',
        detail: `${ms(latency.firstPosting.p50)} / ${ms(latency.firstPosting.p95)} / ${ms(latency.firstPosting.p99)} ms over ${latency.firstPosting.count}${keptFrom}`,
      },
      splitRow,
      pauses,
      {
        group: 'pipeline',
        name: '202 to DEBIT_COMPLETED at the bank, p50 / p95 / p99',
        value: ms(latency.toCompleted.p99),
        unit: 'ms (p99)',
        detail: `${ms(latency.toCompleted.p50)} / ${ms(latency.toCompleted.p95)} / ${ms(latency.toCompleted.p99)} ms over ${latency.toCompleted.count}${keptFrom}; ${latency.outOfOrder} out of order; ${orderChecked(latencyBank.routes.events.accepted, latencyBank.outOfOrder)}`,
      },
    );

    // Phase 4: a bank outage under load, then the catch-up.
    if (options.outageSeconds > 0) {
      await clearOfMidnight(options.outageSeconds);
      log(
        `recovery: the bank answers 503 for ${options.outageSeconds} s under ${round(halfRate, 1)} debits/s`,
      );
      await probe.bank.reset();
      const outageBefore = await probe.completed();
      await probe.bank.setFault({ route: '*', mode: 'error', status: 503 });
      const outageSent: Sent[] = [];
      const outageStart = performance.now();
      const outageTotal = Math.round(halfRate * options.outageSeconds);
      const pending: Promise<void>[] = [];
      for (let index = 0; index < outageTotal; index += 1) {
        const wait = outageStart + index * interval - performance.now();
        if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
        pending.push(probe.send(options.root).then((entry) => void outageSent.push(entry)));
      }
      await Promise.all(pending);
      await probe.bank.clearFaults();
      const backAt = Date.now();
      const cpuBack = await probe.cpu(infrastructure);
      const acceptedBefore = await probe.postingsAccepted();
      const storeBack = {
        mongo: await probe.mongoCommands(),
        services: await servicesCounts(probe.pipeline),
      };
      await probe.journeysDone(
        'the backlog after the outage delivered',
        outageBefore,
        outageSent.length,
        3_600_000,
      );
      const catchUp = (Date.now() - backAt) / 1000;
      const cpuCaughtUp = await probe.cpu(infrastructure);
      const accepted = (await probe.postingsAccepted()) - acceptedBefore;
      const storeCaughtUp = {
        mongo: await probe.mongoCommands(),
        services: await servicesCounts(probe.pipeline),
      };
      const backlog = Math.max(outageSent.length, 1);
      const recoveryBank = await probe.bank.stats();
      rows.push({
        group: 'pipeline',
        name: `recovery after a ${options.outageSeconds} s bank outage`,
        value: round(catchUp, 1),
        unit: 's to deliver the backlog',
        detail: `${outageSent.length} debits sent during the outage; ${round(outageSent.length / Math.max(catchUp, 0.001), 1)} debits/s and ${round(accepted / Math.max(catchUp, 0.001), 1)} postings/s while catching up; ${orderChecked(recoveryBank.routes.events.accepted, recoveryBank.outOfOrder)}`,
      });
      // What the catch-up cost: the backlog's postings come out of parked lanes, which cost more than
      // postings sent at once (stored, read back, their lanes written).
      rows.push(...cpuRows(cpuBack, cpuCaughtUp, backlog, recoveryPer));
      // And what it wrote: the lanes' appends, claims and settles, and the delivery log's entries.
      rows.push({
        group: 'pipeline',
        name: 'recovery: mongodb write commands per debit of the backlog',
        value: round((storeCaughtUp.mongo.writes - storeBack.mongo.writes) / backlog, 1),
        unit: 'commands',
        detail: `reads ${round((storeCaughtUp.mongo.reads - storeBack.mongo.reads) / backlog, 1)} per debit of the backlog (server-wide counters, over the catch-up's ${round(catchUp, 1)} s: the rest of the backlog's journeys with it); by service: ${servicesMongoBetween(
          storeBack.services,
          storeCaughtUp.services,
          backlog,
        )}`,
      });
      rows.push(
        mongoStatementsRow(
          mongoStatementsBetween(
            eachService(storeBack.services, 'statements'),
            eachService(storeCaughtUp.services, 'statements'),
          ),
          backlog,
          'recovery: mongodb write statements per debit of the backlog',
        ),
      );
    }
    if (journeyRecords.length > 0) {
      const copies = options.postings ?? 0;
      settled.push([
        'event path',
        await settle(probe, infrastructure, 'the event path alone', log, threshold),
      ]);
      log(
        `event path alone: ${copies} journeys' records of rp.events.v1 (${copies * postingsPerDebit} postings)`,
      );
      rows.push(
        ...(await eventPath(
          probe,
          infrastructure,
          eventsTopic,
          journeyRecords,
          copies,
          options.sample,
          options.cpuReference,
        )),
      );
    }
    if (schedulerJourney !== undefined) {
      const copies = options.scheduler ?? 0;
      settled.push(['scheduler', await settle(probe, infrastructure, 'the scheduler alone', log, threshold)]);
      log(`scheduler alone: ${copies} debits' accepted records and report acknowledgements`);
      rows.push(
        ...(await schedulerAlone(
          probe,
          infrastructure,
          schedulerTopics,
          schedulerJourney,
          copies,
          options.cpuReference,
        )),
      );
    }
    rows.push(settleRow(settled));
  } finally {
    stopKeeper();
    rows.push(...(await endBenchPipeline(probe, options.memoryLimits, log)));
  }
  if (options.profileDir !== undefined) rows.push(...profileRows(summarizeProfiles(options.profileDir)));
  return rows;
}

/**
 * The end of a bench's pipeline: its probe closed, every service stopped and the run's topics, subjects
 * and database dropped with it (a local broker loads every partition left); then, when the services ran
 * in memory cgroups, what each held, read once every service has exited so that the peaks are the whole
 * run's, and logged too, so that a run that failed (a service killed for want of memory) still says it.
 */
export async function endBenchPipeline(
  probe: Probe,
  memoryLimits: MemoryCgroups | undefined,
  log: (line: string) => void,
): Promise<Row[]> {
  await probe.close();
  await stopAndDrop(probe.pipeline, log);
  if (memoryLimits === undefined) return [];
  const held = memoryLimitRows(memoryLimits.read());
  for (const row of held) log(`${row.name}: ${row.value} ${row.unit}, ${row.detail}`);
  return held;
}

/**
 * Fifty journeys to warm the pipeline (connections, schemas, JIT), not measured; checks a journey still
 * makes the postings the bench counts on.
 */
export async function warmUp(probe: Probe, root: string): Promise<Sent[]> {
  await probe.bank.reset();
  const warm: Sent[] = [];
  const warmBefore = await probe.completed();
  await bounded(50, 10, async () => {
    warm.push(await probe.send(root));
  });
  await probe.journeysDone('warm-up journeys done', warmBefore, warm.length, 600_000);
  const one = await probe.bank.waitForPostings((warm[0] as Sent).uetr, postingsPerDebit, 60_000);
  if (new Set(one.map((entry) => entry.eventId)).size !== postingsPerDebit)
    throw new Error(
      `a journey has ${one.length} postings, not ${postingsPerDebit}: the bench needs updating`,
    );
  return warm;
}

/** One window of steady offered load, and what the pipeline made of it. */
export interface SteadyWindow {
  readonly rate: number;
  readonly seconds: number;
  readonly sent: readonly Sent[];
  /** Journeys done by the end of the window. */
  readonly completedInWindow: number;
  /** From the end of the window to the last journey done. */
  readonly drainSeconds: number;
  readonly keptUp: boolean;
  readonly postings: number;
  readonly duplicates: number;
  readonly signatureFailures: number;
  /** Postings of the window the bank received after the same or a later stage of their transaction (all). */
  readonly outOfOrder: number;
  readonly kafkaRecords: number;
  /** The services' Kafka requests by service and API (their own counts). */
  readonly kafkaRequests: Record<string, KafkaRequests>;
  readonly mongo: { writes: number; reads: number };
  /** Write and read commands by the service that sent them. */
  readonly mongoBy: Record<string, MongoCommands>;
  /** Write statements of every service, by `collection command`. */
  readonly mongoStatements: Record<string, number>;
  readonly http: number;
  /** The pipeline's storage before the window's other readings and after them. */
  readonly storage: { readonly before: StorageReading; readonly after: StorageReading };
  readonly cpu: { before: CpuReading; after: CpuReading };
  /** PostgreSQL's counters just before the window's other readings and 11 s after them, when the run uses the local stack's. */
  readonly postgres: { before: PostgresCounters | undefined; after: PostgresCounters | undefined };
  /** The CPU reference just before the window and just after its last journey (µs). */
  readonly reference?: { readonly before: CpuReference; readonly after: CpuReference };
  /** Each service's pauses (its event loop's longest delay, collections, stops by cause) around the window. */
  readonly pauses: {
    readonly before: Readonly<Record<string, PauseReading>>;
    readonly after: Readonly<Record<string, PauseReading>>;
  };
  readonly examined: Awaited<ReturnType<typeof examine>>;
  /** When the bank no longer kept the window's first postings: the followed were accepted this late on. */
  readonly followedFrom?: { readonly seconds: number; readonly kept: number };
  /** Each consumer group's records waiting while debits were offered: the most, and at the window's end. */
  readonly lag: LagWindow;
  /** The event publisher's own metrics before the window and after its last journey. */
  readonly publisher: {
    readonly before: ReadonlyMap<string, number>;
    readonly after: ReadonlyMap<string, number>;
  };
  readonly resends: number;
  /** The bank's reports of the window, and the attempts they took (a 503 from the ingress is resent). */
  readonly reports: { readonly sent: number; readonly attempts: number };
}

/**
 * A window is kept up with when its journeys are all done within a tenth of it (at least 5 s) after it
 * and 95% of them took at most this long from the 202 to DEBIT_COMPLETED: a pipeline that keeps up
 * completes a debit in seconds, not after a backlog's worth of others.
 */
const keptUpCompletionP95Ms = 5_000;

/**
 * How often a window reads every service's consumer lag: each reading renders seven services' metrics
 * (a few ms of their CPU), so not more often.
 */
export const lagSampleMs = 2_000;

/** Every consumer group's records waiting, across the running services' own metrics. */
export function consumerLag(pipeline: Pipeline): () => Promise<Map<string, number>> {
  return async () => mergeLag(Object.values(await perRunningService(pipeline, lagByGroup)));
}

/** Offers `rate` debits a second, evenly spaced, for the phase's duration; waits for every journey. */
async function offerSteady(
  probe: Probe,
  options: PipelineBenchOptions,
  rate: number,
  infrastructure: ReadonlyMap<string, number>,
): Promise<SteadyWindow> {
  await probe.bank.reset();
  // Outside every other reading: on the stand-in `dbStats` and `collStats` count the documents, a read of
  // every one (seconds of PostgreSQL's time late in a run), which is not the window's.
  const storageBefore = await probe.storage();
  const postgresBefore = await probe.postgres();
  // Before the readings, so that its own CPU is not the window's.
  const referenceBefore = await options.cpuReference?.();
  const before = {
    completed: await probe.completed(),
    mongo: await probe.mongoCommands(),
    services: await servicesCounts(probe.pipeline),
    kafka: await probe.kafkaRecords(),
    http: await probe.httpAtBank(),
    cpu: await probe.cpu(infrastructure),
    resends: probe.resends,
  };
  const sent: Sent[] = [];
  const interval = 1000 / rate;
  const total = Math.round(rate * options.durationSeconds);
  const lagWatch = watchLag(consumerLag(probe.pipeline), lagSampleMs);
  const start = performance.now();
  const startedAt = Date.now();
  const inFlight: Promise<void>[] = [];
  for (let index = 0; index < total; index += 1) {
    const wait = start + index * interval - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    inFlight.push(probe.send(options.root).then((entry) => void sent.push(entry)));
  }
  await Promise.all(inFlight);
  const windowEnd = Date.now();
  const lag = await lagWatch.end();
  const seconds = (performance.now() - start) / 1000;
  const completedInWindow = (await probe.completed()) - before.completed;
  await probe.journeysDone('every journey of the window done', before.completed, sent.length, 3_600_000);
  const drainSeconds = (Date.now() - windowEnd) / 1000;
  const after = {
    mongo: await probe.mongoCommands(),
    services: await servicesCounts(probe.pipeline),
    kafka: await probe.kafkaRecords(),
    http: await probe.httpAtBank(),
    cpu: await probe.cpu(infrastructure),
  };
  const referenceAfter = await options.cpuReference?.();
  const postgresAfter = await probe.postgres();
  const storageAfter = await probe.storage();
  const stats = await probe.bank.stats();
  const kept = keptJourneys(
    sent,
    { startedAt, seconds },
    { accepted: stats.routes.events.accepted, kept: stats.postingsKept },
  );
  const examined = await examine(probe, kept.journeys, options.sample);
  return {
    rate,
    seconds,
    sent,
    completedInWindow,
    drainSeconds,
    keptUp: drainSeconds <= Math.max(5, seconds / 10) && examined.toCompleted.p95 <= keptUpCompletionP95Ms,
    postings: stats.routes.events.accepted,
    duplicates: stats.duplicates,
    signatureFailures: stats.signatureFailures,
    outOfOrder: stats.outOfOrder,
    kafkaRecords: after.kafka - before.kafka,
    kafkaRequests: kafkaRequestsBetween(
      eachService(before.services, 'kafka'),
      eachService(after.services, 'kafka'),
    ),
    mongo: {
      writes: after.mongo.writes - before.mongo.writes,
      reads: after.mongo.reads - before.mongo.reads,
    },
    mongoStatements: mongoStatementsBetween(
      eachService(before.services, 'statements'),
      eachService(after.services, 'statements'),
    ),
    mongoBy: Object.fromEntries(
      Object.entries(eachService(after.services, 'mongo')).map(([service, commands]) => [
        service,
        {
          writes: commands.writes - (before.services[service]?.mongo.writes ?? 0),
          reads: commands.reads - (before.services[service]?.mongo.reads ?? 0),
        },
      ]),
    ),
    http: after.http - before.http,
    storage: { before: storageBefore, after: storageAfter },
    cpu: { before: before.cpu, after: after.cpu },
    pauses: { before: eachPauses(before.services), after: eachPauses(after.services) },
    postgres: { before: postgresBefore, after: postgresAfter },
    ...(referenceBefore === undefined || referenceAfter === undefined
      ? {}
      : { reference: { before: referenceBefore, after: referenceAfter } }),
    examined,
    ...(kept.fromSeconds > 0
      ? { followedFrom: { seconds: kept.fromSeconds, kept: stats.postingsKept } }
      : {}),
    lag,
    publisher: {
      before: before.services['event-publisher']?.metrics ?? new Map(),
      after: after.services['event-publisher']?.metrics ?? new Map(),
    },
    resends: probe.resends - before.resends,
    reports: { sent: stats.responses.sent, attempts: stats.responses.attempts },
  };
}

/** A window's commands of one kind per debit by the service that sent them, most first. */
function byService(window: SteadyWindow, kind: keyof MongoCommands): string {
  return Object.entries(window.mongoBy)
    .filter(([, commands]) => commands[kind] > 0)
    .sort(([, a], [, b]) => b[kind] - a[kind])
    .map(([service, commands]) => `${service} ${round(commands[kind] / window.sent.length, 2)}`)
    .join(', ');
}

/** A window's Kafka requests per debit: by API, and by the service that sent them, most first. */
export function kafkaRequestsRow(requests: Readonly<Record<string, KafkaRequests>>, debits: number): Row {
  const perDebit = (count: number) => round(count / debits, 2);
  const total = (counts: KafkaRequests) => Object.values(counts).reduce((sum, count) => sum + count, 0);
  const byApi = [...kafkaRequestApis, 'other' as const].map(
    (api) => `${api} ${perDebit(Object.values(requests).reduce((sum, counts) => sum + counts[api], 0))}`,
  );
  const byService = Object.entries(requests)
    .filter(([, counts]) => total(counts) > 0)
    .sort(([, a], [, b]) => total(b) - total(a))
    .map(
      ([service, counts]) =>
        `${service} ${perDebit(total(counts))} (Produce ${perDebit(counts.Produce)}, Fetch ${perDebit(counts.Fetch)})`,
    );
  return {
    group: 'pipeline',
    name: 'kafka requests per debit',
    value: round(Object.values(requests).reduce((sum, counts) => sum + total(counts), 0) / debits, 1),
    unit: 'requests',
    detail: `the services' own counts, by API: ${byApi.join(', ')}; by service: ${byService.join(', ')}`,
  };
}

/** The figures of the highest steady rate the pipeline kept up with. */
function steadyRows(window: SteadyWindow, tried: readonly string[], durationSeconds: number): Row[] {
  const debits = window.sent.length;
  return [
    {
      group: 'pipeline',
      name: 'on-us debits sustained through the whole journey',
      value: round(window.rate, 1),
      unit: 'debits/s',
      detail: `${debits} sent evenly over ${round(window.seconds, 1)} s, ${debits} completed (nothing lost): ${window.completedInWindow} within the window, the last ${round(window.drainSeconds, 1)} s after it; rates tried: ${tried.join(', ')} (${durationSeconds} s each)`,
    },
    ...windowRows(window),
  ];
}

/**
 * When no rate kept up: no sustained rate, but the figures a debit of the slowest window tried (its
 * journeys all finished, only later than a window kept up with would), each marked as such. A debit's
 * CPU, records and writes do not depend on whether the pipeline kept up; the postings a second, taken
 * over the window and its drain, are a lower bound.
 */
export function fellBehindRows(windows: readonly SteadyWindow[], tried: readonly string[]): Row[] {
  const headline: Row = {
    group: 'pipeline',
    name: 'on-us debits sustained through the whole journey',
    value: 0,
    unit: 'debits/s',
    detail: `no rate tried kept up: ${tried.join(', ')}`,
  };
  const slowest = [...windows].sort((a, b) => a.rate - b.rate)[0];
  if (slowest === undefined || slowest.sent.length === 0) return [headline];
  const mark = `from the window at ${round(slowest.rate, 1)} debits/s, which fell behind (the last journey ${round(slowest.drainSeconds, 1)} s after it)`;
  return [
    headline,
    ...windowRows(slowest).map((row) => ({
      ...row,
      detail: row.detail === undefined || row.detail === '' ? mark : `${mark}; ${row.detail}`,
    })),
  ];
}

/**
 * Where the lowest window that fell behind spent itself: each consumer group's records waiting, the
 * event publisher's batches and posts in flight, and the cores each process used, over the window and
 * its drain.
 */
export function behindRows(window: SteadyWindow): Row[] {
  const phase = `the lowest window that fell behind (${round(window.rate, 1)} debits/s)`;
  const seconds = window.seconds + window.drainSeconds;
  const { machine, processes } = cpuBetween(window.cpu.before, window.cpu.after);
  return [
    lagRow(phase, window.lag),
    publisherConsumerRow(
      window.publisher.before,
      window.publisher.after,
      seconds,
      partitionsConcurrently(),
      `${phase}: `,
    ),
    {
      group: 'pipeline',
      name: `cores each process used in ${phase} and its drain`,
      value: machine === undefined ? 0 : round(machine.busy / seconds, 2),
      unit: 'cores (the machine)',
      detail: `over ${round(seconds, 1)} s: ${processes.map(([name, used]) => `${name} ${round(used / seconds, 2)}`).join(', ')}`,
    },
  ];
}

/** A steady window's figures a debit: postings, Kafka, MongoDB, HTTP, completion latency and CPU. */
function windowRows(window: SteadyWindow): Row[] {
  const debits = window.sent.length;
  const elapsed = window.seconds + window.drainSeconds;
  return [
    {
      group: 'pipeline',
      name: 'event postings delivered at the sustained rate (both classes)',
      value: round(window.postings / elapsed, 1),
      unit: 'postings/s',
      detail: `${window.postings} postings, ${window.duplicates} duplicates, ${window.signatureFailures} signature failures; ${orderChecked(window.postings, window.outOfOrder)}; ${window.examined.sampled} transactions followed${window.followedFrom === undefined ? '' : ` (accepted ${window.followedFrom.seconds} s or more into the window: the bank simulator keeps the latest ${window.followedFrom.kept} postings)`}: ${window.examined.outOfOrder} out of order, ${window.examined.incomplete} incomplete`,
    },
    {
      group: 'pipeline',
      name: 'kafka records written per debit',
      value: round(window.kafkaRecords / debits, 1),
      unit: 'records',
    },
    kafkaRequestsRow(window.kafkaRequests, debits),
    {
      group: 'pipeline',
      name: 'mongodb write commands per debit',
      value: round(window.mongo.writes / debits, 1),
      unit: 'commands',
      detail: `reads ${round(window.mongo.reads / debits, 1)} per debit (server-wide counters); writes by service: ${byService(
        window,
        'writes',
      )}; reads by service: ${byService(window, 'reads')}`,
    },
    mongoStatementsRow(window.mongoStatements, debits),
    pausesRow('the sustained window', window.pauses.before, window.pauses.after),
    lagRow('the sustained window', window.lag),
    publisherConsumerRow(
      window.publisher.before,
      window.publisher.after,
      window.seconds + window.drainSeconds,
      partitionsConcurrently(),
      'the sustained window: ',
    ),
    {
      group: 'pipeline',
      name: 'http requests per debit',
      value: round((window.http + 2 * debits) / debits, 1),
      unit: 'requests',
      detail: `at the bank simulator, plus the debit and the status report at the ingress; ${window.resends} debits resent after a 503, the bank's ${window.reports.sent} reports sent in ${window.reports.attempts} attempts`,
    },
    storageRow(window.storage.before, window.storage.after, debits),
    {
      group: 'pipeline',
      name: '202 to DEBIT_COMPLETED at the sustained rate, p50 / p95 / p99',
      value: round(window.examined.toCompleted.p99, 0),
      unit: 'ms (p99)',
      detail: `${round(window.examined.toCompleted.p50, 0)} / ${round(window.examined.toCompleted.p95, 0)} / ${round(window.examined.toCompleted.p99, 0)} ms over ${window.examined.toCompleted.count}`,
    },
    ...cpuRows(window.cpu.before, window.cpu.after, debits),
    ...postgresRows(window.postgres.before, window.postgres.after, debits, perDebit),
    ...(window.reference === undefined
      ? []
      : cpuReferenceRows(window.cpu.before, window.cpu.after, debits, window.reference)),
  ];
}

/**
 * Each service's profile: its busy time and the packages it went to, most first; then the functions of
 * the busiest service by self time.
 */
export function profileRows(profiles: ReadonlyMap<string, ProfileSummary>): Row[] {
  const rows: Row[] = [];
  const busiest = [...profiles].sort((a, b) => b[1].busyMs - a[1].busyMs);
  for (const [service, summary] of busiest) {
    rows.push({
      group: 'profile',
      name: `${service}: CPU over the run`,
      value: round(summary.busyMs / 1000, 1),
      unit: 's',
      detail: summary.packages
        .slice(0, 5)
        .map((share) => `${share.name} ${share.percent}%`)
        .join(', '),
    });
  }
  const [hottest, summary] = busiest[0] ?? [];
  if (hottest !== undefined && summary !== undefined) {
    for (const share of summary.functions.slice(0, 10)) {
      rows.push({
        group: 'profile',
        name: `${hottest} self time: ${share.name}`,
        value: share.percent,
        unit: '% of its CPU',
      });
    }
  }
  return rows;
}

type CpuReading = Awaited<ReturnType<Probe['cpu']>>;

/**
 * The busy seconds the machine's own processes ran: a second stolen by the hypervisor is busy (a core
 * this machine wanted was not to be had) but no work of a debit's, so what a debit or a posting costs is
 * counted in these. Without steal the two are the same.
 */
function ownCpu<T extends { readonly busy: number; readonly steal: number }>(machine: T) {
  return { ...machine, own: Math.max(0, machine.busy - machine.steal) };
}

/** The busy seconds the hypervisor gave another guest, said when there were any to speak of. */
function stolen(machine: { readonly steal: number }): string {
  return machine.steal < 0.05
    ? ''
    : ` (${round(machine.steal, 1)} of them stolen: the hypervisor ran another guest on a core this machine wanted)`;
}

/**
 * What the CPU did between two readings: the machine's busy and total core-seconds (when /proc tells),
 * of the busy ones those stolen and those its own (the rest: what its processes ran), and each process's
 * seconds, most first (a process the first reading did not see left out).
 */
export function cpuBetween(before: CpuReading, after: CpuReading) {
  const machine =
    before.machine && after.machine
      ? ownCpu({
          busy: after.machine.busySeconds - before.machine.busySeconds,
          total: after.machine.totalSeconds - before.machine.totalSeconds,
          steal: after.machine.stealSeconds - before.machine.stealSeconds,
          contextSwitches: after.machine.contextSwitches - before.machine.contextSwitches,
        })
      : undefined;
  const processes = [...after.processes]
    .filter(([name]) => before.processes.has(name))
    .map(([name, seconds]) => [name, seconds - (before.processes.get(name) ?? seconds)] as const)
    .sort((a, b) => b[1] - a[1]);
  const switches = new Map<string, Switches>();
  for (const [name, counts] of after.switches) {
    const earlier = before.switches.get(name);
    if (earlier === undefined) continue;
    switches.set(name, switchesBetween(earlier, counts));
  }
  return { machine, processes, switches };
}

/**
 * The machine counts as settled below this share of all cores busy with nothing sent, or below the idle
 * reading's share and 5 points more once there is one (a slow hour's idle pipeline alone can be near 15%).
 */
export const settledBusyPercent = 15;
const settledAboveIdle = 5;

/** Below what share of all cores busy the machine counts as settled, given the idle reading if any. */
export function settleThreshold(idleBusyPercent?: number): number {
  return idleBusyPercent === undefined
    ? settledBusyPercent
    : Math.max(settledBusyPercent, idleBusyPercent + settledAboveIdle);
}

/** How long the bench waits for the machine to settle before a phase, at most. */
const settleLimitSeconds = 180;
const settleSampleSeconds = 3;

/** How a wait for the machine to settle went: how long, and how busy it was over the last sample. */
export interface Settled {
  readonly seconds: number;
  /** The share of all cores below which it counted as settled. */
  readonly thresholdPercent: number;
  readonly busyPercent: number;
  /** The busiest process over the last sample, and its share of one core. */
  readonly busiest?: { readonly name: string; readonly percentOfCore: number };
}

/**
 * Whether a sample of the machine's CPU, taken with nothing sent, shows it settled; and what was busy.
 * A sample without the machine's counters counts as settled (nothing to wait on).
 */
export function settledBetween(
  before: CpuReading,
  after: CpuReading,
  seconds: number,
  thresholdPercent = settledBusyPercent,
): { settled: boolean; busyPercent: number; busiest?: Settled['busiest'] } {
  const { machine, processes } = cpuBetween(before, after);
  if (!machine || machine.total <= 0) return { settled: true, busyPercent: 0 };
  const busyPercent = (100 * machine.busy) / machine.total;
  const [top] = processes.filter(([name]) => !name.startsWith('bench'));
  return {
    settled: busyPercent < thresholdPercent,
    busyPercent,
    ...(top === undefined || seconds <= 0
      ? {}
      : { busiest: { name: top[0], percentOfCore: (100 * top[1]) / seconds } }),
  };
}

/** The CPU readings at the start and the end of `seconds` of waiting, and the seconds they span. */
async function cpuOver(probe: Probe, infrastructure: ReadonlyMap<string, number>, seconds: number) {
  const before = await probe.cpu(infrastructure);
  const started = performance.now();
  await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
  return { before, after: await probe.cpu(infrastructure), seconds: (performance.now() - started) / 1000 };
}

/**
 * Waits, with nothing sent, until the machine is no longer busy with what came before (a drain's
 * leftovers: PostgreSQL's autovacuum, the broker's log cleaning, a service's garbage collection), so a
 * phase measures its own load; at most `settleLimitSeconds`, then the phase starts all the same.
 */
export async function settle(
  probe: Probe,
  infrastructure: ReadonlyMap<string, number>,
  before: string,
  log: (line: string) => void,
  thresholdPercent: number,
): Promise<Settled> {
  const started = performance.now();
  for (;;) {
    const reading = await cpuOver(probe, infrastructure, settleSampleSeconds);
    const sample = settledBetween(reading.before, reading.after, reading.seconds, thresholdPercent);
    const seconds = (performance.now() - started) / 1000;
    if (sample.settled || seconds >= settleLimitSeconds) {
      const busiest = sample.busiest
        ? `; busiest ${sample.busiest.name} at ${round(sample.busiest.percentOfCore, 0)}% of a core`
        : '';
      log(
        `  ${sample.settled ? 'settled' : 'not settled'} before ${before} after ${round(seconds, 0)} s (${round(sample.busyPercent, 0)}% busy, under ${round(thresholdPercent, 0)}% wanted${busiest})`,
      );
      return {
        seconds,
        thresholdPercent,
        busyPercent: sample.busyPercent,
        ...(sample.busiest ? { busiest: sample.busiest } : {}),
      };
    }
  }
}

/** The waits for the machine to settle before the phases, as one row. */
export function settleRow(waits: readonly (readonly [string, Settled])[]): Row {
  const total = waits.reduce((sum, [, wait]) => sum + wait.seconds, 0);
  const unsettled = waits.filter(([, wait]) => wait.busyPercent >= wait.thresholdPercent).length;
  return {
    group: 'pipeline',
    name: 'waits for the machine to settle before the phases',
    value: round(total, 0),
    unit: 's',
    detail: `until a ${settleSampleSeconds} s sample with nothing sent finds the machine under the share of all cores given (${settledBusyPercent}%, or the idle reading's and ${settledAboveIdle} points more), at most ${settleLimitSeconds} s each${unsettled > 0 ? `; ${unsettled} not settled in time` : ''}: ${waits
      .map(
        ([phase, wait]) =>
          `${phase} ${round(wait.seconds, 0)} s (${round(wait.busyPercent, 0)}% of under ${round(wait.thresholdPercent, 0)}%${wait.busiest ? `, ${wait.busiest.name} ${round(wait.busiest.percentOfCore, 0)}% of a core` : ''})`,
      )
      .join(', ')}`,
  };
}

/**
 * The CPU spent with nothing sent: the machine's busy share and each process's, as a percentage of one
 * core (the bench's own process left out: it is waiting).
 */
export function idleCpuRows(before: CpuReading, after: CpuReading, seconds: number): Row[] {
  const rows: Row[] = [];
  const { machine, processes, switches } = cpuBetween(before, after);
  if (machine) {
    const perSecond =
      machine.contextSwitches > 0
        ? `; ${round(machine.contextSwitches / seconds, 0)} context switches a second`
        : '';
    rows.push({
      group: 'pipeline',
      name: 'machine CPU busy while idle',
      value: round((100 * machine.busy) / machine.total, 1),
      unit: '% of all cores',
      detail: `${round(machine.busy, 1)} of ${round(machine.total, 0)} core-seconds with nothing sent${stolen(machine)}${perSecond}`,
    });
  }
  for (const [name, cpuSeconds] of processes) {
    if (name.startsWith('bench')) continue;
    const counts = switches.get(name);
    rows.push({
      group: 'pipeline',
      name: `CPU while idle: ${name}`,
      value: round((100 * cpuSeconds) / seconds, 1),
      unit: '% of a core',
      ...(counts === undefined
        ? {}
        : {
            detail: `${round(counts.voluntary / seconds, 0)} waits and ${round(counts.involuntary / seconds, 1)} preemptions a second`,
          }),
    });
  }
  return rows;
}

/**
 * The machine's speed beside a phase (the CPU reference just before it and just after its end, on one
 * thread, on every core at once, and on one thread in its own CPU time), and the machine's CPU a debit (or
 * a posting: `per`) in units of each: the figures to compare across runs (of the sustained window, at one
 * rate: a debit's share of what is batched depends on the rate), since the reference slows with the
 * machine and none of the engine's code is in it. The one-thread reading is a core's speed alone; the
 * all-cores reading is the machine's as the pipeline's processes use it together, and also counts what
 * the cores take from each other; the CPU-time reading is a core's speed while it runs, waits and stolen
 * time left out. The machine's CPU is its own busy time, the seconds stolen by the hypervisor left out.
 */
export function cpuReferenceRows(
  before: CpuReading,
  after: CpuReading,
  completed: number,
  reference: { readonly before: CpuReference; readonly after: CpuReference },
  per: CpuPer = perDebit,
): Row[] {
  // The sustained window's rows have no prefix; every other phase's rows name their phase.
  const window = per.prefix === undefined;
  const beside = window ? 'the sustained window' : 'the phase';
  const start = window ? 'the window' : 'the phase';
  const end = window ? 'journey' : per.noun;
  const readings = (which: keyof CpuReference) => {
    const at = { before: reference.before[which], after: reference.after[which] };
    return {
      mean: (at.before + at.after) / 2,
      detail: `${round(at.before, 1)} µs just before ${start}, ${round(at.after, 1)} µs just after its last ${end}`,
    };
  };
  const one = readings('oneThread');
  const all = readings('allCores');
  const own = readings('oneThreadCpu');
  const rows: Row[] = [
    {
      group: 'pipeline',
      name: `${per.prefix ?? ''}CPU reference beside ${beside} (fixed work on a journey's example messages)`,
      value: round(one.mean, 1),
      unit: 'µs',
      detail: `${one.detail}; one thread, no I/O: a core's speed at the time`,
    },
    {
      group: 'pipeline',
      name: `${per.prefix ?? ''}CPU reference on every core at once beside ${beside}`,
      value: round(all.mean, 1),
      unit: 'µs',
      detail: `${all.detail}; the same work on a thread a core, started together, the median round: the whole machine's speed at the time, ${round(all.mean / one.mean, 2)} times the one-thread reading`,
    },
    {
      group: 'pipeline',
      name: `${per.prefix ?? ''}CPU reference in its thread's CPU time beside ${beside}`,
      value: round(own.mean, 1),
      unit: 'µs',
      detail: `${own.detail}; the one-thread reading's rounds, all of them, in the thread's own CPU time: a core's speed while it runs, its waits for a core and the time stolen from it left out, ${round(own.mean / one.mean, 2)} times the one-thread reading`,
    },
  ];
  const { machine } = cpuBetween(before, after);
  if (machine && one.mean > 0 && all.mean > 0 && own.mean > 0) {
    const perItemUs = (1_000_000 * machine.own) / completed;
    const figure = (us: number) => (per.unit === 'ms' ? `${round(us / 1000, 1)} ms` : `${round(us, 0)} µs`);
    const inUnits = (name: string, mean: number, label: string): Row => ({
      group: 'pipeline',
      name: `${per.prefix ?? ''}machine CPU per ${per.noun} in ${name}`,
      value: round(perItemUs / mean, per.unit === 'ms' ? 0 : 2),
      unit: 'references',
      detail: `${figure(perItemUs)} a ${per.noun} over the ${round(mean, 1)} µs ${label}: the CPU a ${per.noun} costs with the machine's speed taken out`,
    });
    rows.push(
      inUnits('CPU references', one.mean, 'reference'),
      inUnits('all-core CPU references', all.mean, 'all-core reference'),
      inUnits('CPU-time references', own.mean, 'CPU-time reference'),
    );
  }
  return rows;
}

/** What `cpuRows` divides the CPU by, and how its rows are named. */
export interface CpuPer {
  /** The busy row's name. */
  readonly busy: string;
  /** What one of `completed` is, singular: each process's row is "CPU per {noun}: {process}". */
  readonly noun: string;
  /** Each process's figure in milliseconds or microseconds of CPU a `noun`. */
  readonly unit: 'ms' | 'µs';
  /** Put before each process row's name. */
  readonly prefix?: string;
}

const perDebit: CpuPer = { busy: 'machine CPU busy at the sustained rate', noun: 'debit', unit: 'ms' };

/**
 * The CPU of a phase: how busy the machine was, and each process's CPU time per completed debit (or
 * whatever `per` counts), most first, with its share of the machine's busy time. What the phase's rate
 * is bound by when the machine is near saturation. The machine's CPU a debit, and the shares, are of its
 * own busy time: the seconds the hypervisor stole are said, and left out.
 */
export function cpuRows(
  before: CpuReading,
  after: CpuReading,
  completed: number,
  per: CpuPer = perDebit,
): Row[] {
  const rows: Row[] = [];
  const { machine, processes, switches } = cpuBetween(before, after);
  const scale = per.unit === 'ms' ? 1_000 : 1_000_000;
  // A debit's switches are tens or hundreds; a posting's, or a released debit's, a few or under one.
  const countDigits = per.unit === 'ms' ? 1 : 2;
  if (machine) {
    rows.push({
      group: 'pipeline',
      name: per.busy,
      value: round((100 * machine.busy) / machine.total, 0),
      unit: '% of all cores',
      detail: `${round(machine.busy, 0)} of ${round(machine.total, 0)} core-seconds${stolen(machine)}; ${round((scale * machine.own) / completed, 0)} ${per.unit} per ${per.noun}${machine.steal < 0.05 ? '' : ', the stolen seconds left out'}`,
    });
    if (machine.contextSwitches > 0) {
      rows.push({
        group: 'pipeline',
        name: `${per.prefix ?? ''}context switches per ${per.noun}`,
        value: round(machine.contextSwitches / completed, countDigits),
        unit: 'switches',
        detail: `every core's (/proc/stat), each a core going from one thread to another: ${round((1_000_000 * machine.own) / machine.contextSwitches, 0)} µs of the machine's CPU a switch`,
      });
    }
  }
  for (const [name, seconds] of processes) {
    const counts = switches.get(name);
    const share =
      machine === undefined ? '' : `${round((100 * seconds) / machine.own, 0)}% of the machine's busy time`;
    const waits =
      counts === undefined
        ? ''
        : `${round(counts.voluntary / completed, countDigits)} waits and ${round(counts.involuntary / completed, countDigits)} preemptions a ${per.noun} (its threads' context switches)`;
    rows.push({
      group: 'pipeline',
      name: `${per.prefix ?? ''}CPU per ${per.noun}: ${name}`,
      value: round((scale * seconds) / completed, 1),
      unit: per.unit,
      detail: [share, waits].filter((part) => part !== '').join('; '),
    });
  }
  return rows;
}
