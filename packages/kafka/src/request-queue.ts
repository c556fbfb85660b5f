import { createRequire } from 'node:module';

/**
 * The members of kafkajs's internal RequestQueue (one per broker connection; kafkajs 2.2.4,
 * `src/network/requestQueue/index.js`) that the fix below reads and replaces.
 */
export interface RequestQueueInternals {
  /** When the broker's client-side throttle ends (epoch ms); -1 when the broker never throttled. */
  throttledUntil: number;
  throttleCheckTimeoutId: ReturnType<typeof setTimeout> | null;
  pending: unknown[];
  checkPendingRequests(): void;
  scheduleCheckPendingRequests(): void;
}

/** kafkajs's own CHECK_PENDING_REQUESTS_INTERVAL: how soon requests queued behind others are looked at. */
const checkPendingIntervalMs = 10;

const require = createRequire(import.meta.url);

/** kafkajs's RequestQueue class: its prototype is where the fix goes. */
export function requestQueueClass(): { prototype: RequestQueueInternals } {
  return require('kafkajs/src/network/requestQueue/index.js') as { prototype: RequestQueueInternals };
}

/**
 * Looks at the queued requests again when there is a reason to: requests waiting (in 10 ms, or when the
 * broker's throttle ends), or a throttle still running. kafkajs 2.2.4 arms the timer in every other case
 * too, with the delay `throttledUntil - now`: negative when nothing throttles (so Node uses 1 ms, and Node
 * 24 warns), and the timer re-arms itself when it fires. Every connection so polled itself each
 * millisecond for as long as it was open: an idle producer and admin cost 34 ms of CPU a second, 2 ms
 * without the loop (kafkajs issue #1751). Nothing is lost by not polling: a request that cannot be sent
 * at once is queued by `push`, which schedules the check, and each answer checks the queue.
 */
function scheduleCheckPendingRequests(this: RequestQueueInternals): void {
  if (this.throttleCheckTimeoutId) return;
  const throttledFor = this.throttledUntil - Date.now();
  let delay: number;
  if (this.pending.length > 0) delay = throttledFor > 0 ? throttledFor : checkPendingIntervalMs;
  else if (throttledFor > 0) delay = throttledFor;
  else return;
  this.throttleCheckTimeoutId = setTimeout(() => {
    this.throttleCheckTimeoutId = null;
    this.checkPendingRequests();
  }, delay);
}

let patched = false;

/** Puts the fix on kafkajs's RequestQueue, once per process: every connection, open or new, has it. */
export function patchRequestQueue(): void {
  if (patched) return;
  patched = true;
  requestQueueClass().prototype.scheduleCheckPendingRequests = scheduleCheckPendingRequests;
}
