import type { TraceSpan, Tracing } from '@rp/runtime';
import type { Producer as KafkaJsProducer, Message } from 'kafkajs';
import type { AvroCodec } from './avro-serde.ts';
import {
  type BatchLimits,
  groupByTopic,
  isFull,
  messageBytes,
  type QueuedSend,
  takeBatch,
} from './batching.ts';
import { compressionType, defaultCompression, type KafkaCompression } from './compression.ts';
import { fromKafkaJsError, KafkaError } from './errors.ts';
import type { Logger } from './logger.ts';

export interface ProducerRecord<T> {
  /** The partitioning key: the transaction's UETR, so all its records share one partition and stay in order. */
  key: string;
  value: T;
  headers?: Readonly<Record<string, string>>;
}

/** One codec per topic the producer writes; the record type of each topic follows from its codec. */
export type TopicCodecs<M> = { readonly [K in keyof M]: AvroCodec<M[K]> };

export interface Producer<M> {
  /** Connects now (otherwise the first send does); fails with a retriable KafkaError if no broker answers. */
  connect(): Promise<void>;
  /**
   * Encodes and queues the records; resolves once the broker has acknowledged all of them (acks=all).
   * Concurrent calls share produce requests. Records of calls made one after another on this producer are
   * written in call order. Rejects with a KafkaError: retriable when the cluster is the problem.
   */
  send<K extends keyof M & string>(topic: K, records: readonly ProducerRecord<M[K]>[]): Promise<void>;
  /** Resolves when everything sent so far is acknowledged or has failed. */
  flush(): Promise<void>;
  /** Refuses new records, waits for the queued ones (at most the delivery timeout), then disconnects. */
  disconnect(): Promise<void>;
}

export interface ProducerOptions<M> {
  codecs: TopicCodecs<M>;
  /** How long a send waits for company before its request goes out. Default 5 ms (Kafka's own producer default since 4.0). */
  lingerMs?: number;
  /** Default 2,000 records. */
  maxBatchRecords?: number;
  /** Default 512 KiB. */
  maxBatchBytes?: number;
  /** A send not acknowledged within this time fails with KAFKA_SEND_TIMEOUT (retriable). Default 10 s. */
  deliveryTimeoutMs?: number;
  /** How its record batches are compressed. Default `none`. */
  compression?: KafkaCompression;
}

export interface OutboundOptions {
  lingerMs: number;
  limits: BatchLimits;
  deliveryTimeoutMs: number;
  compression: KafkaCompression;
}

/** How long a send waits for company by default: Kafka's own producer default since 4.0. */
export const defaultLingerMs = 5;

export const defaultOutboundOptions: OutboundOptions = {
  lingerMs: defaultLingerMs,
  limits: { maxRecords: 2_000, maxBytes: 512 * 1024 },
  deliveryTimeoutMs: 10_000,
  compression: defaultCompression,
};

interface Entry extends QueuedSend {
  readonly topic: string;
  readonly messages: Message[];
  readonly deadline: number;
  settled: boolean;
  resolve(): void;
  reject(error: unknown): void;
}

/**
 * Coalesces concurrent sends into produce requests: a send waits at most `lingerMs` (or less, once a full
 * request is queued), and while a request is in flight the next one fills up, so batches grow with load.
 *
 * One request is in the producer's hands at a time, until kafkajs has an answer for it, however long
 * the broker is away. That keeps call order on the wire, and it is what keeps the idempotent producer
 * honest: kafkajs numbers a request's records per partition and takes the numbers back when the request
 * fails, so a request the broker wrote but whose answer was lost is sent again under the same numbers.
 * Another request sent under them in the meantime would be taken by the broker for the first one and
 * dropped, its callers told it is written. A caller is still answered by its delivery timeout (its
 * records may land later); the records queued behind wait for the broker.
 *
 * kafkajs does give up on a request when its reconnection fails (after its client's few tries, over a
 * broker restart): it takes the numbers back although the broker may have written the request. So after
 * any failed request a new producer, with a new id, takes over, and no later request goes out under
 * numbers the broker may hold. When the broker refuses the numbering itself (its producer id expired,
 * sequence numbers out of order) the callers are failed as retriable too (KAFKA_PRODUCER_RESET).
 */
export class OutboundQueue {
  readonly #createProducer: () => KafkaJsProducer;
  #producer: KafkaJsProducer;
  readonly #options: OutboundOptions;
  readonly #logger: Logger;
  readonly #queue: Entry[] = [];
  #queued = { records: 0, bytes: 0 };
  #inFlight = false;
  readonly #outstanding = new Set<Entry>();
  #idle: (() => void)[] = [];
  #linger: NodeJS.Timeout | undefined;
  #sweeper: NodeJS.Timeout | undefined;
  #connecting: Promise<void> | undefined;
  #closed = false;

