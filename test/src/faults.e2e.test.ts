import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SchemaRegistry } from '@kafkajs/confluent-schema-registry';
import { zstdCodec } from '@rp/kafka';
import type { PipelineService } from '@rp/launcher';
import { type ComponentName, killComponent, readStackEnv, stackUp } from '@rp/local-stack';
import { CompressionCodecs, CompressionTypes, Kafka, logLevel } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clearOfDayEndFor } from './day-end.ts';
import {
  booksOf,
  completedPosting,
  type FaultRow,
  formatFaultTable,
  type SendOutcome,
  sendUntilAccepted,
  summariseAnswers,
  type TransactionBooks,
  type TransactionKind,
} from './faults.ts';
import { type EndToEnd, mapBounded, root, startEndToEnd, waitUntil } from './pipeline.ts';

// The fault suite: on-us debits sent the way a bank sends them, and one in ten a credit transfer
// authorisation sent the way the clearing house sends it (each resent after a refusal or a lost
// connection until answered 202), one fault injected while they are in flight, then the books: every
// transaction answered 202 completed (lost: 0), no stage posted or message sent under two ids
// (duplicated: 0), every transaction's postings in its journey's order (out of order: 0). Each fault is
// one round on the same running pipeline and local stack.
//
// `npm run test:faults` runs it at full size (2,500 transactions a round, the fault at 1,000 in flight, the
// bank down for 60 s); the test suite runs a reduced form (RP_FAULTS_TRANSACTIONS, RP_FAULTS_IN_FLIGHT,
// RP_FAULTS_OUTAGE_MS, RP_FAULTS to pick rounds).

const transactions = Number(process.env.RP_FAULTS_TRANSACTIONS ?? 100);
const outageMs = Number(process.env.RP_FAULTS_OUTAGE_MS ?? 15_000);
const only = process.env.RP_FAULTS?.split(',').map((name) => name.trim());
const concurrency = Number(process.env.RP_FAULTS_CONCURRENCY ?? 16);
/**
 * The fault is injected once this many transactions are in flight (answered 202, not yet complete), or
 * once the round's last one is sent if they never are; the rest of the round is sent during the fault.
 */
const inFlightTarget = Number(process.env.RP_FAULTS_IN_FLIGHT ?? Math.ceil(transactions * 0.6));
/** A round's transactions must all be complete this long after the fault ended. */
const drainDeadlineMs = Number(process.env.RP_FAULTS_DRAIN_MS ?? 10 * 60_000);
/**
 * What a round may take from its first transaction to its books, at most, when all goes well: no round
 * starts nearer than that to midnight in Johannesburg, whose reconciliation close would cut it short.
 */
const roundBudgetMs = Number(process.env.RP_FAULTS_ROUND_BUDGET_MS ?? 8 * 60_000);
/** The bank both kinds are booked at: the debits' initiating bank, the credits' creditor bank. */
const bank = '250655';
/** Every `creditEvery`th transaction of a round is a credit from the clearing house. */
const creditEvery = 10;
const kindOf = (index: number): TransactionKind =>
  index % creditEvery === creditEvery - 1 ? 'credit' : 'debit';

let e2e: EndToEnd;
const rows: FaultRow[] = [];

/**
 * The pipeline writes zstd batches (below), which kafkajs reads only with a codec given to it: the suite's
 * own consumers get one, and every batch they decompress is counted.
 */
let zstdBatchesRead = 0;
(CompressionCodecs as Record<number, () => unknown>)[CompressionTypes.ZSTD] = () => ({
  compress: zstdCodec.compress,
  async decompress(buffer: Buffer) {
    zstdBatchesRead += 1;
    return zstdCodec.decompress(buffer);
  },
});

beforeAll(async () => {
  // Production's bank request timeout (10 s): a slow bank is one slower than that. Records in zstd
  // batches, as the Kubernetes base writes them: every hop, retry tier and dead letter through the faults.
  e2e = await startEndToEnd({
    env: { KAFKA_COMPRESSION: 'zstd' },
    serviceEnv: { dispatcher: { BANK_REQUEST_TIMEOUT: '10s' } },
  });
  // The infrastructure faults kill and restart the local stack's processes: the suite runs on it.
  const stack = readStackEnv();
  if (!stack || e2e.endpoints.mongodbUri !== stack.mongodbUri) {
    throw new Error(
      'the fault suite kills and restarts Kafka and the MongoDB-compatible server of the local stack: run it on the local stack (`rp stack up`, its endpoints in the environment), not on containers',
    );
  }
  await e2e.openDebitWindow();
});

