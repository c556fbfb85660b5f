/**
 * Runs `work` and calls `heartbeat` every `intervalMs` while it runs. A handler that waits on a slow
 * store for longer than the session timeout (a bulk write under a burst) otherwise misses every
 * heartbeat, the coordinator drops the member, and the whole group rebalances and redelivers what it was
 * doing. The first heartbeat that fails (the group is rebalancing, the member is unknown) stops the
 * beating: the runner's own heartbeat after the work meets the same answer and rejoins.
 *
 * kafkajs throttles `heartbeat` to its heartbeat interval (a call that comes early sends nothing), so
 * `intervalMs` is best a fraction of that interval: a call at the interval itself can come a moment short
 * and leave twice the interval between beats.
 */
export async function whileBeating<T>(
  heartbeat: () => Promise<void>,
  intervalMs: number,
  work: () => Promise<T>,
): Promise<T> {
  let beating = true;
  let inFlight = false;
  const timer = setInterval(() => {
    if (!beating || inFlight) return;
    inFlight = true;
    heartbeat()
      .catch(() => {
        beating = false;
      })
      .finally(() => {
        inFlight = false;
      });
  }, intervalMs);
  try {
    return await work();
  } finally {
    beating = false;
    clearInterval(timer);
  }
}
