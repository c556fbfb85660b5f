import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { type MessageKind, SimulatorRecords } from '@rp/bank-simulator';
import { type MessageName, type Messages, parseJsonExact, validate } from '@rp/contracts';
import type { Row } from './report.ts';
import { collector } from './tracker-memory.ts';

/** The event postings a debit's journey brings its banks, as the pipeline's runs count them. */
const postingsADebit = 18;

/** The messages a debit's journey exchanges with the bank simulator, in the order they come. */
const debitMessages: readonly { kind: MessageKind; name: MessageName; example: string }[] = [
  {
    kind: 'outboundDirectDebitResponse',
    name: 'PaymentStatusReport',
    example: 'PaymentStatusReport.accp.json',
  },
  { kind: 'inboundDirectDebit', name: 'DirectDebit', example: 'DirectDebit.za-eft-on-us.json' },
  {
    kind: 'inboundDirectDebitResponse',
    name: 'PaymentStatusReport',
    example: 'PaymentStatusReport.acsc.json',
  },
];

const messageId = () => `RP${randomUUID().replaceAll('-', '').slice(0, 22)}`;

/** A JSON text as it comes in: parsed and checked as the simulator does, or refused here. */
function checked<N extends MessageName>(name: N, text: string): Messages[N] {
  const result = validate(name, parseJsonExact(text));
  if (!result.ok) throw new Error(`the ${name} example is not valid: ${JSON.stringify(result.errors)}`);
  return result.value;
}

/**
 * What the bank simulator's logs keep of a debit's traffic: `debits` debits' postings (18 a debit, one
 * UETR each, every one with its own event id, signed headers and stage) and their three messages each,
 * made from the examples, each text parsed and checked as the simulator does it and stored through
 * `SimulatorRecords`; the heap in use after a full collection, less the heap before, over the postings,
 * then over the messages. And how long a full collection of the heap takes with them kept (the median
 * of three): the stop a major collection costs the simulator once its logs are full.
 */
export function bankSimulatorLogBench(options: { root: string; debits: number }): Row[] {
  const example = (file: string) => readFileSync(join(options.root, 'avro', 'examples', file), 'utf8');
  const posting = JSON.parse(example('TransactionStatePosting.debit-queued.json'));
  const messages = debitMessages.map((message) => ({
    ...message,
    json: JSON.parse(example(message.example)),
  }));
  const gc = collector();
  const postingCount = options.debits * postingsADebit;
  const messageCount = options.debits * debitMessages.length;
  const records = new SimulatorRecords({ postingLogSize: postingCount, messageLogSize: messageCount });
  gc();
  const before = process.memoryUsage().heapUsed;
  const now = Date.now();
  for (let debit = 0; debit < options.debits; debit += 1) {
    const uetr = randomUUID();
    posting.tranInfo.tranUetr = uetr;
    for (let stage = 1; stage <= postingsADebit; stage += 1) {
      posting.stageVersion = stage;
      posting.messageInfo.messageIdentification = messageId();
      // Made here, after the first reading, as a request's body is: the log keeps it.
      const text = JSON.stringify(posting);
      const id = `msg_${randomUUID()}`;
      const outcome = records.addPosting({
        memberId: '250655',
        uetr,
        eventId: id,
        receivedAt: new Date(now).toISOString(),
        signatureVerified: true,
        headers: {
          'webhook-id': id,
          'webhook-timestamp': String(Math.floor(now / 1000)),
          traceparent: `00-${randomUUID().replaceAll('-', '')}-${randomUUID().replaceAll('-', '').slice(0, 16)}-01`,
        },
        posting: checked('EventPosting', text),
        text,
      });
      if (outcome !== 'stored') throw new Error(`a posting was ${outcome}`);
    }
  }
  gc();
  const afterPostings = process.memoryUsage().heapUsed;
  for (let debit = 0; debit < options.debits; debit += 1) {
    const uetr = randomUUID();
    for (const message of messages) {
      const messageIdentification = messageId();
      message.json.transactionIdentifiers.uetr = uetr;
      message.json.messageIdentifiers.messageIdentification = messageIdentification;
      const text = JSON.stringify(message.json);
      checked(message.name, text);
      const { created } = records.addMessage({
        kind: message.kind,
        memberId: '250655',
        uetr,
        messageIdentification,
        at: new Date(now).toISOString(),
        text,
      });
      if (!created) throw new Error('a message was taken for a resend');
    }
  }
  gc();
  const afterMessages = process.memoryUsage().heapUsed;
  const stops = [0, 1, 2].map(() => {
    const started = performance.now();
    gc();
    return performance.now() - started;
  });
  // Read after the collections, so that the records stay alive through them.
  const stats = records.stats();
  if (stats.postingsKept !== postingCount || stats.messagesKept !== messageCount)
    throw new Error(`kept ${stats.postingsKept} postings and ${stats.messagesKept} messages`);
  const postingBytes = Math.round((afterPostings - before) / postingCount);
  const messageBytes = Math.round((afterMessages - afterPostings) / messageCount);
  const stop = [...stops].sort((a, b) => a - b)[1] ?? 0;
  const heapMb = Math.round((afterMessages - before) / 1e6);
  const atDefaults = (bytes: number) => `${Math.round((bytes * 100_000) / 1e6)} MB at its default 100,000`;
  return [
    {
      group: 'codec',
      name: 'bank simulator: heap a posting keeps in its posting log',
      value: postingBytes,
      unit: 'bytes',
      detail: `${postingCount} postings of ${options.debits} debits (${postingsADebit} a debit), each parsed and checked and kept as the text it came in as, with its ids, headers and indexes; the heap after a full collection, less the heap before, a posting: ${atDefaults(postingBytes)} (POSTING_LOG_SIZE)`,
    },
    {
      group: 'codec',
      name: 'bank simulator: heap a message keeps in its message log',
      value: messageBytes,
      unit: 'bytes',
      detail: `${messageCount} messages of the same debits (a status report to the debtor bank, the inbound debit, its answer), kept as their text: ${atDefaults(messageBytes)} (MESSAGE_LOG_SIZE)`,
    },
    {
      group: 'codec',
      name: 'bank simulator: a full collection with its logs holding them',
      value: Math.round(stop),
      unit: 'ms',
      detail: `the median of three full, compacting collections of the heap with the ${postingCount} postings and ${messageCount} messages kept (${heapMb} MB): the stop a major collection costs the simulator once its logs hold that many; ${stops.map((ms) => Math.round(ms)).join(', ')} ms`,
    },
  ];
}
