import { createRequire } from 'node:module';
import { patchBatchChecksum, patchKafkajs, withShippedKafkajs } from '@rp/kafka';
import { loadExamples, microseconds } from './codec.ts';
import type { Row } from './report.ts';
import { round } from './stats.ts';

const require = createRequire(import.meta.url);

/** kafkajs's protocol modules the two figures use: a fetch request and a record batch with its records. */
interface Protocol {
  fetchRequest(topics: readonly FetchTopic[]): { encode(): Promise<{ buffer: Buffer }> };
  recordBatch(records: readonly unknown[]): Promise<{ buffer: Buffer }>;
  record(fields: {
    offsetDelta: number;
    key: Buffer;
    value: Buffer;
    headers: Record<string, string>;
  }): unknown;
}

interface FetchTopic {
  topic: string;
  partitions: { partition: number; fetchOffset: string; maxBytes: number }[];
}

const protocolRoot = 'kafkajs/src/protocol/';
/** The batches' timestamp (epoch ms). */
const batchTime = Date.UTC(2026, 0, 1);

function loadProtocol(): Protocol {
  const fetch = require(`${protocolRoot}requests/fetch/v11/request.js`) as (request: object) => {
    encode(): Promise<{ buffer: Buffer }>;
  };
  const { RecordBatch } = require(`${protocolRoot}recordBatch/v0/index.js`) as {
    RecordBatch(batch: object): Promise<{ buffer: Buffer }>;
  };
  const record = require(`${protocolRoot}recordBatch/record/v0/index.js`) as Protocol['record'];
  return {
    fetchRequest: (topics) =>
      fetch({ replicaId: -1, maxWaitTime: 100, minBytes: 1, maxBytes: 10_485_760, topics }),
    // A fixed time: kafkajs would take Date.now(), and the two encodings compared would differ by it.
    recordBatch: (records) =>
      RecordBatch({
        records,
        lastOffsetDelta: records.length - 1,
        firstTimestamp: batchTime,
        maxTimestamp: batchTime,
      }),
    record,
  };
}

/**
 * kafkajs's protocol modules as shipped: evaluated again outside the require cache, so that they, their
 * Encoder and their checksum are new objects that none of @rp/kafka's changes reached. The cache is put back after.
 */
function loadShippedProtocol(): Protocol {
  return withShippedKafkajs(loadProtocol);
}

/** Bytes of the encodings the two protocols make for the same work; they must be the same. */
async function bytesOf(protocol: Protocol, topics: readonly FetchTopic[], records: () => unknown[]) {
  const fetch = (await protocol.fetchRequest(topics).encode()).buffer;
  const batch = (await protocol.recordBatch(records())).buffer;
  return Buffer.concat([fetch, batch]).toString('hex');
}

/**
 * What kafkajs costs to encode a service's requests, as shipped and with @rp/kafka's changes to its
 * encoder and its batches' checksum (`packages/kafka/src/encoder-buffers.ts`, `batch-checksum.ts`), side
 * by side in one process on one hour: a fetch
 * request naming a consumer's 48 partitions (its source topic and three retry tiers, 12 partitions each,
 * as every consumer of the pipeline fetches them), and a record batch of a debit's 18 postings (the
 * tracker's produce), each posting an event record of the example's size with a key and a traceparent.
 * Both encodings are checked to be the same bytes first. kafkajs's encode functions are async but do
 * their work before they return, so the loop times the work itself.
 */
export async function kafkaEncodingBench(options: {
  root: string;
  calls: number;
  rounds: number;
}): Promise<Row[]> {
  patchKafkajs();
  // kafkajs takes its checksum when it first loads its record batch: had this process produced or
  // fetched before, the changed figures keep the shipped checksum, and the detail says so.
  const checksumChanged = patchBatchChecksum();
  const changed = loadProtocol();
  const shipped = loadShippedProtocol();
  const topics: FetchTopic[] = ['rp.transaction.state.v1', 'retry.1', 'retry.2', 'retry.3'].map((name) => ({
    topic: `tracker.bench.${name}`,
    partitions: Array.from({ length: 12 }, (_, partition) => ({
      partition,
      fetchOffset: String(1_000_000 + partition),
      maxBytes: 1_048_576,
    })),
  }));
  // An event record's value: the example posting's Avro encoding.
  const posting = loadExamples(options.root).find(({ name }) => name === 'TransactionStatePosting')?.bytes;
  if (posting === undefined) throw new Error('the codec examples hold no TransactionStatePosting');
  const key = Buffer.from('eb6305c9-1f7c-4bbd-a7c0-a2cc1cd13e8c');
  const headers = { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' };
  const postings = 18;
  const recordsOf = (protocol: Protocol) => () =>
    Array.from({ length: postings }, (_, offsetDelta) =>
      protocol.record({ offsetDelta, key, value: posting, headers }),
    );
  if (
    (await bytesOf(changed, topics, recordsOf(changed))) !==
    (await bytesOf(shipped, topics, recordsOf(shipped)))
  )
    throw new Error('kafkajs as changed wrote other bytes than as shipped');

  const rows: Row[] = [];
  const measure = (name: string, each: number, work: (protocol: Protocol) => () => void, what: string) => {
    const shippedMicros = microseconds(work(shipped), options.calls, options.rounds) / each;
    const changedMicros = microseconds(work(changed), options.calls, options.rounds) / each;
    rows.push({
      group: 'codec',
      name,
      value: round(changedMicros),
      unit: 'µs',
      detail: `${round(shippedMicros)} µs as kafkajs ships it (${round((changedMicros / shippedMicros) * 100, 0)}%); ${what}; the same bytes either way; best of ${options.rounds} rounds of ${options.calls}`,
    });
  };
  measure(
    "kafkajs: a consumer's fetch request, encoded",
    1,
    (protocol) => () => void protocol.fetchRequest(topics).encode(),
    `48 partitions named (a source topic and its three retry tiers, 12 partitions each)`,
  );
  measure(
    'kafkajs: a produced record, encoded in its batch',
    postings,
    (protocol) => {
      const records = recordsOf(protocol);
      return () => void protocol.recordBatch(records());
    },
    `a batch of ${postings} records of ${posting.length} bytes (an event record) with a key and a traceparent, the batch's checksum included (${checksumChanged ? 'changed too' : 'as shipped in both: kafkajs had loaded its record batch before the change'}), a record's share`,
  );
  return rows;
}
