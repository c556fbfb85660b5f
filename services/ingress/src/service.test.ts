import { describe, expect, it } from 'vitest';
import { idempotencyRetention } from './service.ts';

describe('idempotency retention', () => {
  it('keeps the keys unless a retention is set, and refuses a retention of nothing', () => {
    expect(idempotencyRetention(undefined)).toBeUndefined();
    expect(idempotencyRetention(30 * 86_400_000)).toBe(30 * 86_400_000);
    expect(() => idempotencyRetention(0)).toThrow(/idempotency key retention \(0 ms\)/);
  });
});
