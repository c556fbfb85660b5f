import { readdirSync, readFileSync } from 'node:fs';
import avro from 'avsc';
import { describe, expect, it } from 'vitest';
import type { MessageName } from '../generated/types.ts';
import { parseJsonExact } from '../json/exact-json.ts';
import { validate } from '../json/validate.ts';
import { avroType, recordConstants } from './codec.ts';
import {
  checkedToAvroValue,
  fromAvroValue,
  mapLogicalValues,
  toAvroValue,
  walkFromAvroValue,
  walkLogicalValues,
} from './values.ts';

const examplesDir = new URL('../../../../avro/examples/', import.meta.url);
const examples = readdirSync(examplesDir)
  .filter((file) => file.endsWith('.json'))
  .sort()
  .map((file) => {
    const message = file.slice(0, file.indexOf('.')) as MessageName;
    const result = validate(message, parseJsonExact(readFileSync(new URL(file, examplesDir), 'utf8')));
    if (!result.ok) throw new Error(`${file} is invalid: ${JSON.stringify(result.errors)}`);
    return { file, message, value: result.value as unknown };
  });

type Outcome = { value: unknown } | { error: string };

function outcome(run: () => unknown): Outcome {
  try {
    return { value: run() };
  } catch (error) {
    return { error: error instanceof Error ? error.message : String(error) };
  }
}

/**
 * Every variant of a message with one thing wrong or changed: each member removed, set to a number, a
 * string, null, an empty object or array; an unknown member added to each object.
 */
function* variants(value: unknown): Generator<unknown> {
  function* at(node: unknown, replaceWith: (next: unknown) => unknown): Generator<unknown> {
    if (Array.isArray(node)) {
      for (let index = 0; index < node.length; index += 1) {
        const swap = (next: unknown) =>
          replaceWith(node.map((item, position) => (position === index ? next : item)));
        yield* at(node[index], swap);
      }
      yield replaceWith({});
      return;
    }
    if (typeof node === 'object' && node !== null) {
      const object = node as Record<string, unknown>;
      yield replaceWith({ ...object, unknownMember: 'x' });
      for (const key of Object.keys(object)) {
        const { [key]: _removed, ...without } = object;
        yield replaceWith(without);
        for (const next of [42, 'x', null, {}, [], true]) yield replaceWith({ ...object, [key]: next });
        yield* at(object[key], (next) => replaceWith({ ...object, [key]: next }));
      }
    }
  }
  yield* at(value, (next) => next);
}

describe('compiled conversions', () => {
  it.each(examples)('convert $file as the walk of its type does', ({ message, value }) => {
    const type = avroType(message);
    const constants = recordConstants();
    const avroValue = toAvroValue(type, value, constants);
    expect(avroValue).toEqual(checkedToAvroValue(type, value, constants));
    const decoded = type.fromBuffer(type.toBuffer(avroValue));
    expect(fromAvroValue(type, decoded)).toEqual(walkFromAvroValue(type, decoded));
    expect(fromAvroValue(type, decoded)).toEqual(value);
    const replace = (decimal: unknown) => `#${String(decimal)}`;
    expect(mapLogicalValues(type, value, constants, 'decimal', replace)).toEqual(
      walkLogicalValues(type, value, constants, 'decimal', replace),
    );
  });

  it.each(examples)(
    'accept and refuse every variant of $file as the walk does, with its message',
    ({ message, value }) => {
      const type = avroType(message);
      const constants = recordConstants();
      const replace = (decimal: unknown) => `#${String(decimal)}`;
      let refused = 0;
      let count = 0;
      for (const variant of variants(value)) {
        count += 1;
        const compiled = outcome(() => toAvroValue(type, variant, constants));
        expect(compiled).toEqual(outcome(() => checkedToAvroValue(type, variant, constants)));
        if ('error' in compiled) refused += 1;
        expect(outcome(() => mapLogicalValues(type, variant, constants, 'decimal', replace))).toEqual(
          outcome(() => walkLogicalValues(type, variant, constants, 'decimal', replace)),
        );
      }
      // The variants reach both sides: some are refused, some still convert.
      expect(refused).toBeGreaterThan(0);
      expect(refused).toBeLessThan(count);
    },
  );

  it('converts records of any shape, in both directions, as the walks do', () => {
    // Members named like the generated code's own (value, mismatch, c0, v0), an array of strings kept as
    // it is, a nested record, an optional member absent and present.
    const type = avro.Type.forSchema({
      type: 'record',
      name: 'Shapes',
      fields: [
        { name: 'value', type: 'string' },
        { name: 'mismatch', type: ['null', 'long'], default: null },
        { name: 'c0', type: { type: 'array', items: 'string' } },
        {
          name: 'v0',
          type: { type: 'record', name: 'Inner', fields: [{ name: 'constructor', type: 'boolean' }] },
        },
      ],
    });
    const constants = new Map<string, Readonly<Record<string, unknown>>>();
    for (const plain of [
      { value: 'a', c0: ['x', 'y'], v0: { constructor: true } },
      { value: 'b', mismatch: 7, c0: [], v0: { constructor: false } },
    ]) {
      const avroValue = toAvroValue(type, plain, constants);
      expect(avroValue).toEqual(checkedToAvroValue(type, plain, constants));
      const decoded = type.fromBuffer(type.toBuffer(avroValue));
      expect(fromAvroValue(type, decoded)).toEqual(walkFromAvroValue(type, decoded));
      expect(fromAvroValue(type, decoded)).toEqual(plain);
    }
    expect(() =>
      toAvroValue(type, { value: 'a', c0: [], v0: { constructor: true }, extra: 1 }, constants),
    ).toThrow('/extra: is not a member of Shapes');
    expect(() => toAvroValue(type, { value: 'a', c0: 'x', v0: { constructor: true } }, constants)).toThrow(
      '/c0: must be an array',
    );
  });

  it('converts a record without fields, and refuses any member it is given', () => {
    const type = avro.Type.forSchema({ type: 'record', name: 'Empty', fields: [] });
    expect(toAvroValue(type, {}, new Map())).toEqual({});
    expect(fromAvroValue(type, type.fromBuffer(type.toBuffer({})))).toEqual({});
    expect(() => toAvroValue(type, { any: 1 }, new Map())).toThrow('/any: is not a member of Empty');
  });

  it('refuses to generate code for a field avsc takes but a literal would not hold (__proto__)', () => {
    const type = avro.Type.forSchema({
      type: 'record',
      name: 'Prototyped',
      fields: [{ name: '__proto__', type: 'string' }],
    });
    expect(() => toAvroValue(type, {}, new Map())).toThrow('field name "__proto__" is not an Avro name');
  });

  it('names the member at fault when the compiled conversion refuses a value', () => {
    const example = examples.find((entry) => entry.message === 'DirectDebit');
    if (example === undefined) throw new Error('no DirectDebit example');
    const { debtor: _debtor, ...withoutDebtor } = example.value as Record<string, unknown>;
    expect(() => toAvroValue(avroType('DirectDebit'), withoutDebtor, recordConstants())).toThrow(
      '/debtor: is required',
    );
  });
});
