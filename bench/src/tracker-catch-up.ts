import { avroTypeOptions, type TransactionStateChanged } from '@rp/contracts';
import { consumerGroupName, createAvroSerde, createKafka } from '@rp/kafka';
import { ownedByRun } from '@rp/launcher';
import { dropOwned } from '@rp/local-stack';
import { createPipelineProducer, resolveTopicNames, topicSpecs } from '@rp/pipeline';
import { createLogger, createMetrics } from '@rp/runtime';
import { connectStore } from '@rp/store';
import {
  consumedTopics,
  createPlainCodecs,
  createTrackerService,
  producedTopics,
  serviceName,
} from '@rp/tracker';
import { Kafka, logLevel } from 'kafkajs';
import { machineCpu } from './cpu.ts';
import type { BenchEndpoints } from './endpoints.ts';
import type { Row } from './report.ts';
import { metricValue, parsePrometheus, round } from './stats.ts';
import { debitJourneys } from './tracker-memory.ts';

export interface TrackerCatchUpOptions {
  readonly root: string;
  readonly endpoints: BenchEndpoints;
  readonly run: string;
  /** Debits in the backlog. */
  readonly debits: number;
  /** The rate the backlog was made at: journey i starts at i / rate seconds. */
  readonly rate: number;
  /** How long a journey's nine changes are spread over (its first to its last). */
  readonly journeySeconds: number;
  /** How long the tracker is away: it starts this long after the backlog began. */
  readonly outageSeconds: number;
  /** Runs of each setting, alternating. */
  readonly rounds: number;
}

/** A setting of TRACKER_SNAPSHOT_INTERVAL. */
interface Setting {
  readonly name: string;
  readonly intervalMs: number;
}

const settings: readonly Setting[] = [
  { name: '500 ms (the default)', intervalMs: 500 },
  { name: '5 s', intervalMs: 5_000 },
];

interface CatchUp {
  readonly setting: Setting;
  /** From the start until every posting was produced. */
  readonly postedSeconds: number;
  /** From the start until every record's offset was committed (its snapshot written). */
  readonly seconds: number;
  readonly records: number;
  /** Transactions' snapshot updates (statements), and the commands they went in. */
  readonly snapshotWrites: number;
  readonly snapshotCommands: number;
  readonly machineCpuSeconds: number | undefined;
  readonly processCpuSeconds: number;
  /** The most transactions whose changes waited for their write at once (sampled). */
  readonly mostWaiting: number;
}

/**
 * The tracker catching up on a backlog of state changes, as after it was away (a crash, a deploy, a
 * MongoDB outage) while the other services went on: `debits` journeys made at `rate` a second, each
 * journey's changes `journeySeconds` apart from first to last, interleaved as the emitters produce them;
 * the tracker starts `outageSeconds` after the first of them. Measured from its start until its group
 * has committed every record (so every snapshot is written): how long, how many snapshot writes a debit,
 * and the machine's CPU a debit, for each setting of the snapshot interval, each round on its own topics
 * and database. The tracker runs in this process; the machine's CPU takes in Kafka and the store.
 */
export async function trackerCatchUpBench(
  options: TrackerCatchUpOptions,
  log: (line: string) => void,
): Promise<Row[]> {
  const results: CatchUp[] = [];
  for (let round = 0; round < options.rounds; round += 1) {
    for (const setting of settings) {
      const result = await catchUpOnce(options, setting, `${options.run}-${round}-${setting.intervalMs}ms`);
      log(
        `tracker catch-up, ${setting.name}: ${result.records} records applied in ${round2(result.postedSeconds)} s, committed in ${round2(result.seconds)} s, ${round2(result.snapshotWrites / options.debits)} snapshot updates a debit`,
      );
      results.push(result);
    }
  }
  return settings.map((setting) =>
    catchUpRow(
      options,
      results.filter((result) => result.setting === setting),
    ),
  );
}

const round2 = (value: number) => round(value, 2);

function catchUpRow(options: TrackerCatchUpOptions, runs: readonly CatchUp[]): Row {
  const setting = runs[0]?.setting ?? (settings[0] as Setting);
  const per = (value: number) => value / options.debits;
  const list = (values: readonly (number | undefined)[], digits: number) =>
    values.map((value) => (value === undefined ? 'n/a' : String(round(value, digits)))).join(', ');
  const rates = runs.map((run) => run.records / run.postedSeconds);
  return {
    group: 'pipeline',
    name: `tracker catch-up: records a second, the snapshot interval ${setting.name}`,
    value: Math.round(rates.reduce((sum, rate) => sum + rate, 0) / Math.max(1, rates.length)),
    unit: 'records/s',
    detail: `${options.debits} debits' ${options.debits * 9} state changes made at ${options.rate} debits/s, each journey's over ${options.journeySeconds} s, the tracker started ${options.outageSeconds} s after the first; by run: ${list(rates, 0)} records/s applied; committed in ${list(
      runs.map((run) => run.seconds),
      1,
    )} s (every change applied, its postings produced, in ${list(
      runs.map((run) => run.postedSeconds),
      1,
    )} s); snapshot updates a debit ${list(
      runs.map((run) => per(run.snapshotWrites)),
      2,
    )} (in ${list(
      runs.map((run) => per(run.snapshotCommands)),
      3,
    )} commands); the machine's CPU a debit ${list(
      runs.map((run) =>
        run.machineCpuSeconds === undefined ? undefined : per(run.machineCpuSeconds) * 1000,
      ),
      2,
    )} ms, the process's own (the tracker's, with the bench's reads of its progress) ${list(
      runs.map((run) => per(run.processCpuSeconds) * 1000),
      2,
    )} ms; at most ${list(
      runs.map((run) => run.mostWaiting),
      0,
    )} transactions' writes waiting at once (sampled every 100 ms)`,
  };
}

