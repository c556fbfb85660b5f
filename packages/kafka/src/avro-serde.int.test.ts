import { SchemaRegistry, SchemaType } from '@kafkajs/confluent-schema-registry';
import avsc from 'avsc';
import { beforeAll, describe, expect, test } from 'vitest';
import {
  avroOptions,
  DecimalString,
  endpoints,
  type PaymentStep,
  type PaymentStepV2,
  paymentStepV1,
  paymentStepV2,
  uniqueName,
} from '../test/fixtures.ts';
import { createAvroSerde, knownTypeHook } from './avro-serde.ts';
import { KafkaError } from './errors.ts';
import { createRegistryClient, type RegistryClient } from './registry-client.ts';

let registryUrl: string;

beforeAll(async () => {
  ({ registryUrl } = await endpoints());
});

/** The real registry client, counting the HTTP calls it makes. */
function countingClient(url: string) {
  const real = createRegistryClient({ url });
  const calls = { register: 0, schemaById: 0, latest: 0 };
  const client: RegistryClient = {
    register: (subject, schema) => {
      calls.register += 1;
      return real.register(subject, schema);
    },
    schemaById: (id) => {
      calls.schemaById += 1;
      return real.schemaById(id);
    },
    latest: (subject) => {
      calls.latest += 1;
      return real.latest(subject);
    },
  };
  return { client, calls };
}

const step = (sequence: number, amount: string): PaymentStep => ({
  uetr: 'b3a5e4a4-3c1e-4a55-9a51-6f6f7c6b2a10',
  sequence,
  amount,
});