afterAll(async () => {
  if (rows.length > 0) {
    const table = formatFaultTable(rows);
    console.log(
      `fault suite, ${transactions} transactions a round (one in ${creditEvery} a credit):\n${table}`,
    );
    const dir = join(root, 'test', '.test-results');
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, 'faults.json'),
      `${JSON.stringify({ date: new Date().toISOString(), transactions, outageMs, rows }, null, 2)}\n`,
    );
  }
  await e2e?.stop();
});

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The bank sets a fault on every route of every bank for `ms`, then lifts it. */
async function bankFault(rule: Parameters<EndToEnd['bank']['setFault']>[0], ms: number): Promise<void> {
  await e2e.bank.setFault(rule);
  await pause(ms);
  await e2e.bank.clearFaults();
}

/** SIGKILL of a pipeline service, started again at once (as Kubernetes restarts a crashed pod). */
async function crash(service: PipelineService): Promise<void> {
  await e2e.pipeline.kill(service, 'SIGKILL');
  await e2e.pipeline.start(service);
}

/** SIGKILL of local stack components, then the stack brought up again (each restarted on its data). */
async function crashStack(...components: ComponentName[]): Promise<void> {
  for (const component of components) await killComponent(component);
  await stackUp({ log: () => undefined });
}

interface Fault {
  readonly name: string;
  /** Injects the fault and resolves when it is over (the process back, the rule lifted). */
  inject(): Promise<void>;
  /** Transactions of the round (default `transactions`) and how many are sent at once (default `concurrency`). */
  readonly count?: number;
  readonly concurrency?: number;
}

const services: PipelineService[] = [
  'ingress',
  'validator',
  'tracker',
  'scheduler',
  'dispatcher',
  'event-publisher',
];

const faults: Fault[] = [
  ...services.map((service) => ({ name: `SIGKILL ${service}`, inject: () => crash(service) })),
  { name: 'SIGKILL Kafka broker', inject: () => crashStack('kafka') },
  { name: 'restart MongoDB server and its database', inject: () => crashStack('ferretdb', 'postgres') },
  {
    name: `bank down ${Math.round(outageMs / 1000)} s`,
    inject: () => bankFault({ mode: 'drop', route: '*' }, outageMs),
  },
  {
    name: 'bank slower than the timeout',
    inject: () => bankFault({ mode: 'delay', ms: 12_000, route: '*' }, Math.min(outageMs, 30_000)),
  },
  {
    name: 'bank answers 500',
    inject: () => bankFault({ mode: 'error', status: 500, rate: 0.5, route: '*' }, outageMs),
  },
  {
    name: 'bank answers 503 Retry-After',
    inject: () =>
      bankFault({ mode: 'error', status: 503, rate: 0.5, retryAfterSeconds: 1, route: '*' }, outageMs),
  },
  {
    name: 'bank answers 429 Retry-After',
    inject: () =>
      bankFault({ mode: 'error', status: 429, rate: 0.5, retryAfterSeconds: 1, route: '*' }, outageMs),
  },
  // Many more at once than the ingress takes in: it sheds what it cannot make durable in time, with a
  // 429 or 503 and Retry-After, never another 5xx, never a 202 it does not keep.
  {
    name: 'ingress overload (200 at once)',
    inject: async () => undefined,
    count: Math.max(transactions, 200),
    concurrency: 200,
  },
];

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/**
 * One round: the transactions sent, the fault injected once enough of them are in flight, the rest sent
 * during the fault, the books checked.
 */
