/**
 * Copies of one journey's records, each under fresh identifiers, produced as a backlog for a service
 * to work through with the rest of the pipeline idle: rp.events.v1 for the event path alone (the event
 * publisher turning records into signed postings at the bank), the accepted debit and the acknowledgement
 * of its report for the scheduler alone. The records are the ones the pipeline itself wrote.
 */
import { randomUUID } from 'node:crypto';
import { decodeAvro, encodeAvro, type MessageName } from '@rp/contracts';
import { readOnce } from '@rp/kafka';
import { Kafka, logLevel } from 'kafkajs';

/** One record of a topic as bytes: what is copied, untouched but for its identifiers. */
export interface RawRecord {
  readonly key: Buffer;
  readonly value: Buffer;
  readonly headers: Readonly<Record<string, Buffer>>;
}

/**
 * A UUID as text, with or without its dashes, not inside a longer run of hex digits: a transaction's
 * UETR, an event id, the 32 digits of a posting's `EVT…` message id or of an ESM_STATE posting's `ESM…`
 * id, a trace id.
 */
const identifier =
  /(?<![0-9a-f])(?:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|[0-9a-f]{32})(?![0-9a-f])/g;

/** The schema registry's wire-format header: a zero byte and the schema id. */
const headerBytes = 5;

/**
 * A record's value as the message it carries: the registry's header, then the message's Avro encoding.
 * Checked by encoding it again: a copy is only as good as that round trip.
 */
function messageOf(message: MessageName, value: Buffer): unknown {
  if (value.length <= headerBytes || value[0] !== 0)
    throw new Error('not in the schema registry wire format');
  const decoded = decodeAvro(message, value.subarray(headerBytes));
  if (!encodeAvro(message, decoded, value.subarray(0, headerBytes)).equals(value))
    throw new Error(`a record of ${message} does not encode back to its bytes: the bench needs updating`);
  return decoded;
}

/** Every string in a decoded value, in the order written: the texts a copy renames. */
function stringsOf(value: unknown, into: string[] = []): string[] {
  if (typeof value === 'string') into.push(value);
  else if (Array.isArray(value)) for (const item of value) stringsOf(item, into);
  else if (isPlainObject(value)) for (const item of Object.values(value)) stringsOf(item, into);
  return into;
}

