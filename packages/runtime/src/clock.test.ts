import { describe, expect, it } from 'vitest';
import { configuredClock, ManualClock, realDuration, ScaledClock, systemClock } from './clock.ts';

describe('clocks', () => {
  it('system clock tells the current time', () => {
    const before = Date.now();
    const now = systemClock.now().getTime();
    expect(now).toBeGreaterThanOrEqual(before);
    expect(now).toBeLessThanOrEqual(Date.now());
  });

  it('manual clock moves only when set or advanced', () => {
    const clock = new ManualClock('2026-03-02T08:00:00+02:00');
    expect(clock.now().toISOString()).toBe('2026-03-02T06:00:00.000Z');
    clock.advance(90_000);
    expect(clock.now().toISOString()).toBe('2026-03-02T06:01:30.000Z');
    clock.set(new Date('2026-03-03T00:00:00Z'));
    expect(clock.now().toISOString()).toBe('2026-03-03T00:00:00.000Z');
    const snapshot = clock.now();
    snapshot.setFullYear(2000);
    expect(clock.now().getUTCFullYear()).toBe(2026);
  });

  it('scaled clock runs factor times faster from its start', () => {
    const base = new ManualClock('2026-01-01T00:00:00Z');
    const clock = new ScaledClock('2026-03-02T06:00:00Z', 60, base);
    expect(clock.now().toISOString()).toBe('2026-03-02T06:00:00.000Z');
    base.advance(1000);
    expect(clock.now().toISOString()).toBe('2026-03-02T06:01:00.000Z');
    // A minute of its time passes in a real second; a scaled clock on a scaled clock, in less.
    expect(realDuration(clock, 60_000)).toBe(1_000);
    expect(realDuration(new ScaledClock(0, 2, clock), 60_000)).toBe(500);
    expect(realDuration(systemClock, 60_000)).toBe(60_000);
    expect(() => new ScaledClock(0, 0)).toThrow(RangeError);
  });
});

describe('configuredClock', () => {
  it("is the system's clock without CLOCK_START, a scaled one from it with it", () => {
    expect(configuredClock({ CLOCK_FACTOR: 60 })).toBe(systemClock);
    const demo = configuredClock({ CLOCK_START: '2026-03-02T06:00:00Z', CLOCK_FACTOR: 60 });
    expect(demo).toBeInstanceOf(ScaledClock);
    expect(realDuration(demo, 60_000)).toBe(1_000);
    expect(Math.abs(demo.now().getTime() - Date.parse('2026-03-02T06:00:00Z'))).toBeLessThan(60_000);
  });
});