async function round(fault: Fault): Promise<void> {
  await clearOfDayEndFor(roundBudgetMs);
  const completions = (stats: Awaited<ReturnType<EndToEnd['bank']['stats']>>) =>
    (stats.postingsByName[completedPosting('debit')] ?? 0) +
    (stats.postingsByName[completedPosting('credit')] ?? 0);
  const before = completions(await e2e.bank.stats());
  const completedSoFar = async () => completions(await e2e.bank.stats()) - before;
  const t0 = Date.now();
  const giveUpAt = t0 + drainDeadlineMs;
  let accepted = 0;
  let inFlight = 0;
  let peakInFlight = 0;
  let inFlightAtFault = 0;
  let faultDone: Promise<number> | undefined;
  let faultFailed: unknown;
  const startFault = () => {
    if (faultDone) return;
    inFlightAtFault = inFlight;
    faultDone = fault.inject().then(
      () => Date.now(),
      (error: unknown) => {
        faultFailed = error ?? new Error('the fault could not be injected');
        return Date.now();
      },
    );
  };

  // In flight: answered 202, not yet complete at the bank; sampled while the round runs.
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      try {
        inFlight = accepted - (await completedSoFar());
        peakInFlight = Math.max(peakInFlight, inFlight);
        if (inFlight >= inFlightTarget) startFault();
      } catch {
        // The simulator is busy; the next sample counts.
      }
      await pause(500);
    }
  })();

  const count = fault.count ?? transactions;
  const outcomes: SendOutcome[] = await mapBounded(
    Array.from({ length: count }),
    fault.concurrency ?? concurrency,
    async (_, index) => {
      const outcome = await sendUntilAccepted(e2e, giveUpAt, () => faultFailed !== undefined, kindOf(index));
      if (outcome.acceptedAt !== undefined) accepted += 1;
      return outcome;
    },
  );
  const sentAt = Date.now();
  startFault();
  // Recovery runs from when both the fault and the load are over.
  const faultEndedAt = Math.max(sentAt, await (faultDone as Promise<number>));
  if (faultFailed !== undefined) {
    sampling = false;
    await sampler;
    throw faultFailed;
  }
  const acceptedOutcomes = outcomes.filter((outcome) => outcome.acceptedAt !== undefined);

  // First the bank's counter (cheap): as many completion postings (DEBIT_COMPLETED,
  // CREDIT_AUTH_RESPONSE_ACCEPTED) as transactions accepted. One of an earlier round completing late
  // counts there too, so then each of this round's is checked itself,
  // again while some are not complete, until the deadline.
  const deadline = faultEndedAt + drainDeadlineMs;
  let lastLog = Date.now();
  await waitUntil(
    async () => {
      const completed = await completedSoFar();
      if (Date.now() - lastLog > 15_000) {
        lastLog = Date.now();
        console.log(`${fault.name}: ${completed} of ${acceptedOutcomes.length} complete`);
      }
      return completed >= acceptedOutcomes.length ? true : undefined;
    },
    `${fault.name}: every transaction answered 202 complete`,
    Math.max(1, deadline - Date.now()),
    250,
  ).catch(() => undefined);
  const books = new Map<string, TransactionBooks>();
  let open: readonly Pick<SendOutcome, 'uetr' | 'kind'>[] = acceptedOutcomes;
  for (;;) {
    const checked = await mapBounded(open, 8, async ({ uetr, kind }) => {
      const [postings, messages] = await Promise.all([
        e2e.bank.postings(uetr, bank),
        e2e.bank.messages(undefined, uetr),
      ]);
      return booksOf(uetr, postings, messages, kind);
    });
    for (const entry of checked) books.set(entry.uetr, entry);
    open = checked.filter((entry) => !entry.completed);
    if (open.length === 0 || Date.now() >= deadline) break;
    await pause(1_000);
  }
  const drained = open.length === 0 ? Date.now() : undefined;
  sampling = false;
  await sampler;

  const entries = [...books.values()];
  const row: FaultRow = {
    fault: fault.name,
    accepted: acceptedOutcomes.length,
    credits: acceptedOutcomes.filter((outcome) => outcome.kind === 'credit').length,
    inFlightAtFault,
    peakInFlight,
    lost: entries.filter((entry) => !entry.completed).length,
    duplicated: entries.filter((entry) => entry.duplicatedEffects.length > 0).length,
    outOfOrder: entries.filter((entry) => entry.outOfOrder).length,
    redeliveries: entries.reduce((sum, entry) => sum + entry.redeliveries, 0),
    recoveryMs: (drained ?? Date.now()) - faultEndedAt,
    answers: summariseAnswers(outcomes),
  };
  rows.push(row);
  console.log(
    `${fault.name}: ${row.accepted} accepted (${row.credits} credits), ${row.inFlightAtFault} in flight at the fault, peak ${row.peakInFlight}, ${row.lost} lost, ${row.duplicated} duplicated, ${row.outOfOrder} out of order; complete ${seconds(row.recoveryMs)} after the fault ended; answers ${row.answers}`,
  );
  const wrong = entries.filter(
    (entry) => !entry.completed || entry.duplicatedEffects.length > 0 || entry.outOfOrder,
  );
  // Where the first few not complete stand in the tracker's own books, for the report.
  for (const entry of wrong.filter((each) => !each.completed).slice(0, 5)) {
    const response = await e2e.admin('tracker', `/admin/transactions/${entry.uetr}`).catch(() => undefined);
    console.log(
      `${fault.name}: ${entry.uetr} not complete: the tracker answers ${response?.status ?? 'nothing'}: ${(await response?.text())?.slice(0, 4_000) ?? ''}`,
    );
  }
  const evidence = wrong.length > 0 ? `; ${await whereStuck(wrong.map((entry) => entry.uetr))}` : '';
  expect(wrong.slice(0, 10), `${wrong.length} transactions with a problem${evidence}`).toEqual([]);
  // Every transaction was answered 202 in the end; the ingress never answered anything but 202, 429 or 503.
  expect(outcomes.filter((outcome) => outcome.acceptedAt === undefined)).toEqual([]);
  const crashAnswers = outcomes.flatMap((outcome) =>
    outcome.statuses.filter((status) => status !== 0 && ![202, 429, 503].includes(status)),
  );
  expect(crashAnswers).toEqual([]);
  expect(outcomes.reduce((sum, outcome) => sum + outcome.refusalsWithoutRetryAfter, 0)).toBe(0);
}

