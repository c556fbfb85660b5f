import avro from 'avsc';
import { describe, expect, it, vi } from 'vitest';
import { avroTypeOptions, DateType, DecimalType } from './logical-types.ts';

const decimal = avro.Type.forSchema(
  { type: 'bytes', logicalType: 'decimal', precision: 18, scale: 5 } as avro.Schema,
  avroTypeOptions(),
);
const date = avro.Type.forSchema({ type: 'int', logicalType: 'date' } as avro.Schema, avroTypeOptions());

describe('Avro decimal as a decimal string', () => {
  it.each([
    '0',
    '0.1',
    '0.3',
    '1500',
    '-42.5',
    '9999999999999.99',
    '9999999999999.99999',
    '-9999999999999.99999',
    '0.00001',
  ])('round-trips %s exactly', (value) => {
    expect(decimal.fromBuffer(decimal.toBuffer(value))).toBe(value);
  });

  it('decodes to the canonical form', () => {
    expect(decimal.fromBuffer(decimal.toBuffer('1500.00'))).toBe('1500');
  });

  it("stores the unscaled two's-complement integer Avro specifies", () => {
    // 1.5 at scale 5 is 150000 = 0x0249F0; the bytes field is length-prefixed (zig-zag 3 = 0x06).
    expect(decimal.toBuffer('1.5').toString('hex')).toBe('060249f0');
    // -1 at scale 5 is -100000 = 0xFE7960.
    expect(decimal.toBuffer('-1').toString('hex')).toBe('06fe7960');
  });

  it('refuses values it would have to round or cannot hold', () => {
    expect(() => decimal.toBuffer('0.000001')).toThrow(/decimal places/);
    expect(() => decimal.toBuffer('12345678901234')).toThrow(/integer digits/);
    expect(() => decimal.toBuffer(0.1)).toThrow(/decimal string/);
    expect(decimal.isValid('1.5')).toBe(true);
    expect(decimal.isValid('abc')).toBe(false);
  });

  it('reads values written with another decimal scale', () => {
    const writer = avro.Type.forSchema(
      { type: 'bytes', logicalType: 'decimal', precision: 10, scale: 2 } as avro.Schema,
      avroTypeOptions(),
    );
    const resolver = decimal.createResolver(writer);
    expect(decimal.fromBuffer(writer.toBuffer('12.34'), resolver)).toBe('12.34');
  });
});

describe('Avro date as an RFC 3339 full-date', () => {
  it('round-trips calendar dates as days since the epoch', () => {
    expect(date.fromBuffer(date.toBuffer('2025-03-17'))).toBe('2025-03-17');
    expect(date.fromBuffer(date.toBuffer('1969-12-31'))).toBe('1969-12-31');
    expect(avro.Type.forSchema('int').fromBuffer(date.toBuffer('1970-01-02'))).toBe(1);
  });

  it('refuses dates that do not exist', () => {
    expect(() => date.toBuffer('2025-02-30')).toThrow(/calendar date/);
    expect(() => date.toBuffer('17/03/2025')).toThrow(/calendar date/);
  });

  it('converts every date the same way however often it is asked, past what it remembers', () => {
    const int = avro.Type.forSchema('int');
    // Twelve thousand days from 1990, twice over: three times the conversions kept, both ways.
    for (const pass of [1, 2]) {
      for (let days = 7_305; days < 19_305; days += 1) {
        const text = new Date(days * 86_400_000).toISOString().slice(0, 10);
        expect(int.fromBuffer(date.toBuffer(text)), `${text}, pass ${pass}`).toBe(days);
        expect(date.fromBuffer(int.toBuffer(days)), `${days}, pass ${pass}`).toBe(text);
      }
      // A refused date is refused again: nothing about it is remembered.
      expect(() => date.toBuffer('2025-02-29')).toThrow(/calendar date/);
    }
  });
});

describe('optional dates and amounts (unions with null)', () => {
  const optional = avro.Type.forSchema(
    {
      type: 'record',
      name: 'Optionals',
      fields: [
        { name: 'on', type: ['null', { type: 'int', logicalType: 'date' }], default: null },
        {
          name: 'amount',
          type: ['null', { type: 'bytes', logicalType: 'decimal', precision: 18, scale: 5 }],
          default: null,
        },
      ],
    } as avro.Schema,
    avroTypeOptions(),
  );

  it('round-trips null and values, and refuses what is neither', () => {
    for (const value of [
      { on: null, amount: null },
      { on: '2025-03-17', amount: '12.5' },
    ]) {
      expect(optional.fromBuffer(optional.toBuffer(value))).toEqual(value);
    }
    expect(optional.isValid({ on: 20250317, amount: null })).toBe(false);
    expect(optional.isValid({ on: null, amount: 12.5 })).toBe(false);
    expect(optional.isValid({ on: '2025-02-30', amount: null })).toBe(false);
  });

  it('writes a null without trying to convert it (a failed conversion costs an Error and its stack)', () => {
    const dates = vi.spyOn(DateType.prototype as unknown as { _toValue: () => number }, '_toValue');
    const decimals = vi.spyOn(DecimalType.prototype as unknown as { _toValue: () => Buffer }, '_toValue');
    try {
      optional.toBuffer({ on: null, amount: null });
      expect(dates).not.toHaveBeenCalled();
      expect(decimals).not.toHaveBeenCalled();
    } finally {
      dates.mockRestore();
      decimals.mockRestore();
    }
  });
});