/** `value` with `rename` applied to every string in it; anything not a string, array or plain object kept. */
function mapStrings(value: unknown, rename: (text: string) => string): unknown {
  if (typeof value === 'string') return rename(value);
  if (Array.isArray(value)) return value.map((item) => mapStrings(item, rename));
  if (isPlainObject(value))
    return Object.fromEntries(Object.entries(value).map(([name, item]) => [name, mapStrings(item, rename)]));
  return value;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

/** The texts of a record: its key, every string of its message, its headers. */
function texts(record: RawRecord, message: MessageName): string[] {
  return [
    record.key.toString(),
    ...stringsOf(messageOf(message, record.value)),
    ...Object.values(record.headers).map((bytes) => bytes.toString()),
  ];
}

/** The identifiers in a journey's records of `message` (dashless), in the order first seen. */
export function identifiersOf(
  records: readonly RawRecord[],
  message: MessageName = 'EventPosting',
): string[] {
  const found = new Set<string>();
  for (const text of records.flatMap((record) => texts(record, message))) {
    for (const match of text.matchAll(identifier)) found.add(match[0].replace(/-/g, ''));
  }
  return [...found];
}

/** Records of one journey on one topic, with the message their values carry. */
export interface JourneyPart {
  readonly message: MessageName;
  readonly records: readonly RawRecord[];
}

/**
 * A copy of a journey's records, of one topic or several, with every identifier replaced by a fresh one,
 * the same fresh one wherever the old one appears, on any of the topics (dashed where it was dashed), so
 * the copy is a transaction of its own: its own UETR (the key), event ids and message ids, in the same
 * order. Each value is decoded, renamed and encoded again under the same schema id. One list of records
 * a part, in the parts' order.
 */
export function copyParts(parts: readonly JourneyPart[], fresh: () => string = randomUUID): RawRecord[][] {
  const renamed = new Map<string, string>();
  const rename = (text: string) =>
    text.replace(identifier, (old) => {
      const key = old.replace(/-/g, '');
      let next = renamed.get(key);
      if (next === undefined) {
        next = fresh();
        renamed.set(key, next);
      }
      return old.includes('-') ? next : next.replace(/-/g, '');
    });
  return parts.map(({ message, records }) =>
    records.map((record) => ({
      key: Buffer.from(rename(record.key.toString())),
      value: encodeAvro(
        message,
        mapStrings(messageOf(message, record.value), rename) as Parameters<typeof encodeAvro>[1],
        record.value.subarray(0, headerBytes),
      ),
      headers: Object.fromEntries(
        Object.entries(record.headers).map(([name, value]) => [name, Buffer.from(rename(value.toString()))]),
      ),
    })),
  );
}

/** A copy of a journey's records of rp.events.v1 (`copyParts` of one part). */
export function copyJourney(records: readonly RawRecord[], fresh: () => string = randomUUID): RawRecord[] {
  return copyParts([{ message: 'EventPosting', records }], fresh)[0] as RawRecord[];
}

/**
 * Reads the records of `topic` keyed by `key` (and taken by `accept`, when given), in their order, until
 * `count` are found: from the start of the topic, as the project reads a topic off the hot path
 * (`readOnce`: a group of its own that commits nothing and is deleted afterwards).
 */
export async function readJourney(
  brokers: readonly string[],
  topic: string,
  key: string,
  count: number,
  timeoutMs: number,
  accept: (record: RawRecord) => boolean = () => true,
): Promise<RawRecord[]> {
  const kafka = new Kafka({
    clientId: 'bench-journey-reader',
    brokers: [...brokers],
    logLevel: logLevel.NOTHING,
  });
  const admin = kafka.admin();
  let connected: Promise<void> | undefined;
  const found: RawRecord[] = [];
  try {
    await readOnce(
      {
        kafka,
        admin: async () => {
          connected ??= admin.connect();
          await connected;
          return admin;
        },
      },
      {
        topic,
        groupPrefix: 'bench-journey',
        fromBeginning: true,
        timeoutMs,
        what: `the records keyed ${key}`,
      },
      (batch) => {
        for (const message of batch.messages) {
          if (found.length >= count || message.key?.toString() !== key || message.value === null) continue;
          const headers: Record<string, Buffer> = {};
          for (const [name, value] of Object.entries(message.headers ?? {})) {
            if (Buffer.isBuffer(value)) headers[name] = value;
            else if (typeof value === 'string') headers[name] = Buffer.from(value);
          }
          const record = { key: message.key, value: message.value, headers };
          if (accept(record)) found.push(record);
        }
        return found.length >= count;
      },
    );
  } finally {
    if (connected) await admin.disconnect();
  }
  return found;
}

/** Copies of a journey's records on one topic, one list a copy. */
export interface CopiesOf {
  readonly topic: string;
  readonly copies: readonly (readonly RawRecord[])[];
}

/**
 * Writes journeys' copies, made beforehand so that the copying (a decode and an encode a record) is not
 * on the clock: a chunk of copies a request, each acknowledged by every replica before the next. With
 * several topics a request carries the same copies' records of each, so a copy's records on one topic
 * are written with its records on the others.
 */
export class CopyWriter {
  readonly #producer;

  constructor(brokers: readonly string[]) {
    const kafka = new Kafka({
      clientId: 'bench-journey-writer',
      brokers: [...brokers],
      logLevel: logLevel.NOTHING,
    });
    this.#producer = kafka.producer({ allowAutoTopicCreation: false });
  }

  connect(): Promise<void> {
    return this.#producer.connect();
  }

  /** Writes each copy's records in their order, `copiesPerRequest` copies a request. */
  async write(topics: readonly CopiesOf[], copiesPerRequest = 50): Promise<void> {
    const copies = Math.max(0, ...topics.map((part) => part.copies.length));
    for (let first = 0; first < copies; first += copiesPerRequest) {
      await this.#producer.sendBatch({
        acks: -1,
        topicMessages: topics
          .map(({ topic, copies: ofTopic }) => ({
            topic,
            messages: ofTopic.slice(first, first + copiesPerRequest).flat(),
          }))
          .filter((part) => part.messages.length > 0),
      });
    }
  }

  disconnect(): Promise<void> {
    return this.#producer.disconnect();
  }
}
