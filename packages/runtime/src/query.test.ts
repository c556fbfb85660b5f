import { describe, expect, it } from 'vitest';
import { AppError } from './errors.ts';
import { wholeNumberQuery } from './query.ts';

describe('wholeNumberQuery', () => {
  const limit = (text: string | undefined, emptyIsAbsent = false) =>
    wholeNumberQuery(text, { name: 'limit', fallback: 50, max: 500, emptyIsAbsent });

  it('reads digits from 1 to the maximum, and the fallback when absent', () => {
    expect(limit(undefined)).toBe(50);
    expect(limit('1')).toBe(1);
    expect(limit('500')).toBe(500);
    expect(limit('007')).toBe(7);
    expect(limit('', true)).toBe(50);
  });

  it('refuses anything else with a 422 naming the parameter', () => {
    for (const text of [
      '',
      '0',
      '501',
      '1.5',
      '5.0',
      '1e2',
      '0x10',
      ' 5 ',
      '+5',
      '-1',
      'abc',
      '99999999999999999',
    ]) {
      let caught: unknown;
      try {
        limit(text);
      } catch (error) {
        caught = error;
      }
      expect({ text, caught }).toMatchObject({ text, caught: expect.any(AppError) });
      expect((caught as AppError).status).toBe(422);
      expect((caught as AppError).details).toEqual([
        { pointer: '/limit', detail: 'a whole number from 1 to 500' },
      ]);
    }
  });
});