/** Each consumer group of the pipeline and the topic it reads (the services' `consumedTopics`). */
const consumers: readonly [service: string, topic: string][] = [
  ['validator', 'rp.directdebit.received.v1'],
  ['validator', 'rp.credittransfer.received.v1'],
  ['validator', 'rp.statusreport.received.v1'],
  ['scheduler', 'rp.directdebit.accepted.v1'],
  ['scheduler', 'rp.delivery.outcome.v1'],
  ['dispatcher', 'rp.statusreport.outbound.v1'],
  ['dispatcher', 'rp.directdebit.due.v1'],
  ['dispatcher', 'rp.credittransfer.accepted.v1'],
  ['tracker', 'rp.transaction.state.v1'],
  ['tracker', 'rp.delivery.outcome.v1'],
  ['event-publisher', 'rp.events.v1'],
];

/**
 * Where a round's transactions stand, on one line for the failure message (the part of a CI report that
 * is always shown): each consumer group's records not yet committed on its topic, the dead letters of
 * the transactions named (by group, with the reason), and each service's readiness (a consumer not
 * running fails it).
 */
async function whereStuck(uetrs: readonly string[]): Promise<string> {
  const run = e2e.pipeline.run;
  const kafka = new Kafka({
    brokers: [...e2e.endpoints.kafkaBrokers],
    clientId: 'fault-suite-diagnosis',
    logLevel: logLevel.NOTHING,
  });
  const admin = kafka.admin();
  const lags: string[] = [];
  try {
    await admin.connect();
    for (const [service, topic] of consumers) {
      const source = `${run}.${topic}`;
      const [ends, committed] = await Promise.all([
        admin.fetchTopicOffsets(source),
        admin.fetchOffsets({ groupId: `${service}.${run}.${topic}`, topics: [source] }),
      ]);
      const parts = ends.flatMap(({ partition, high }) => {
        const at = committed[0]?.partitions.find((entry) => entry.partition === partition)?.offset ?? '-1';
        const lag = Number(high) - Math.max(0, Number(at));
        return lag > 0 ? [`p${partition}:${lag}`] : [];
      });
      if (parts.length > 0) lags.push(`${service} ${topic} ${parts.join(',')}`);
    }
  } catch (error) {
    lags.push(`lag not read: ${error instanceof Error ? error.message : String(error)}`);
  } finally {
    await admin.disconnect().catch(() => undefined);
  }
  const readiness = await Promise.all(
    services.map(async (service) => {
      const response = await fetch(`${e2e.pipeline.url(service)}/health/ready`, {
        signal: AbortSignal.timeout(5_000),
      }).catch(() => undefined);
      if (response?.status === 200) return undefined;
      return `${service} ${response?.status ?? 'no answer'} ${(await response?.text())?.slice(0, 300) ?? ''}`;
    }),
  );
  const notReady = readiness.filter((entry) => entry !== undefined);
  const named = new Set(uetrs);
  const dead = await Promise.all(
    consumers.map(async ([service, topic]) => {
      const listing = await deadLetters(`${service}.${run}.${topic}.dlq`).catch((error: unknown) => error);
      if (!Array.isArray(listing)) return `${service} ${topic} not read: ${String(listing)}`;
      const ours = listing.filter((record) => record.key !== null && named.has(record.key));
      if (ours.length === 0) return undefined;
      const reasons = [...new Set(ours.map((record) => record.reason))].join(',');
      return `${service} ${topic} ${ours.length} (${reasons})`;
    }),
  );
  const deadLettered = dead.filter((entry) => entry !== undefined);
  return `not committed: ${lags.join('; ') || 'none'}; dead-lettered: ${deadLettered.join('; ') || 'none'}; not ready: ${notReady.join('; ') || 'none'}`;
}

