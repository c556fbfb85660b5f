import { infra, uniqueName } from '@rp/testkit';
import avsc from 'avsc';
import { Kafka, type KafkaMessage, logLevel } from 'kafkajs';

/**
 * Avro `decimal` on `bytes` whose JS value is a decimal string ("1234.50"), the way the contracts package
 * represents money: exact, never a float.
 */
export class DecimalString extends avsc.types.LogicalType {
  readonly scale: number;
  readonly precision: number;

  constructor(schema: avsc.Schema, options?: unknown) {
    super(schema, options);
    const { scale, precision } = schema as unknown as { scale?: number; precision: number };
    this.scale = scale ?? 0;
    this.precision = precision;
  }

  protected override _fromValue(bytes: Buffer): string {
    let unscaled = bytes.length > 0 && (bytes[0] as number) & 0x80 ? -1n : 0n;
    for (const byte of bytes) unscaled = (unscaled << 8n) | BigInt(byte);
    const negative = unscaled < 0n;
    const digits = (negative ? -unscaled : unscaled).toString().padStart(this.scale + 1, '0');
    const whole = digits.slice(0, digits.length - this.scale);
    const fraction = digits.slice(digits.length - this.scale);
    return `${negative ? '-' : ''}${whole}${this.scale > 0 ? `.${fraction}` : ''}`;
  }

  protected override _toValue(value: unknown): Buffer | undefined {
    if (typeof value !== 'string') return undefined;
    const match = /^(-?)(\d+)(?:\.(\d+))?$/.exec(value);
    if (!match) return undefined;
    const fraction = match[3] ?? '';
    if (fraction.length > this.scale) return undefined;
    const digits = `${match[2]}${fraction.padEnd(this.scale, '0')}`.replace(/^0+(?=\d)/, '');
    if (digits.length > this.precision) return undefined;
    let unscaled = BigInt(digits) * (match[1] ? -1n : 1n);
    const bytes: number[] = [];
    for (;;) {
      bytes.unshift(Number(unscaled & 0xffn));
      const rest = unscaled >> 8n;
      const signBit = ((bytes[0] as number) & 0x80) !== 0;
      if ((rest === 0n && !signBit) || (rest === -1n && signBit)) break;
      unscaled = rest;
    }
    return Buffer.from(bytes);
  }

  protected override _resolve(type: avsc.Type): ((value: string) => string) | undefined {
    if (type instanceof DecimalString && type.scale === this.scale) return (value) => value;
    return undefined;
  }
}

export const avroOptions = { logicalTypes: { decimal: DecimalString } };

/** v1 of the test record: a transaction's sequence number and an amount. */
export const paymentStepV1 = {
  type: 'record',
  name: 'PaymentStep',
  namespace: 'za.rp.test',
  fields: [
    { name: 'uetr', type: 'string' },
    { name: 'sequence', type: 'int' },
    { name: 'amount', type: { type: 'bytes', logicalType: 'decimal', precision: 18, scale: 2 } },
  ],
} as const;

/** v2 adds a field with a default: backward compatible, so v1 readers resolve v2 writers. */
export const paymentStepV2 = {
  ...paymentStepV1,
  fields: [...paymentStepV1.fields, { name: 'channel', type: 'string', default: 'EFT' }],
} as const;

export interface PaymentStep {
  uetr: string;
  sequence: number;
  amount: string;
}

export interface PaymentStepV2 extends PaymentStep {
  channel: string;
}

export async function endpoints() {
  const found = await infra();
  return { brokers: found.kafkaBrokers, registryUrl: found.schemaRegistryUrl };
}

export { uniqueName };

/** A promise with its resolver, for waiting on a condition signalled by a handler. */
export function signal<T = void>(): {
  promise: Promise<T>;
  resolve(value: T): void;
  reject(error: unknown): void;
} {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((yes, no) => {
    resolve = yes;
    reject = no;
  });
  return { promise, resolve, reject };
}

/** Rejects if `promise` has not settled within `ms`: a guard so a lost signal fails the test with a reason. */
export function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms);
  });
  return Promise.race([promise, limit]).finally(() => clearTimeout(timer));
}

export interface RawRecord {
  key: string;
  value: Buffer | null;
  headers: Record<string, string>;
  partition: number;
  offset: string;
}

/** Reads `count` records of a topic from the beginning with a plain kafkajs consumer (no decoding). */
export async function readTopic(brokers: string[], topic: string, count: number): Promise<RawRecord[]> {
  const kafka = new Kafka({ clientId: 'kafka-test-reader', brokers, logLevel: logLevel.NOTHING });
  const consumer = kafka.consumer({ groupId: uniqueName('reader'), maxWaitTimeInMs: 200 });
  const records: RawRecord[] = [];
  const done = signal();
  await consumer.connect();
  await consumer.subscribe({ topics: [topic], fromBeginning: true });
  await consumer.run({
    eachMessage: async ({ partition, message }) => {
      records.push(toRaw(partition, message));
      if (records.length >= count) done.resolve();
    },
  });
  try {
    await within(done.promise, 60_000, `${count} records on ${topic}`);
  } finally {
    await consumer.disconnect();
  }
  return records;
}

function toRaw(partition: number, message: KafkaMessage): RawRecord {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(message.headers ?? {})) {
    if (value !== undefined) headers[name] = value.toString();
  }
  return {
    key: message.key?.toString() ?? '',
    value: message.value,
    headers,
    partition,
    offset: message.offset,
  };
}

/** A plain kafkajs producer for writing bytes the project's producer would refuse to write. */
export async function rawProducer(brokers: string[]) {
  const kafka = new Kafka({ clientId: 'kafka-test-raw', brokers, logLevel: logLevel.NOTHING });
  const producer = kafka.producer({ allowAutoTopicCreation: false });
  await producer.connect();
  return producer;
}