async function catchUpOnce(options: TrackerCatchUpOptions, setting: Setting, run: string): Promise<CatchUp> {
  const logger = createLogger({ service: 'bench-tracker', level: 'warn' });
  const names = resolveTopicNames(run);
  const kafka = createKafka({ brokers: [...options.endpoints.kafkaBrokers], clientId: run, logger });
  const raw = new Kafka({
    brokers: [...options.endpoints.kafkaBrokers],
    clientId: `${run}-admin`,
    logLevel: logLevel.NOTHING,
  });
  const admin = raw.admin();
  const serde = createAvroSerde({
    registryUrl: options.endpoints.schemaRegistryUrl,
    avro: avroTypeOptions(),
  });
  let snapshotWrites = 0;
  let snapshotCommands = 0;
  const database = run.replace(/[-.]/g, '_');
  const store = await connectStore({
    uri: options.endpoints.mongodbUri,
    database,
    appName: run,
    onCommand: (event) => {
      if (event.collection !== 'transactions' || event.statements === undefined) return;
      snapshotWrites += event.statements;
      snapshotCommands += 1;
    },
  });
  await admin.connect();
  try {
    await kafka.ensureTopics(topicSpecs(names));
    await store.ensureIndexes();
    const codecs = await createPlainCodecs(serde, names, [...consumedTopics, ...producedTopics]);
    const producer = createPipelineProducer(kafka, names, codecs);
    const stateTopic = names['rp.transaction.state.v1'];
    try {
      // The backlog, in the order the emitters would have made it.
      const began = performance.now();
      const changes = interleaved(
        debitJourneys(options.root, options.debits),
        options.rate,
        options.journeySeconds,
      );
      for (let start = 0; start < changes.length; start += 1_000) {
        await producer.send(
          'rp.transaction.state.v1',
          changes.slice(start, start + 1_000).map((value) => ({ key: value.uetr, value })),
        );
      }
      const away = options.outageSeconds * 1000 - (performance.now() - began);
      if (away > 0) await new Promise((resolve) => setTimeout(resolve, away));
      const ends = await admin.fetchTopicOffsets(stateTopic);
      const records = ends.reduce((sum, partition) => sum + Number(partition.high), 0);

      const metrics = createMetrics({ service: serviceName, defaultMetrics: false });
      const tracker = createTrackerService({
        kafka,
        names,
        codecs,
        producer,
        store,
        logger,
        metrics,
        options: { snapshotIntervalMs: setting.intervalMs },
      });
      const cpuBefore = machineCpu();
      const processBefore = process.cpuUsage();
      snapshotWrites = 0;
      snapshotCommands = 0;
      const started = performance.now();
      let posted: number | undefined;
      await tracker.start();
      const groupId = consumerGroupName(serviceName, stateTopic);
      let mostWaiting = 0;
      try {
        for (;;) {
          const values = parsePrometheus((await metrics.render()).body);
          mostWaiting = Math.max(mostWaiting, metricValue(values, 'rp_tracker_snapshots_waiting'));
          // Applied: its postings produced (the snapshot may still wait).
          const applied = metricValue(values, 'rp_tracker_state_changes_total', { outcome: 'applied' });
          if (posted === undefined && applied >= records) posted = performance.now();
          const committed =
            (await admin.fetchOffsets({ groupId, topics: [stateTopic] }))[0]?.partitions ?? [];
          const done = committed.reduce((sum, partition) => sum + Math.max(0, Number(partition.offset)), 0);
          if (done >= records) break;
          if (!tracker.isRunning()) throw new Error('the tracker stopped while catching up');
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      } finally {
        await tracker.stop();
      }
      const seconds = (performance.now() - started) / 1000;
      const cpuAfter = machineCpu();
      const processCpu = process.cpuUsage(processBefore);
      return {
        setting,
        postedSeconds: ((posted ?? performance.now()) - started) / 1000,
        seconds,
        records,
        snapshotWrites,
        snapshotCommands,
        machineCpuSeconds:
          cpuBefore === undefined || cpuAfter === undefined
            ? undefined
            : cpuAfter.busySeconds - cpuBefore.busySeconds,
        processCpuSeconds: (processCpu.user + processCpu.system) / 1e6,
        mostWaiting,
      };
    } finally {
      await producer.disconnect();
    }
  } finally {
    await admin.disconnect();
    await store.close();
    await kafka.close();
    // The run's topics (its namespace's, and the tracker's retry and dead-letter topics named after
    // them), their schema subjects and its database.
    await dropOwned({ ...options.endpoints, kafkaBrokers: [...options.endpoints.kafkaBrokers] }, (name) =>
      ownedByRun(name, run, database),
    );
  }
}

/**
 * The journeys' changes in the order they would reach the state topic: journey i begins at i / rate
 * seconds, its changes evenly spread over `journeySeconds`; one journey's in their own order.
 */
export function interleaved(
  journeys: readonly (readonly TransactionStateChanged[])[],
  rate: number,
  journeySeconds: number,
): TransactionStateChanged[] {
  const timed: { at: number; order: number; value: TransactionStateChanged }[] = [];
  journeys.forEach((journey, index) => {
    const step = journey.length > 1 ? journeySeconds / (journey.length - 1) : 0;
    journey.forEach((value, position) => {
      timed.push({ at: index / rate + position * step, order: timed.length, value });
    });
  });
  timed.sort((a, b) => a.at - b.at || a.order - b.order);
  return timed.map((entry) => entry.value);
}
