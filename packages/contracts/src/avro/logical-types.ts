import avro from 'avsc';
import { contractError } from '../errors.ts';
import { fromUnscaled, integerDigits, isDecimal, toUnscaled } from '../money/decimal.ts';
import type { DecimalString, IsoDate } from '../scalars.ts';

type Schema = avro.Schema;

interface DecimalSchema {
  type: string;
  logicalType: 'decimal';
  precision?: number;
  scale?: number;
}

/**
 * Avro `decimal` on `bytes` whose JavaScript value is a decimal string in canonical form. Encoding
 * refuses a value with more fractional digits than the scale or more digits than the precision, so a
 * value is never rounded.
 */
export class DecimalType extends avro.types.LogicalType {
  readonly precision: number;
  readonly scale: number;

  constructor(schema: Schema, opts?: unknown) {
    super(schema, opts);
    const { precision, scale = 0 } = schema as DecimalSchema;
    if (!Number.isInteger(precision) || (precision ?? 0) < 1) {
      throw contractError('INVALID_SCHEMA', `decimal precision must be a positive integer: ${precision}`);
    }
    if (!Number.isInteger(scale) || scale < 0 || scale > (precision ?? 0)) {
      throw contractError('INVALID_SCHEMA', `decimal scale must be between 0 and the precision: ${scale}`);
    }
    if (this.underlyingType.typeName !== 'bytes') {
      throw contractError('INVALID_SCHEMA', 'the decimal logical type is supported on bytes only');
    }
    this.precision = precision as number;
    this.scale = scale;
  }

  protected override _fromValue(buffer: Buffer): DecimalString {
    return fromUnscaled(bytesToBigInt(buffer), this.scale);
  }

  protected override _toValue(value: unknown): Buffer {
    return bigIntToBytes(toUnscaled(this.checked(value), this.scale));
  }

  protected override _resolve(writer: avro.Type): ((value: DecimalString) => DecimalString) | undefined {
    // Canonical strings carry no scale, so any decimal writer is readable as long as each value fits.
    if (writer instanceof DecimalType) return (value) => this.checked(value);
    return undefined;
  }

  protected override _export(schema: Schema): void {
    Object.assign(schema as object, { precision: this.precision, scale: this.scale });
  }

  private checked(value: unknown): DecimalString {
    if (typeof value !== 'string' || !isDecimal(value)) {
      throw contractError('INVALID_DECIMAL', `decimal value must be a decimal string: ${String(value)}`);
    }
    if (integerDigits(value) > this.precision - this.scale) {
      throw contractError(
        'INVALID_DECIMAL',
        `${value} has more than ${this.precision - this.scale} integer digits (decimal(${this.precision},${this.scale}))`,
      );
    }
    return value;
  }
}

const dayMs = 86_400_000;
const isoDate = /^([0-9]{4})-([0-9]{2})-([0-9]{2})$/;

/** Avro `date` on `int` (days since 1970-01-01) whose JavaScript value is an RFC 3339 full-date string. */
export class DateType extends avro.types.LogicalType {
  protected override _fromValue(days: number): IsoDate {
    let date = datesByDay.get(days);
    if (date === undefined) {
      date = new Date(days * dayMs).toISOString().slice(0, 10);
      remember(datesByDay, days, date);
    }
    return date;
  }

  protected override _toValue(value: unknown): number {
    return daysSinceEpoch(value);
  }

  protected override _resolve(writer: avro.Type): ((value: unknown) => IsoDate) | undefined {
    if (writer instanceof DateType) return (value) => value as IsoDate;
    if (writer.typeName === 'int') return (value) => this._fromValue(value as number);
    return undefined;
  }
}

type CheckHook = (value: unknown, type: avro.Type) => void;
type Check = (this: avro.Type, value: unknown, flags?: unknown, hook?: CheckHook, path?: string[]) => boolean;
const logicalCheck = (avro.types.LogicalType.prototype as unknown as { _check: Check })._check;

/**
 * avsc asks each logical branch of a union whether a value is its own through `_check`, which by default
 * converts the value and catches what the conversion throws: an Error, with its stack, for every null
 * written through an optional amount or date (most of the time of encoding a message). Both types hold
 * strings only: anything else is refused here without an Error, a string is checked as before.
 */
function checkStrings(this: avro.Type, value: unknown, flags?: unknown, hook?: CheckHook, path?: string[]) {
  if (typeof value !== 'string') {
    hook?.(value, this);
    return false;
  }
  return logicalCheck.call(this, value, flags, hook, path);
}
for (const type of [DecimalType, DateType]) {
  (type.prototype as unknown as { _check: Check })._check = checkStrings;
}

/**
 * The dates a pipeline writes and reads are few (today, the collection dates, the business days around
 * them) and each is converted many times (every record of a transaction carries its dates, and avsc
 * converts a union's date twice, to check and to write): the conversions are remembered both ways.
 */
const daysByDate = new Map<string, number>();
const datesByDay = new Map<number, IsoDate>();

/** Remembers a conversion; a map past a few thousand dates starts over, so it stays small. */
function remember<K, V>(answers: Map<K, V>, key: K, answer: V): void {
  if (answers.size >= 4_096) answers.clear();
  answers.set(key, answer);
}

function daysSinceEpoch(value: unknown): number {
  if (typeof value === 'string') {
    const known = daysByDate.get(value);
    if (known !== undefined) return known;
    const match = isoDate.exec(value);
    if (match) {
      const [, year, month, day] = match.map(Number) as [number, number, number, number];
      const ms = Date.UTC(year, month - 1, day);
      const date = new Date(ms);
      if (date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day) {
        remember(daysByDate, value, ms / dayMs);
        return ms / dayMs;
      }
    }
  }
  throw contractError('INVALID_DATE', `not a calendar date (YYYY-MM-DD): ${String(value)}`);
}

function bigIntToBytes(value: bigint): Buffer {
  let size = 1;
  while (value < -(1n << BigInt(size * 8 - 1)) || value >= 1n << BigInt(size * 8 - 1)) size += 1;
  const twosComplement = value < 0n ? (1n << BigInt(size * 8)) + value : value;
  return Buffer.from(twosComplement.toString(16).padStart(size * 2, '0'), 'hex');
}

function bytesToBigInt(buffer: Buffer): bigint {
  if (buffer.length === 0) return 0n;
  const unsigned = BigInt(`0x${buffer.toString('hex')}`);
  const negative = ((buffer[0] ?? 0) & 0x80) !== 0;
  return negative ? unsigned - (1n << BigInt(buffer.length * 8)) : unsigned;
}

/**
 * avsc options every schema of the project is parsed with, including writer schemas fetched from the
 * schema registry: the decimal and date logical types, and unions unwrapped where unambiguous. A fresh
 * object each call, because avsc records the named types it parses in the options it is given.
 */
export function avroTypeOptions(): Partial<avro.ForSchemaOptions> {
  return { logicalTypes: { decimal: DecimalType, date: DateType }, wrapUnions: 'auto' };
}
