import { afterEach, describe, expect, it, vi } from 'vitest';
import { deadline, withTimeout } from './timeout.ts';

afterEach(() => {
  vi.useRealTimers();
});

describe('deadline', () => {
  it('aborts with a TimeoutError once the time is up', () => {
    vi.useFakeTimers();
    const call = deadline(100);
    vi.advanceTimersByTime(99);
    expect(call.signal.aborted).toBe(false);
    vi.advanceTimersByTime(1);
    expect(call.signal.aborted).toBe(true);
    expect(call.timedOut).toBe(true);
    expect((call.signal.reason as DOMException).name).toBe('TimeoutError');
  });

  it('aborts with its parent, with the parent reason, and not as a timeout', () => {
    vi.useFakeTimers();
    const parent = new AbortController();
    const call = deadline(100, parent.signal);
    parent.abort(new Error('shutting down'));
    expect(call.signal.aborted).toBe(true);
    expect(call.timedOut).toBe(false);
    expect((call.signal.reason as Error).message).toBe('shutting down');
  });

  it('starts aborted when its parent already is', () => {
    const parent = new AbortController();
    parent.abort();
    const call = deadline(100, parent.signal);
    expect(call.signal.aborted).toBe(true);
    call.clear();
  });

  it('never fires once cleared, and lets go of its parent', () => {
    vi.useFakeTimers();
    const parent = new AbortController();
    const call = deadline(100, parent.signal);
    call.clear();
    vi.advanceTimersByTime(1_000);
    parent.abort();
    expect(call.signal.aborted).toBe(false);
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe('withTimeout', () => {
  it('rejects with DOWNSTREAM_TIMEOUT when the work takes too long', async () => {
    vi.useFakeTimers();
    const pending = withTimeout(new Promise(() => undefined), 50, 'the call');
    const settled = expect(pending).rejects.toThrow('the call timed out after 50ms');
    await vi.advanceTimersByTimeAsync(50);
    await settled;
  });
});
