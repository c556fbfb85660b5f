import { describe, expect, it } from 'vitest';
import { parseInstant } from './instant.ts';

describe('parseInstant', () => {
  it('reads an RFC 3339 date-time with its offset', () => {
    expect(parseInstant('2026-11-23T08:00:00+02:00')?.toISOString()).toBe('2026-11-23T06:00:00.000Z');
    expect(parseInstant('2026-11-23T08:00:00.25Z')?.toISOString()).toBe('2026-11-23T08:00:00.250Z');
    expect(parseInstant('2028-02-29T00:00:00Z')?.toISOString()).toBe('2028-02-29T00:00:00.000Z');
    expect(parseInstant('2000-02-29T23:59:59-01:30')?.toISOString()).toBe('2000-03-01T01:29:59.000Z');
  });

  it('refuses a time that does not exist, where Date.parse would roll it over', () => {
    for (const text of [
      '2026-02-30T00:00:00Z',
      '2026-02-29T00:00:00Z',
      '1900-02-29T00:00:00Z',
      '2026-04-31T00:00:00Z',
      '2026-13-01T00:00:00Z',
      '2026-00-10T00:00:00Z',
      '2026-11-00T00:00:00Z',
      '2026-11-23T24:00:00Z',
      '2026-11-23T23:60:00Z',
      '2026-11-23T23:59:60Z',
      '2026-11-23T08:00:00+24:00',
      '2026-11-23T08:00:00+02:60',
    ]) {
      expect({ text, at: parseInstant(text) }).toEqual({ text, at: undefined });
    }
  });

  it('wants an offset and seconds, and takes a date alone or a time without seconds only when asked', () => {
    for (const text of [
      '2026-11-23T08:00:00',
      '2026-11-23 08:00:00Z',
      '2026-11-23t08:00:00z',
      'yesterday',
      '',
    ]) {
      expect(parseInstant(text, { allowDate: true, optionalSeconds: true })).toBeUndefined();
    }
    expect(parseInstant('2026-11-23')).toBeUndefined();
    expect(parseInstant('2026-11-23', { allowDate: true })?.toISOString()).toBe('2026-11-23T00:00:00.000Z');
    expect(parseInstant('2026-11-31', { allowDate: true })).toBeUndefined();
    expect(parseInstant('2026-11-23T08:00Z')).toBeUndefined();
    expect(parseInstant('2026-11-23T08:00Z', { optionalSeconds: true })?.toISOString()).toBe(
      '2026-11-23T08:00:00.000Z',
    );
  });
});
