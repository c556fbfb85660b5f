import type { KafkaError } from './errors.ts';
import {
  type DeadLetterReason,
  parkedRoute,
  type RetryPolicy,
  retryHintOf,
  routeFailure,
} from './retry-policy.ts';

/** What becomes of one source record after its handler call. */
export type Disposition =
  | { kind: 'handled' }
  /** Waits on tier 1 behind an earlier record of its key that is in the retry tiers. */
  | { kind: 'park'; tier: number; delayMs: number }
  | { kind: 'retry'; tier: number; delayMs: number; error: unknown }
  | { kind: 'dead-letter'; reason: DeadLetterReason; error: unknown };

export interface ChunkOutcome {
  /** Partitioning keys ('' when a record has none), in offset order. */
  keys: readonly string[];
  /** Records whose key was already parked before the chunk: they never reached the handler. */
  parkedBefore: readonly boolean[];
  /** Records that could not be decoded. */
  poison: ReadonlyMap<number, KafkaError>;
  /** Records the handler failed. */
  failures: ReadonlyMap<number, unknown>;
}

/**
 * Decides, in offset order, where each record of a source chunk goes. Once a key has a record going to
 * retry, every later record of that key in the chunk is parked behind it, even one the handler reported
 * as handled (it is then handled again after the failed one: a duplicate, never a reordering). A
 * dead-lettered record does not park its key.
 */
export function dispose(
  outcome: ChunkOutcome,
  policy: RetryPolicy,
  isRetriable: (error: unknown) => boolean,
): Disposition[] {
  const retryingKeys = new Set<string>();
  return outcome.keys.map((key, index) => {
    if (outcome.parkedBefore[index] || (key !== '' && retryingKeys.has(key))) {
      return { kind: 'park', ...parkedRoute(policy) };
    }
    const bad = outcome.poison.get(index);
    if (bad) return { kind: 'dead-letter', reason: 'poison', error: bad };
    if (!outcome.failures.has(index)) return { kind: 'handled' };
    const error = outcome.failures.get(index);
    const route = routeFailure(policy, 1, isRetriable(error), retryHintOf(error));
    if (route.kind === 'dead-letter') return { kind: 'dead-letter', reason: route.reason, error };
    if (key !== '') retryingKeys.add(key);
    return { kind: 'retry', tier: route.tier, delayMs: route.delayMs, error };
  });
}