interface DeadLetterListing {
  records: { id: string; key: string | null; reason: string; redrivable: boolean }[];
}

async function deadLetters(topic: string): Promise<DeadLetterListing['records']> {
  const response = await e2e.admin('tracker', `/admin/dead-letters/${encodeURIComponent(topic)}?limit=1000`);
  if (response.status === 404) return [];
  expect(response.status, await response.clone().text()).toBe(200);
  return ((await response.json()) as DeadLetterListing).records;
}

/**
 * Poison on every consumed topic: bytes that are not Avro and a value naming a schema id the registry
 * does not have; on the debits the validator reads, also a real record whose handler refuses it (an
 * origin header this version does not know). Sent while a round's debits flow.
 */
async function poison(marker: string): Promise<number> {
  const kafka = new Kafka({
    brokers: [...e2e.endpoints.kafkaBrokers],
    clientId: 'fault-suite',
    logLevel: logLevel.NOTHING,
  });
  const producer = kafka.producer();
  await producer.connect();
  try {
    const run = e2e.pipeline.run;
    const topics = [...new Set(consumers.map(([, topic]) => topic))];
    for (const topic of topics) {
      await producer.send({
        topic: `${run}.${topic}`,
        messages: [
          { key: `${marker}-not-avro`, value: Buffer.from('this is not an Avro record') },
          // Confluent framing: magic byte 0, then a schema id no registry has handed out.
          { key: `${marker}-unknown-schema`, value: Buffer.from([0, 0x7f, 0xff, 0xff, 0xf0, 2, 4, 6]) },
        ],
      });
    }
    // A debit the pipeline took, as the template of a new one under an origin the validator does not know.
    const consumer = kafka.consumer({ groupId: `fault-suite-${marker}` });
    await consumer.connect();
    const received = `${run}.rp.directdebit.received.v1`;
    await consumer.subscribe({ topic: received, fromBeginning: true });
    const original = await new Promise<{ value: Buffer; headers: Record<string, string> }>((resolve) => {
      void consumer.run({
        eachMessage: async ({ message }) => {
          // A real debit, not one of the poison records just sent.
          if (message.value === null || message.key?.toString().startsWith(marker)) return;
          const headers = Object.fromEntries(
            Object.entries(message.headers ?? {}).map(([name, value]) => [name, String(value)]),
          );
          resolve({ value: message.value, headers });
        },
      });
    });
    await consumer.disconnect();
    // A new transaction (its own UETR and message id: the validator has not answered it), written with
    // the same schema.
    const registry = new SchemaRegistry({ host: e2e.endpoints.schemaRegistryUrl });
    const debit = (await registry.decode(original.value)) as {
      transactionIdentifiers: { uetr: string };
      messageIdentifiers: { messageIdentification: string };
    };
    const uetr = randomUUID();
    debit.transactionIdentifiers.uetr = uetr;
    debit.messageIdentifiers.messageIdentification = `RPF${uetr.replaceAll('-', '').slice(0, 29).toUpperCase()}`;
    await producer.send({
      topic: received,
      messages: [
        {
          key: `${marker}-refused`,
          value: await registry.encode(original.value.readInt32BE(1), debit),
          headers: { ...original.headers, 'rp-origin': 'martian-clearing-house' },
        },
      ],
    });
    return topics.length * 2 + 1;
  } finally {
    await producer.disconnect();
  }
}

