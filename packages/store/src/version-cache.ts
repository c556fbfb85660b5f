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
export class SnapshotPositionCache {
  readonly #capacity: number;
  readonly #entries = new Map<string, SnapshotPosition>();

  constructor(capacity: number) {
    this.#capacity = Math.max(0, capacity);
  }

  get size(): number {
    return this.#entries.size;
  }

  get(uetr: string): SnapshotPosition | undefined {
    const position = this.#entries.get(uetr);
    if (position === undefined) return undefined;
    this.#entries.delete(uetr);
    this.#entries.set(uetr, position);
    return position;
  }

  set(uetr: string, position: SnapshotPosition): void {
    if (this.#capacity === 0) return;
    this.#entries.delete(uetr);
    this.#entries.set(uetr, position);
    if (this.#entries.size > this.#capacity) {
      const oldest = this.#entries.keys().next();
      if (!oldest.done) this.#entries.delete(oldest.value);
    }
  }

  delete(uetr: string): void {
    this.#entries.delete(uetr);
  }

  clear(): void {
    this.#entries.clear();
  }
}
