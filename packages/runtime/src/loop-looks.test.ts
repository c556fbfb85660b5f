import { describe, expect, it } from 'vitest';
import { eventLoopSampleMs, onEventLoopLook } from './loop-looks.ts';

describe('onEventLoopLook', () => {
  it('tells every listener of the same look, one timer for them all, until each stops listening', async () => {
    const first: number[] = [];
    const second: number[] = [];
    const stopFirst = onEventLoopLook((now) => first.push(now));
    const stopSecond = onEventLoopLook((now) => second.push(now));
    while (second.length < 3) await new Promise((resolve) => setTimeout(resolve, eventLoopSampleMs));
    stopSecond();
    // Both were told of each look the second heard of, at the same instant: a look is one turn of one timer.
    const heard = second.length;
    expect(second.every((now) => first.includes(now))).toBe(true);
    const told = first.length;
    while (first.length < told + 2) await new Promise((resolve) => setTimeout(resolve, eventLoopSampleMs));
    expect(second).toHaveLength(heard);
    stopFirst();
    const last = first.length;
    await new Promise((resolve) => setTimeout(resolve, eventLoopSampleMs * 3));
    expect(first).toHaveLength(last);
  });
});