describe(`faults under load: ${transactions} transactions a round (on-us debits and credits), none lost, none duplicated, none out of order`, () => {
  it('poison records on every consumed topic: dead-lettered with the reason while the debits flow, listed and redriven by the admin API', {
    timeout: drainDeadlineMs * 2 + 10 * 60_000,
  }, async () => {
    const marker = `poison-${Date.now()}`;
    await round({
      name: 'poison records on every consumed topic',
      inject: () => poison(marker).then(() => undefined),
    });
    const run = e2e.pipeline.run;
    const dlq = (service: string, topic: string) => `${service}.${run}.${topic}.dlq`;
    const ours = (records: DeadLetterListing['records']) =>
      records.filter((record) => record.key?.startsWith(marker));
    // Every group dead-letters both unreadable records, as poison, each once.
    for (const [service, topic] of consumers) {
      const records = await waitUntil(
        async () => {
          const found = ours(await deadLetters(dlq(service, topic))).filter(
            (record) => record.key !== `${marker}-refused`,
          );
          return found.length >= 2 ? found : undefined;
        },
        `${service}'s dead letters of ${topic}`,
        120_000,
        500,
      );
      expect(records.map((record) => [record.key, record.reason]).sort()).toEqual([
        [`${marker}-not-avro`, 'poison'],
        [`${marker}-unknown-schema`, 'poison'],
      ]);
    }
    // The debit under an unknown origin: refused by the validator's handler, not retried.
    const refused = await waitUntil(
      async () =>
        ours(await deadLetters(dlq('validator', 'rp.directdebit.received.v1'))).find(
          (record) => record.key === `${marker}-refused`,
        ),
      'the refused debit among the dead letters',
      120_000,
      500,
    );
    expect(refused.reason).toBe('non-retriable');

    // Redriven by the admin API: handed back to its group once, audited; poison again, it comes back.
    const topic = dlq('validator', 'rp.directdebit.received.v1');
    const before = ours(await deadLetters(topic)).length;
    const response = await e2e.admin('tracker', `/admin/dead-letters/${encodeURIComponent(topic)}/redrive`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ records: [refused.id] }),
    });
    expect(response.status, await response.clone().text()).toBe(200);
    expect(((await response.json()) as { redriven: string[] }).redriven).toEqual([refused.id]);
    await waitUntil(
      async () => (ours(await deadLetters(topic)).length > before ? true : undefined),
      'the redriven record refused again',
      120_000,
      500,
    );
  });

  for (const fault of faults) {
    const selected = only === undefined || only.some((name) => fault.name.includes(name));
    if (!selected) continue;
    it(fault.name, { timeout: drainDeadlineMs * 2 + 10 * 60_000 }, async () => {
      await round(fault);
    });
  }

  it('the rounds ran on zstd batches: the postings the tracker wrote are compressed as the services were set', async () => {
    const before = zstdBatchesRead;
    const kafka = new Kafka({
      brokers: [...e2e.endpoints.kafkaBrokers],
      clientId: 'fault-suite-compression',
      logLevel: logLevel.NOTHING,
    });
    const consumer = kafka.consumer({ groupId: `fault-suite-compression-${randomUUID()}` });
    let records = 0;
    await consumer.connect();
    try {
      await consumer.subscribe({ topics: [`${e2e.pipeline.run}.rp.events.v1`], fromBeginning: true });
      await consumer.run({
        eachBatch: async ({ batch }) => {
          records += batch.messages.length;
        },
      });
      await waitUntil(async () => (records >= 100 ? true : undefined), '100 postings read back', 60_000);
    } finally {
      await consumer.disconnect();
    }
    expect(zstdBatchesRead).toBeGreaterThan(before);
  });
});
