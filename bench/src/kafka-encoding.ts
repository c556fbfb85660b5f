import { createRequire } from 'node:module';
import { patchBatchChecksum, patchKafkajs, withShippedKafkajs } from '@rp/kafka';
import { loadExamples, microseconds } from './codec.ts';
import type { Row } from './report.ts';
import { round } from './stats.ts';

const require = createRequire(import.meta.url);

/** kafkajs's protocol modules the figure uses: a record batch and its records. */
interface Protocol {
  recordBatch(records: readonly unknown[]): Promise<{ buffer: Buffer }>;
  record(fields: {
    offsetDelta: number;
    key: Buffer;
    value: Buffer;
    headers: Record<string, string>;
  }): unknown;
}

const protocolRoot = 'kafkajs/src/protocol/';
/** The batches' timestamp (epoch ms). */
const batchTime = Date.UTC(2026, 0, 1);

function loadProtocol(): Protocol {
  const { RecordBatch } = require(`${protocolRoot}recordBatch/v0/index.js`) as {
    RecordBatch(batch: object): Promise<{ buffer: Buffer }>;
  };
  const record = require(`${protocolRoot}recordBatch/record/v0/index.js`) as Protocol['record'];
  return {
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
 * What kafkajs costs to encode a produced record, as shipped and with @rp/kafka's change to its batches'
 * checksum (`packages/kafka/src/batch-checksum.ts`), side by side in one process on one hour: a record
 * batch of a debit's 18 postings (the tracker's produce), each posting an event record of the example's
 * size with a key and a traceparent. Both encodings are checked to be the same bytes first. kafkajs's
 * encode functions are async but do their work before they return, so the loop times the work itself.
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
  // As shipped: the modules evaluated again outside the require cache, which is put back after.
  const shipped = withShippedKafkajs(loadProtocol);
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
  const bytesOf = async (protocol: Protocol) =>
    (await protocol.recordBatch(recordsOf(protocol)())).buffer.toString('hex');
  if ((await bytesOf(changed)) !== (await bytesOf(shipped)))
    throw new Error('kafkajs as changed wrote other bytes than as shipped');

  const timed = (protocol: Protocol) => {
    const records = recordsOf(protocol);
    const micros = microseconds(() => void protocol.recordBatch(records()), options.calls, options.rounds);
    return micros / postings;
  };
  const shippedMicros = timed(shipped);
  const changedMicros = timed(changed);
  return [
    {
      group: 'codec',
      name: 'kafkajs: a produced record, encoded in its batch',
      value: round(changedMicros),
      unit: 'µs',
      detail: `${round(shippedMicros)} µs as kafkajs ships it (${round((changedMicros / shippedMicros) * 100, 0)}%); a batch of ${postings} records of ${posting.length} bytes (an event record) with a key and a traceparent, the batch's checksum included (${checksumChanged ? 'changed' : 'as shipped in both: kafkajs had loaded its record batch before the change'}), a record's share; the same bytes either way; best of ${options.rounds} rounds of ${options.calls}`,
    },
  ];
}
