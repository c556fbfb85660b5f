import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { currencyMinorUnits } from './currencies.ts';
import {
  addDecimals,
  compareDecimals,
  decimalPlaces,
  fromMinorUnits,
  normalizeDecimal,
  subtractDecimals,
  toMinorUnits,
} from './decimal.ts';

describe('exact decimals', () => {
  it('adds 0.10 and 0.20 to exactly 0.30', () => {
    expect(addDecimals('0.10', '0.20')).toBe('0.3');
    expect(compareDecimals(addDecimals('0.10', '0.20'), '0.30')).toBe(0);
    expect(0.1 + 0.2).not.toBe(0.3);
  });

  it('keeps every digit of 13-digit rand amounts', () => {
    expect(addDecimals('9999999999999.98', '0.01')).toBe('9999999999999.99');
    expect(subtractDecimals('9999999999999.99', '9999999999999.98')).toBe('0.01');
    expect(compareDecimals('9999999999999.99', '9999999999999.98')).toBe(1);
    expect(compareDecimals('-1', '0.5')).toBe(-1);
  });

  it('normalizes to one canonical text per value', () => {
    expect(normalizeDecimal('1500.00')).toBe('1500');
    expect(normalizeDecimal('1.5e3')).toBe('1500');
    expect(normalizeDecimal('0.0100')).toBe('0.01');
    expect(normalizeDecimal('-0.00')).toBe('0');
    expect(normalizeDecimal('12E-3')).toBe('0.012');
    expect(decimalPlaces('2.50')).toBe(1);
    expect(() => normalizeDecimal('01.5')).toThrow(/not a decimal/);
    expect(() => normalizeDecimal('1,5')).toThrow(/not a decimal/);
  });

  it('converts to and from minor units by currency', () => {
    expect(toMinorUnits('1234.5', 'ZAR')).toBe(123450n);
    expect(toMinorUnits('9999999999999.99', 'ZAR')).toBe(999999999999999n);
    expect(toMinorUnits('1000', 'JPY')).toBe(1000n);
    expect(toMinorUnits('1.234', 'BHD')).toBe(1234n);
    expect(fromMinorUnits(123450n, 'ZAR')).toBe('1234.5');
    expect(fromMinorUnits(1234n, 'BHD')).toBe('1.234');
  });

  it('refuses more decimal places than the currency has, and unknown currencies', () => {
    expect(() => toMinorUnits('10.001', 'ZAR')).toThrow(/at most 2 decimal places/);
    expect(() => toMinorUnits('10.5', 'JPY')).toThrow(/at most 0 decimal places/);
    expect(() => toMinorUnits('1', 'XYZ')).toThrow(/ISO 4217/);
  });

  it('knows the minor units of ISO 4217 currencies', () => {
    expect(currencyMinorUnits('ZAR')).toBe(2);
    expect(currencyMinorUnits('USD')).toBe(2);
    expect(currencyMinorUnits('JPY')).toBe(0);
    expect(currencyMinorUnits('BHD')).toBe(3);
    expect(currencyMinorUnits('CLF')).toBe(4);
    expect(currencyMinorUnits('XAU')).toBeUndefined();
  });

  it('agrees with integer arithmetic on cents for any amounts', () => {
    const cents = fc.bigInt({ min: -(10n ** 15n), max: 10n ** 15n });
    fc.assert(
      fc.property(cents, cents, (a, b) => {
        const sum = addDecimals(fromMinorUnits(a, 'ZAR'), fromMinorUnits(b, 'ZAR'));
        expect(toMinorUnits(sum, 'ZAR')).toBe(a + b);
        expect(compareDecimals(fromMinorUnits(a, 'ZAR'), fromMinorUnits(b, 'ZAR'))).toBe(
          a < b ? -1 : a > b ? 1 : 0,
        );
      }),
    );
  });
});