describe('Avro serde against the schema registry', () => {
  test('registers once, encodes the Confluent wire format and round-trips decimal strings', async () => {
    const { client, calls } = countingClient(registryUrl);
    const serde = createAvroSerde({ registryUrl, avro: avroOptions }, client);
    const subject = `${uniqueName('serde')}-value`;
    const id = await serde.register(subject, paymentStepV1);
    expect(await serde.register(subject, paymentStepV1)).toBe(id);
    expect(calls.register).toBe(1);

    const codec = await serde.codec<PaymentStep>(subject, paymentStepV1);
    expect(codec.schemaId).toBe(id);
    for (const amount of ['0.01', '-129.00', '1234.50', '9999999999999999.99', '-0.10']) {
      const bytes = codec.encode(step(1, amount));
      expect(bytes[0]).toBe(0);
      expect(bytes.readUInt32BE(1)).toBe(id);
      expect(await codec.decode(bytes)).toEqual(step(1, amount));
      expect(await serde.decode(bytes)).toEqual(step(1, amount));
    }
    expect(calls.register).toBe(1);
    expect(calls.schemaById).toBe(0);
  });

  test('a reader fetches a writer schema by id once, never per message', async () => {
    const subject = `${uniqueName('serde')}-value`;
    const writer = await createAvroSerde({ registryUrl, avro: avroOptions }).codec<PaymentStep>(
      subject,
      paymentStepV1,
    );
    const values = Array.from({ length: 1_000 }, (_, index) => writer.encode(step(index, `${index}.25`)));

    const { client, calls } = countingClient(registryUrl);
    const reader = createAvroSerde({ registryUrl, avro: avroOptions }, client);
    const decoded = await Promise.all(values.map((value) => reader.decode(value)));
    expect(decoded[999]).toEqual(step(999, '999.25'));
    expect(calls.schemaById).toBe(1);
  });

  test('is wire compatible with @kafkajs/confluent-schema-registry in both directions', async () => {
    const subject = `${uniqueName('interop')}-value`;
    const codec = await createAvroSerde({ registryUrl, avro: avroOptions }).codec<PaymentStep>(
      subject,
      paymentStepV1,
    );
    const other = new SchemaRegistry(
      { host: registryUrl },
      { [SchemaType.AVRO]: { logicalTypes: { decimal: DecimalString } } },
    );
    expect(await other.decode(codec.encode(step(7, '42.42')))).toEqual(step(7, '42.42'));
    expect(await codec.decode(await other.encode(codec.schemaId, step(8, '-1.05')))).toEqual(
      step(8, '-1.05'),
    );
  });

  test('resolves between schema versions (a v1 reader reads v2 records and the other way round)', async () => {
    const subject = `${uniqueName('evolve')}-value`;
    const serde = createAvroSerde({ registryUrl, avro: avroOptions });
    const v1 = await serde.codec<PaymentStep>(subject, paymentStepV1);
    const v2 = await serde.codec<PaymentStepV2>(subject, paymentStepV2);
    expect(v2.schemaId).not.toBe(v1.schemaId);
    expect(await v1.decode(v2.encode({ ...step(2, '5.00'), channel: 'RTC' }))).toEqual(step(2, '5.00'));
    expect(await v2.decode(v1.encode(step(3, '6.00')))).toEqual({ ...step(3, '6.00'), channel: 'EFT' });

    const fresh = createAvroSerde({ registryUrl, avro: avroOptions });
    const latest = await fresh.encode(subject, { ...step(4, '1.00'), channel: 'X' });
    expect(latest.readUInt32BE(1)).toBe(v2.schemaId);
  });

  test('refuses values that do not match the schema, naming the fields', async () => {
    const codec = await createAvroSerde({ registryUrl, avro: avroOptions }).codec<PaymentStep>(
      `${uniqueName('invalid')}-value`,
      paymentStepV1,
    );
    const attempt = (value: unknown) => {
      try {
        codec.encode(value as PaymentStep);
      } catch (error) {
        return error as KafkaError;
      }
      throw new Error('encode accepted an invalid value');
    };
    const tooPrecise = attempt(step(1, '1.234'));
    expect(tooPrecise.reason).toBe('AVRO_INVALID_VALUE');
    expect(tooPrecise.retriable).toBe(false);
    expect(tooPrecise.message).toMatch(/amount/);
    expect(attempt({ ...step(1, '1.00'), sequence: 1.5 }).message).toMatch(/sequence/);
    expect(attempt({ uetr: 'x', sequence: 1 }).message).toMatch(/amount/);
    expect(attempt({ ...step(1, '1.00'), amount: 12.5 }).message).toMatch(/amount/);
  });

  test('bytes that can never be decoded come back as failures; a registry outage throws, retriable', async () => {
    const serde = createAvroSerde({ registryUrl, avro: avroOptions });
    const codec = await serde.codec<PaymentStep>(`${uniqueName('poison')}-value`, paymentStepV1);
    const good = codec.encode(step(1, '1.00'));
    const unknownId = Buffer.from(good);
    unknownId.writeUInt32BE(2_000_000_000, 1);
    const outcomes = await codec.decodeMany([
      good,
      Buffer.from('{"uetr":"not avro"}'),
      unknownId,
      good.subarray(0, good.length - 3),
      null,
    ]);
    expect(outcomes[0]).toEqual({ ok: true, value: step(1, '1.00') });
    const codes = outcomes.slice(1).map((outcome) => (outcome.ok ? 'ok' : outcome.error.reason));
    expect(codes).toEqual([
      'AVRO_NOT_WIRE_FORMAT',
      'SCHEMA_NOT_FOUND',
      'AVRO_DECODE_FAILED',
      'AVRO_NOT_WIRE_FORMAT',
    ]);

    const offline = createAvroSerde({
      registryUrl: 'http://127.0.0.1:1/apis/ccompat/v7',
      requestTimeoutMs: 2_000,
    });
    const failure = await offline.decode(good).catch((error: unknown) => error as KafkaError);
    expect(failure).toBeInstanceOf(KafkaError);
    expect((failure as KafkaError).reason).toBe('SCHEMA_REGISTRY_UNAVAILABLE');
    expect((failure as KafkaError).retriable).toBe(true);
    await expect(offline.register('x-value', paymentStepV1)).rejects.toMatchObject({
      reason: 'SCHEMA_REGISTRY_UNAVAILABLE',
    });
  });

  test('refuses an invalid schema before asking the registry', async () => {
    const serde = createAvroSerde({ registryUrl });
    await expect(
      serde.register(`${uniqueName('bad')}-value`, { type: 'record', name: 'X', fields: [{ name: 'a' }] }),
    ).rejects.toMatchObject({
      reason: 'AVRO_INVALID_SCHEMA',
      retriable: false,
    });
  });
});

describe('known named types', () => {
  test('fill references a schema does not define, and never clash with ones it does', () => {
    const currency = avsc.Type.forSchema({
      type: 'enum',
      name: 'za.rp.test.Currency',
      symbols: ['ZAR', 'USD'],
    });
    const hook = knownTypeHook({ 'za.rp.test.Currency': currency });
    const referencing = avsc.Type.forSchema(
      { type: 'record', name: 'za.rp.test.Amount', fields: [{ name: 'currency', type: 'Currency' }] },
      { typeHook: hook },
    );
    expect(referencing.fromBuffer(referencing.toBuffer({ currency: 'ZAR' }))).toEqual({ currency: 'ZAR' });
    const defining = avsc.Type.forSchema(
      {
        type: 'record',
        name: 'za.rp.test.Amount',
        fields: [{ name: 'currency', type: { type: 'enum', name: 'Currency', symbols: ['EUR'] } }],
      },
      { typeHook: hook },
    );
    expect(defining.isValid({ currency: 'EUR' })).toBe(true);
    expect(defining.isValid({ currency: 'ZAR' })).toBe(false);
  });
});
