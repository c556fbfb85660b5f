import { afterEach, describe, expect, test } from 'vitest';
import { patchRequestQueue, type RequestQueueInternals, requestQueueClass } from './request-queue.ts';

const queues: RequestQueueInternals[] = [];

/** A request queue in the state kafkajs leaves it after answers came in: nothing in flight or queued. */
function idleQueue(
  overrides: Partial<RequestQueueInternals> = {},
): RequestQueueInternals & { checks: number } {
  const queue = Object.assign(Object.create(requestQueueClass().prototype) as RequestQueueInternals, {
    throttledUntil: -1,
    throttleCheckTimeoutId: null,
    pending: [],
    checks: 0,
    checkPendingRequests(this: { checks: number }) {
      this.checks += 1;
    },
    ...overrides,
  });
  queues.push(queue);
  return queue;
}

afterEach(() => {
  for (const queue of queues.splice(0)) {
    if (queue.throttleCheckTimeoutId) clearTimeout(queue.throttleCheckTimeoutId);
  }
});

describe("kafkajs's request queue", () => {
  test('as shipped, an idle connection arms a timer to look at its empty queue (the polling loop)', () => {
    const shipped = requestQueueClass().prototype.scheduleCheckPendingRequests;
    const queue = idleQueue();
    shipped.call(queue);
    // If this fails, kafkajs no longer polls when idle and the fix in request-queue.ts can go.
    expect(queue.throttleCheckTimeoutId).not.toBeNull();
  });

  test('fixed, an idle connection arms nothing; queued requests and a running throttle still get their check', async () => {
    patchRequestQueue();
    patchRequestQueue(); // once per process, however often it is called
    const idle = idleQueue();
    idle.scheduleCheckPendingRequests();
    expect(idle.throttleCheckTimeoutId).toBeNull();

    // A request waiting behind others is looked at again soon.
    const waiting = idleQueue({ pending: [{}] });
    waiting.scheduleCheckPendingRequests();
    expect(waiting.throttleCheckTimeoutId).not.toBeNull();
    await new Promise<void>((resolve) => {
      waiting.checkPendingRequests = () => resolve();
    });
    expect(waiting.throttleCheckTimeoutId).toBeNull();

    // A broker throttling the client: the queue is looked at when the throttle ends, even with nothing queued.
    const throttled = idleQueue({ throttledUntil: Date.now() + 60_000 });
    throttled.scheduleCheckPendingRequests();
    expect(throttled.throttleCheckTimeoutId).not.toBeNull();
    // And a check already armed is not armed twice.
    const armed = throttled.throttleCheckTimeoutId;
    throttled.scheduleCheckPendingRequests();
    expect(throttled.throttleCheckTimeoutId).toBe(armed);
  });
});
