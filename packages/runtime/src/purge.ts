import type { Clock } from './clock.ts';
import type { Logger } from './logging.ts';

/** What a purge of expired documents needs: the time, a log, its retention and its round's size. */
export interface PurgeRoundsOptions {
  readonly clock: Clock;
  readonly logger: Logger;
  /** What is kept for longer than this is deleted. */
  readonly retentionMs: number;
  /** Deletions per round; a full round is followed by another at once. */
  readonly batch: number;
}

/**
 * What a round deleted, and whether it took its limit (another round may find more); a bare count is
 * full when it reaches the limit.
 */
export type PurgeRound = number | { readonly deleted: number; readonly full: boolean };

/**
 * Rounds of `batch` deletions of what `round` finds before the cut (now less the retention), until a
 * round is not full or `signal` aborts. `counted` is told each round's deletions (a metric). Returns how
 * many were deleted. A failure is logged and ends the purge (the next one tries again): a purge is
 * housekeeping, never a reason for a service to stop.
 */
export async function purgeInRounds(
  options: PurgeRoundsOptions,
  what: string,
  round: (before: Date, limit: number) => Promise<PurgeRound>,
  counted: (deleted: number) => void,
  signal?: AbortSignal,
): Promise<number> {
  const before = new Date(options.clock.now().getTime() - options.retentionMs);
  let total = 0;
  try {
    for (;;) {
      if (signal?.aborted) break;
      const result = await round(before, options.batch);
      const deleted = typeof result === 'number' ? result : result.deleted;
      total += deleted;
      counted(deleted);
      if (typeof result === 'number' ? deleted < options.batch : !result.full) break;
    }
  } catch (error) {
    options.logger.warn({ err: error, deleted: total }, `${what} not purged; the next purge tries again`);
  }
  if (total > 0) options.logger.info({ deleted: total, before }, `${what} purged`);
  return total;
}
