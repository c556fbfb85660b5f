import { describe, expect, it } from 'vitest';
import { madeInRun, newRunMark } from './names.ts';

describe('run marks', () => {
  it('are five letters and digits, a new one each time', () => {
    const marks = Array.from({ length: 50 }, newRunMark);
    for (const mark of marks) expect(mark).toMatch(/^[a-z0-9]{5}$/);
    expect(new Set(marks).size).toBeGreaterThan(45);
  });

  it("find a name of the run's, with dashes or underscores, and no other's", () => {
    expect(madeInRun('evp-k2q9xab3c-5f00e.rp.events.v1', 'k2q9x')).toBe(true);
    expect(madeInRun('tracker.trk-k2q9xab3c-5f00e.rp.delivery.outcome.v1.retry.2', 'k2q9x')).toBe(true);
    expect(madeInRun('db_k2q9xab3c_5f00e', 'k2q9x')).toBe(true);
    expect(madeInRun('evp-a2q9xab3c-5f00e.rp.events.v1', 'k2q9x')).toBe(false);
    expect(madeInRun('k2q9x.rp.events.v1', 'k2q9x')).toBe(false);
    expect(madeInRun('rp', 'k2q9x')).toBe(false);
  });
});
