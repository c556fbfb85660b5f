import { describe, expect, test } from 'vitest';
import { progressBar } from './progress.ts';

function sink(isTTY: boolean) {
  const writes: string[] = [];
  return { writes, value: { isTTY, write: (text: string) => writes.push(text) } };
}

describe('progressBar', () => {
  test('in a log: one line at the start and at each further tenth, with the count and the rate', () => {
    let clock = 0;
    const { writes, value } = sink(false);
    const bar = progressBar('debits sent', 100, value, () => clock);
    for (let index = 0; index < 100; index += 1) {
      clock += 10;
      bar.tick();
    }
    bar.done();
    expect(writes).toHaveLength(11);
    expect(writes[0]).toBe(`debits sent [${'.'.repeat(30)}]   0% 0/100 0/s\n`);
    expect(writes[5]).toBe(`debits sent [${'#'.repeat(15)}${'.'.repeat(15)}]  50% 50/100 100/s\n`);
    expect(writes[10]).toBe(`debits sent [${'#'.repeat(30)}] 100% 100/100 100/s\n`);
  });

  test('on a terminal: redraws one line at most ten times a second and ends it when done', () => {
    let clock = 0;
    const { writes, value } = sink(true);
    const bar = progressBar('x', 1_000, value, () => clock);
    for (let index = 0; index < 1_000; index += 1) {
      clock += 1;
      bar.tick();
    }
    bar.done();
    bar.done();
    expect(writes.every((text) => text.startsWith('\r'))).toBe(true);
    // 1 s of work: the first draw, one per 100 ms, and the final one.
    expect(writes.length).toBeGreaterThanOrEqual(10);
    expect(writes.length).toBeLessThanOrEqual(12);
    expect(writes.at(-1)).toBe(`\rx [${'#'.repeat(30)}] 100% 1000/1000 1000/s\n`);
    expect(writes.slice(0, -1).some((text) => text.endsWith('\n'))).toBe(false);
  });

  test('nothing to do is complete at once', () => {
    const { writes, value } = sink(false);
    progressBar('none', 0, value, () => 0).done();
    expect(writes).toEqual([`none [${'#'.repeat(30)}] 100% 0/0 0/s\n`]);
  });
});
