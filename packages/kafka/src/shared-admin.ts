import type { Admin } from 'kafkajs';

/** Calls that do not touch the client's topic metadata, or that only connect and listen. */
const unguarded = new Set<string>(['connect', 'disconnect', 'on', 'logger']);

/**
 * An admin client that one KafkaClient shares among its consumers, its dead-letter admin and its reader,
 * safe to call from all of them at once.
 *
 * kafkajs keeps one map of topic metadata per client. `fetchTopicMetadata({ topics })` replaces that map
 * with the metadata of just the topics it names whenever one of them is missing from it (or the map is
 * older than its maximum age), and a call that reads the map between two requests of its own then finds
 * no leader for its topic: `fetchTopicOffsets` looks up the leaders once for the newest offsets and again
 * for the oldest, and the second look over a replaced map fails with "Cannot destructure property
 * 'partitions' of 'low.pop(...)' as it is undefined". A consumer's stall check and its rebuild after a
 * rebalance read offsets while another consumer of the same process reads a topic's partitions, so the
 * two meet.
 *
 * Here `fetchTopicMetadata` runs alone: it waits for the calls under way, and calls made after it wait
 * for it. Every other call runs beside the others, as before (each of them reads the map for the topics
 * it has added to the client's own list, which only grows, and a refresh for that list is a superset).
 */
export function metadataSafeAdmin(admin: Admin): Admin {
  /** The end of the last `fetchTopicMetadata` asked for (its outcome left out). */
  let lastExclusive: Promise<unknown> = Promise.resolve();
  /** The other calls asked for since then, until each settles. */
  const sharedSince = new Set<Promise<unknown>>();

  const shared =
    <A extends unknown[], R>(call: (...args: A) => Promise<R>) =>
    (...args: A): Promise<R> => {
      const run = lastExclusive.then(() => call(...args));
      const settled = run.then(
        () => undefined,
        () => undefined,
      );
      sharedSince.add(settled);
      void settled.then(() => sharedSince.delete(settled));
      return run;
    };

  const exclusive =
    <A extends unknown[], R>(call: (...args: A) => Promise<R>) =>
    (...args: A): Promise<R> => {
      const before = Promise.all([lastExclusive, ...sharedSince]);
      sharedSince.clear();
      const run = before.then(() => call(...args));
      lastExclusive = run.then(
        () => undefined,
        () => undefined,
      );
      return run;
    };

  const guarded: Record<string, unknown> = { ...admin };
  for (const [name, value] of Object.entries(admin)) {
    if (typeof value !== 'function' || unguarded.has(name)) continue;
    const call = value as (...args: unknown[]) => Promise<unknown>;
    guarded[name] = name === 'fetchTopicMetadata' ? exclusive(call) : shared(call);
  }
  return guarded as unknown as Admin;
}
