import avro from 'avsc';
import { describe, expect, it } from 'vitest';
import { messageNames } from '../generated/types.ts';
import { schemaSet } from '../schema-set.ts';
import { avroSchema } from './codec.ts';
import { avroTypeOptions } from './logical-types.ts';
import type { AvroFile } from './raw-schema.ts';
import { assembleSchemas } from './schema-set.ts';

const amount: AvroFile = {
  path: 'types/Money.avsc',
  schema: {
    type: 'record',
    name: 'Money',
    namespace: 'za.rp.test',
    fields: [{ name: 'value', type: { type: 'bytes', logicalType: 'decimal', precision: 18, scale: 5 } }],
  },
};
const order = (fields: unknown[]): AvroFile => ({
  path: 'Order.avsc',
  schema: { type: 'record', name: 'Order', namespace: 'za.rp.test', fields } as AvroFile['schema'],
});

describe('the schema set', () => {
  it('parses every top-level schema into one shared registry', () => {
    const set = schemaSet();
    expect(set.messages.map((message) => message.name).sort()).toEqual([...messageNames].sort());
    expect(set.registry['za.rp.v1.Amount']).toBeDefined();
    // Named types are parsed once: the DirectDebit and the CreditTransfer share the same Amount type.
    const direct = set.type('DirectDebit') as unknown as { fields: { name: string; type: avro.Type }[] };
    const amounts = direct.fields.find((field) => field.name === 'amounts')?.type as unknown as {
      fields: { type: avro.Type }[];
    };
    expect(amounts.fields[0]?.type).toBe(set.registry['za.rp.v1.Amount']);
  });

  it.each(messageNames)('expands %s into a self-contained schema equal to the assembled one', (name) => {
    const expanded = avroSchema(name);
    const standalone = avro.Type.forSchema(expanded as avro.Schema, avroTypeOptions());
    expect(standalone.fingerprint().toString('hex')).toBe(
      schemaSet().type(name).fingerprint().toString('hex'),
    );
    const text = JSON.stringify(expanded);
    // Each named type is defined once; later uses refer to it by full name.
    expect(text.match(/"name":"Amount"/g)?.length ?? 0).toBeLessThanOrEqual(1);
  });

  it('keeps the constraint attributes in the expanded schema', () => {
    expect(JSON.stringify(avroSchema('DirectDebit'))).toContain('"maxLength":35');
    expect(JSON.stringify(avroSchema('DirectDebit'))).toContain('"atLeastOneOf":["identification","proxy"]');
  });

  it('refuses a reference to a type that is not defined', () => {
    expect(() => assembleSchemas([order([{ name: 'total', type: 'za.rp.test.Missing' }])])).toThrow(
      /undefined type za.rp.test.Missing/,
    );
  });

  it('refuses a misspelt constraint attribute', () => {
    expect(() =>
      assembleSchemas([order([{ name: 'reference', type: { type: 'string', maxLenght: 35 } }])]),
    ).toThrow(/attribute maxLenght is not supported/);
  });

  it('refuses an optional field that is not ["null", ...] with default null', () => {
    expect(() =>
      assembleSchemas([amount, order([{ name: 'total', type: ['za.rp.test.Money', 'null'] }])]),
    ).toThrow(/optional field total/);
  });

  it('refuses a named type defined twice', () => {
    expect(() => assembleSchemas([amount, { ...amount, path: 'types/Money2.avsc' }])).toThrow(
      /defined twice/,
    );
  });
});
