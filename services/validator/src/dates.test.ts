import { describe, expect, test } from 'vitest';
import { addDays, businessDate } from './dates.ts';

describe('business dates', () => {
  test.each([
    ['2025-03-14T21:59:59Z', '2025-03-14'],
    ['2025-03-14T22:00:00Z', '2025-03-15'],
    ['2025-12-31T22:30:00Z', '2026-01-01'],
    ['2025-03-14T00:30:00+02:00', '2025-03-14'],
  ])('%s is %s in Johannesburg', (instant, date) => {
    expect(businessDate(new Date(instant))).toBe(date);
  });

  test('asked again and again, in any order, each instant gets the date a fresh format gives', () => {
    const fresh = new Intl.DateTimeFormat('en-CA', { timeZone: 'Africa/Johannesburg' });
    const start = Date.parse('2025-03-14T21:58:00Z');
    // Every 17 s for five minutes around midnight, then the same instants backwards.
    const instants = Array.from({ length: 18 }, (_, index) => new Date(start + index * 17_000));
    for (const instant of [...instants, ...instants.reverse()]) {
      expect(businessDate(instant)).toBe(fresh.format(instant));
    }
    expect(businessDate(new Date('2025-03-14T21:59:59.999Z'))).toBe('2025-03-14');
    expect(businessDate(new Date('2025-03-14T22:00:00.000Z'))).toBe('2025-03-15');
  });

  test('adding days crosses months and years', () => {
    expect(addDays('2025-02-27', 2)).toBe('2025-03-01');
    expect(addDays('2024-02-28', 1)).toBe('2024-02-29');
    expect(addDays('2025-12-31', 1)).toBe('2026-01-01');
    expect(addDays('2025-03-01', -1)).toBe('2025-02-28');
  });
});
