/**
 * The event path alone: the event publisher turning records of rp.events.v1 into signed postings at the
 * bank, with the rest of the pipeline idle. The records are copies of one journey the pipeline itself
 * wrote, each under fresh identifiers, produced as a backlog; the figure is the rate at which the bank
 * accepts their postings, in order per transaction.
 */
import { randomUUID } from 'node:crypto';
import { decodeAvro, type EventPosting, encodeAvro } from '@rp/contracts';
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
 * A record's value as the posting it carries: the registry's header, then the EventPosting union's
 * Avro encoding. Checked by encoding it again: a copy is only as good as that round trip.
 */
function postingOf(value: Buffer): EventPosting {
  if (value.length <= headerBytes || value[0] !== 0)
    throw new Error('not in the schema registry wire format');
  const posting = decodeAvro('EventPosting', value.subarray(headerBytes));
  if (!encodeAvro('EventPosting', posting, value.subarray(0, headerBytes)).equals(value))
    throw new Error('a record of rp.events.v1 does not encode back to its bytes: the bench needs updating');
  return posting;
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

/** The texts of a record: its key, every string of its posting, its headers. */
function texts(record: RawRecord): string[] {
  return [
    record.key.toString(),
    ...stringsOf(postingOf(record.value)),
    ...Object.values(record.headers).map((bytes) => bytes.toString()),
  ];
}

/** The identifiers in a journey's records (dashless), in the order first seen. */
export function identifiersOf(records: readonly RawRecord[]): string[] {
  const found = new Set<string>();
  for (const text of records.flatMap(texts)) {
    for (const match of text.matchAll(identifier)) found.add(match[0].replace(/-/g, ''));
  }
  return [...found];
}

/**
 * A copy of a journey's records with every identifier replaced by a fresh one, the same fresh one
 * wherever the old one appears (dashed where it was dashed), so the copy is a transaction of its own:
 * its own UETR (the key), event ids and message ids, in the same order. Each value is decoded, renamed
 * and encoded again under the same schema id.
 */
export function copyJourney(records: readonly RawRecord[], fresh: () => string = randomUUID): RawRecord[] {
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
  return records.map((record) => ({
    key: Buffer.from(rename(record.key.toString())),
    value: encodeAvro(
      'EventPosting',
      mapStrings(postingOf(record.value), rename) as EventPosting,
      record.value.subarray(0, headerBytes),
    ),
    headers: Object.fromEntries(
      Object.entries(record.headers).map(([name, value]) => [name, Buffer.from(rename(value.toString()))]),
    ),
  }));
}

/**
 * Reads the records of `topic` keyed by `key`, in their order, until `count` are found: from the start of
 * the topic, as the project reads a topic off the hot path (`readOnce`: a group of its own that commits
 * nothing and is deleted afterwards).
 */
export async function readJourney(
  brokers: readonly string[],
  topic: string,
  key: string,
  count: number,
  timeoutMs: number,
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
          found.push({ key: message.key, value: message.value, headers });
        }
        return found.length >= count;
      },
    );
  } finally {
    if (connected) await admin.disconnect();
  }
  return found;
}

/**
 * Writes journeys' copies, made beforehand so that the copying (a decode and an encode a record) is not
 * on the clock: a chunk of copies a request, each acknowledged by every replica before the next.
 */
export class CopyWriter {
  readonly #producer;
  readonly #topic: string;

  constructor(brokers: readonly string[], topic: string) {
    const kafka = new Kafka({
      clientId: 'bench-journey-writer',
      brokers: [...brokers],
      logLevel: logLevel.NOTHING,
    });
    this.#producer = kafka.producer({ allowAutoTopicCreation: false });
    this.#topic = topic;
  }

  connect(): Promise<void> {
    return this.#producer.connect();
  }

  /** Writes each copy's records in their order, `copiesPerRequest` copies a request. */
  async write(copies: readonly (readonly RawRecord[])[], copiesPerRequest = 50): Promise<void> {
    for (let first = 0; first < copies.length; first += copiesPerRequest) {
      await this.#producer.send({
        topic: this.#topic,
        acks: -1,
        messages: copies.slice(first, first + copiesPerRequest).flat(),
      });
    }
  }

  disconnect(): Promise<void> {
    return this.#producer.disconnect();
  }
}
