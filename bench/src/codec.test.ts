import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { cpuReference } from './codec.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));

describe('the CPU reference', () => {
  it("times one pass over a journey's example messages, in microseconds", () => {
    const reference = cpuReference(root);
    const each = reference(20, 2);
    expect(each).toBeGreaterThan(0);
    expect(Number.isFinite(each)).toBe(true);
  });

  it('fails when the examples cannot be read, rather than timing nothing', () => {
    expect(() => cpuReference('/nonexistent')).toThrow(/ENOENT/);
  });
});
