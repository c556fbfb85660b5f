import { contractError } from '../errors.ts';
import type { DecimalString } from '../scalars.ts';
import { currencyMinorUnits } from './currencies.ts';

/**
 * Exact decimal arithmetic on decimal strings, through BigInt. Amounts never pass through a binary
 * float: a value is held as an integer count of units of 10^-scale.
 */
interface ScaledDecimal {
  units: bigint;
  scale: number;
}

const decimalSyntax = /^(-)?(0|[1-9][0-9]*)(?:\.([0-9]+))?(?:[eE]([+-]?[0-9]+))?$/;

/** Whether `text` is a decimal number (JSON number syntax: no leading zeros, optional fraction and exponent). */
export function isDecimal(text: string): boolean {
  return decimalSyntax.test(text);
}

function parse(text: string): ScaledDecimal {
  const match = decimalSyntax.exec(text);
  if (!match) throw contractError('INVALID_DECIMAL', `not a decimal number: ${JSON.stringify(text)}`);
  const [, sign, integer = '0', fraction = '', exponentText] = match;
  const exponent = exponentText === undefined ? 0 : Number(exponentText);
  if (!Number.isSafeInteger(exponent) || Math.abs(exponent) > 1000) {
    throw contractError('INVALID_DECIMAL', `decimal exponent out of range: ${text}`);
  }
  let units = BigInt(`${integer}${fraction}`);
  let scale = fraction.length - exponent;
  if (scale < 0) {
    units *= 10n ** BigInt(-scale);
    scale = 0;
  }
  return trim({ units: sign ? -units : units, scale });
}

/** Drops trailing zero digits of the fraction: the canonical scale of a value. */
function trim(value: ScaledDecimal): ScaledDecimal {
  let { units, scale } = value;
  while (scale > 0 && units % 10n === 0n) {
    units /= 10n;
    scale -= 1;
  }
  return { units, scale };
}

function format(value: ScaledDecimal): DecimalString {
  const { units, scale } = trim(value);
  const negative = units < 0n;
  const digits = (negative ? -units : units).toString();
  if (scale === 0) return negative ? `-${digits}` : digits;
  const padded = digits.padStart(scale + 1, '0');
  const text = `${padded.slice(0, -scale)}.${padded.slice(-scale)}`;
  return negative ? `-${text}` : text;
}

function align(a: ScaledDecimal, b: ScaledDecimal): [bigint, bigint, number] {
  const scale = Math.max(a.scale, b.scale);
  return [a.units * 10n ** BigInt(scale - a.scale), b.units * 10n ** BigInt(scale - b.scale), scale];
}

/**
 * The canonical form of a decimal: no exponent, no leading zeros, no trailing fractional zeros, no
 * negative zero ("1500.00" and "1.5e3" both become "1500"). Avro decoding and JSON validation both
 * produce this form, so equal amounts are equal strings.
 */
export function normalizeDecimal(text: string): DecimalString {
  return format(parse(text));
}

/** Number of decimal places of the value itself (trailing zeros do not count). */
export function decimalPlaces(text: string): number {
  return parse(text).scale;
}

/** Number of digits left of the decimal point (0 for values below 1). */
export function integerDigits(text: string): number {
  const { units, scale } = parse(text);
  const magnitude = units < 0n ? -units : units;
  const integerPart = magnitude / 10n ** BigInt(scale);
  return integerPart === 0n ? 0 : integerPart.toString().length;
}

/** -1, 0 or 1 as a is less than, equal to or greater than b. */
export function compareDecimals(a: string, b: string): -1 | 0 | 1 {
  const [x, y] = align(parse(a), parse(b));
  return x < y ? -1 : x > y ? 1 : 0;
}

export function addDecimals(a: string, b: string): DecimalString {
  const [x, y, scale] = align(parse(a), parse(b));
  return format({ units: x + y, scale });
}

export function subtractDecimals(a: string, b: string): DecimalString {
  const [x, y, scale] = align(parse(a), parse(b));
  return format({ units: x - y, scale });
}

/**
 * The amount as an integer count of the currency's minor units (cents for ZAR): "1234.5" ZAR is 123450n.
 * Refuses an unknown currency and a value with more decimal places than the currency has.
 */
export function toMinorUnits(value: string, currency: string): bigint {
  const places = requireMinorUnits(currency);
  const decimal = parse(value);
  if (decimal.scale > places) {
    throw contractError(
      'INVALID_DECIMAL',
      `${currency} amounts have at most ${places} decimal places: ${JSON.stringify(value)}`,
    );
  }
  return decimal.units * 10n ** BigInt(places - decimal.scale);
}

/** The decimal string of `units` minor units of `currency`: 123450n ZAR is "1234.5". */
export function fromMinorUnits(units: bigint, currency: string): DecimalString {
  return format({ units, scale: requireMinorUnits(currency) });
}

function requireMinorUnits(currency: string): number {
  const places = currencyMinorUnits(currency);
  if (places === undefined) throw contractError('UNKNOWN_CURRENCY', `not an ISO 4217 currency: ${currency}`);
  return places;
}

/** Unscaled two's-complement integer of `value` at `scale` (what Avro's decimal logical type stores). */
export function toUnscaled(value: string, scale: number): bigint {
  const decimal = parse(value);
  if (decimal.scale > scale) {
    throw contractError('INVALID_DECIMAL', `${value} has more than ${scale} decimal places`);
  }
  return decimal.units * 10n ** BigInt(scale - decimal.scale);
}

export function fromUnscaled(units: bigint, scale: number): DecimalString {
  return format({ units, scale });
}
