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

  test('adding days crosses months and years', () => {
    expect(addDays('2025-02-27', 2)).toBe('2025-03-01');
    expect(addDays('2024-02-28', 1)).toBe('2024-02-29');
    expect(addDays('2025-12-31', 1)).toBe('2026-01-01');
    expect(addDays('2025-03-01', -1)).toBe('2025-02-28');
  });
});
