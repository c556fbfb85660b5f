import { RecentMap } from '@rp/runtime';

/** What the writer last knew of a snapshot: how many changes it holds and the seq of the last one. */
export interface SnapshotPosition {
  version: number;
  lastSeq: number;
}

/**
 * The snapshot positions this process last wrote or read, least recently used evicted first. It only
 * saves round trips: every write is still guarded by the version in the database, so an entry that is
 * stale (another writer got there first, e.g. during a partition hand-over) costs one re-read, never a
 * wrong snapshot.
 */
export class SnapshotPositionCache extends RecentMap<string, SnapshotPosition> {
  constructor(capacity: number) {
    super(Math.max(0, capacity));
  }
}