  /** `createProducer` makes an idempotent kafkajs producer (a new one when the broker lost the old one's state). */
  constructor(createProducer: () => KafkaJsProducer, options: OutboundOptions, logger: Logger) {
    this.#createProducer = createProducer;
    this.#producer = createProducer();
    this.#options = options;
    this.#logger = logger;
  }

  connect(): Promise<void> {
    this.#connecting ??= this.#producer.connect().catch((error: unknown) => {
      this.#connecting = undefined;
      throw fromKafkaJsError(error, 'connecting the producer');
    });
    return this.#connecting;
  }

  send(topic: string, messages: Message[]): Promise<void> {
    if (this.#closed) {
      return Promise.reject(new KafkaError('KAFKA_PRODUCER_CLOSED', 'the producer is shutting down'));
    }
    if (messages.length === 0) return Promise.resolve();
    let bytes = 0;
    for (const message of messages) bytes += messageBytes(message as Parameters<typeof messageBytes>[0]);
    return new Promise<void>((resolve, reject) => {
      const entry: Entry = {
        topic,
        messages,
        records: messages.length,
        bytes,
        deadline: Date.now() + this.#options.deliveryTimeoutMs,
        settled: false,
        resolve,
        reject,
      };
      this.#queue.push(entry);
      this.#outstanding.add(entry);
      this.#queued.records += messages.length;
      this.#queued.bytes += bytes;
      this.#armSweeper();
      if (this.#inFlight) return;
      if (isFull(this.#queued, this.#options.limits) || this.#options.lingerMs <= 0) {
        queueMicrotask(() => this.#kick());
      } else {
        this.#linger ??= setTimeout(() => this.#kick(), this.#options.lingerMs);
      }
    });
  }

  flush(): Promise<void> {
    if (this.#outstanding.size === 0) return Promise.resolve();
    this.#kick();
    return new Promise((resolve) => this.#idle.push(resolve));
  }

  async close(): Promise<void> {
    this.#closed = true;
    await this.flush();
    clearTimeout(this.#linger);
    clearInterval(this.#sweeper);
    if (this.#connecting) {
      await this.#producer.disconnect().catch((error: unknown) => {
        this.#logger.warn({ err: error }, 'producer disconnect failed');
      });
      this.#connecting = undefined;
    }
  }

  #kick(): void {
    clearTimeout(this.#linger);
    this.#linger = undefined;
    if (this.#inFlight || this.#queue.length === 0) return;
    const batch = takeBatch(this.#queue, this.#options.limits);
    for (const entry of batch) {
      this.#queued.records -= entry.records;
      this.#queued.bytes -= entry.bytes;
    }
    this.#inFlight = true;
    // Its callers are told by their delivery timeout (the sweeper); the next request waits for this one.
    void this.#dispatch(batch).finally(() => {
      this.#inFlight = false;
      if (this.#queue.length > 0) this.#kick();
    });
  }

  async #dispatch(batch: Entry[]): Promise<void> {
    try {
      await this.connect();
    } catch (error) {
      // Nothing was sent: the same producer tries again with the next request.
      for (const entry of batch) this.#settle(entry, error);
      return;
    }
    const live = batch.filter((entry) => !entry.settled);
    if (live.length === 0) return;
    try {
      await this.#producer.sendBatch({
        topicMessages: groupByTopic(live),
        acks: -1,
        compression: compressionType(this.#options.compression),
      });
      for (const entry of batch) this.#settle(entry);
    } catch (error) {
      const refused = lostProducerState(error);
      // kafkajs gives a request's numbers back when it gives up on it, but the broker may have written
      // it (its answer lost, and the broker away longer than kafkajs reconnects for). The next request
      // under those numbers would be taken by the broker for that one and dropped, its callers told it is
      // written (or refused as out of order, another size). So after any failed request, a new producer,
      // with a new id and its own numbering, sends what follows; a request refused for its numbering is
      // no different. The callers' records may be written: sent again, they are written (again).
      this.#replaceProducer(error, refused);
      const failure = refused
        ? new KafkaError(
            'KAFKA_PRODUCER_RESET',
            "producing to Kafka: the broker no longer knows the producer's numbering; a new producer takes over",
            { cause: error },
          )
        : fromKafkaJsError(error, 'producing to Kafka');
      for (const entry of batch) this.#settle(entry, failure);
    }
  }

  /** Nothing is in flight (kafkajs gave up on the request): the old producer goes, a new one takes over. */
  #replaceProducer(error: unknown, refused: boolean): void {
    this.#logger.warn(
      { err: error },
      refused
        ? "the broker no longer knows the producer's numbering; a new producer takes over"
        : 'a produce request failed (it may be written); a new producer, with its own numbering, takes over',
    );
    const retired = this.#producer;
    const wasConnected = this.#connecting !== undefined;
    this.#producer = this.#createProducer();
    this.#connecting = undefined;
    if (wasConnected) {
      void retired.disconnect().catch((failure: unknown) => {
        this.#logger.warn({ err: failure }, 'retired producer disconnect failed');
      });
    }
  }

  #settle(entry: Entry, error?: unknown): void {
    if (entry.settled) return;
    entry.settled = true;
    if (error === undefined) entry.resolve();
    else entry.reject(error);
    this.#outstanding.delete(entry);
    if (this.#outstanding.size === 0) {
      clearInterval(this.#sweeper);
      this.#sweeper = undefined;
      const idle = this.#idle;
      this.#idle = [];
      for (const resolve of idle) resolve();
    }
  }

  #armSweeper(): void {
    if (this.#sweeper) return;
    const every = Math.max(20, Math.min(1_000, Math.floor(this.#options.deliveryTimeoutMs / 10)));
    this.#sweeper = setInterval(() => this.#sweep(), every);
    this.#sweeper.unref();
  }

  /** Fails sends past their deadline; queued ones are dropped so they are never written after the failure. */
  #sweep(): void {
    const now = Date.now();
    const timeout = new KafkaError(
      'KAFKA_SEND_TIMEOUT',
      `records not acknowledged within ${this.#options.deliveryTimeoutMs} ms`,
    );
    for (const entry of this.#outstanding) {
      if (entry.deadline > now) continue;
      const queuedAt = this.#queue.indexOf(entry);
      if (queuedAt >= 0) {
        this.#queue.splice(queuedAt, 1);
        this.#queued.records -= entry.records;
        this.#queued.bytes -= entry.bytes;
      }
      // An entry already handed to kafkajs: its caller is released; its records may still land.
      this.#settle(entry, timeout);
    }
  }
}

/** Answers of the broker after which kafkajs's idempotent producer cannot go on with its numbering. */
const producerStateErrors = new Set([
  'OUT_OF_ORDER_SEQUENCE_NUMBER',
  // Old brokers' answer to a repeat of a batch they hold: the same numbers would be refused again.
  'DUPLICATE_SEQUENCE_NUMBER',
  'UNKNOWN_PRODUCER_ID',
  'INVALID_PRODUCER_EPOCH',
  'INVALID_PRODUCER_ID_MAPPING',
]);

/** Whether a failed send (or what caused it) is the broker refusing the producer's numbering. */
export function lostProducerState(error: unknown): boolean {
  for (let cause = error, depth = 0; cause instanceof Error && depth < 5; depth += 1) {
    const type = (cause as { type?: unknown }).type;
    if (typeof type === 'string' && producerStateErrors.has(type)) return true;
    cause = (cause as { cause?: unknown }).cause ?? (cause as { originalError?: unknown }).originalError;
  }
  return false;
}

export function createProducer<M>(
  outbound: OutboundQueue,
  codecs: TopicCodecs<M>,
  tracing?: Tracing,
): Producer<M> {
  return {
    connect: () => outbound.connect(),
    send(topic, records) {
      const codec = codecs[topic] as AvroCodec<unknown> | undefined;
      if (!codec) {
        return Promise.reject(
          new KafkaError('KAFKA_REQUEST_REJECTED', `no codec configured for topic ${topic}`),
        );
      }
      let messages: Message[];
      // One producer span per record: the child of the trace the record names (the caller's), else of the
      // trace of its transaction; the record carries the span on to its consumers.
      const spans = tracing ? records.map((record) => producerSpan(tracing, String(topic), record)) : [];
      try {
        messages = records.map((record, index) => {
          const traced = spans[index]?.headers;
          const headers = record.headers || traced ? { ...record.headers, ...traced } : undefined;
          return {
            key: record.key,
            value: codec.encode(record.value),
            ...(headers ? { headers } : {}),
          };
        });
      } catch (error) {
        endSpans(spans, error);
        return Promise.reject(error);
      }
      if (spans.length === 0) return outbound.send(topic, messages);
      return outbound.send(topic, messages).then(
        () => endSpans(spans),
        (error: unknown) => {
          endSpans(spans, error);
          throw error;
        },
      );
    },
    flush: () => outbound.flush(),
    disconnect: () => outbound.close(),
  };
}

function producerSpan(tracing: Tracing, topic: string, record: ProducerRecord<unknown>): TraceSpan {
  // The record's own trace headers, else the ambient span's (an HTTP request being answered).
  const parent = record.headers?.traceparent ? record.headers : tracing.currentHeaders(record.key);
  return tracing.startSpan(`send ${topic}`, {
    role: 'producer',
    ...(parent ? { parent } : {}),
    uetr: record.key,
    attributes: { 'messaging.system': 'kafka', 'messaging.destination.name': topic },
  });
}

function endSpans(spans: readonly TraceSpan[], error?: unknown): void {
  for (const span of spans) {
    if (error !== undefined) span.fail(error);
    span.end();
  }
}
