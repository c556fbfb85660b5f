export interface BufferedRecord {
  readonly offset: bigint;
  done: boolean;
}

/**
 * The records of one retry-tier partition read but not yet resolved, in offset order. Reading runs ahead
 * of handling (records wait here for their due time), so the committed offset is the first unresolved
 * record's: a restart re-reads exactly what was not finished.
 */
export class TierBuffer<E extends BufferedRecord> {
  readonly entries: E[] = [];
  /** The offset after the last record read, once anything was read. */
  nextOffset: bigint | undefined;
  /** The offset last committed by this consumer. */
  committed: bigint | undefined;
  #pending = 0;

  add(entry: E): void {
    this.entries.push(entry);
    if (!entry.done) this.#pending += 1;
    if (this.nextOffset === undefined || entry.offset >= this.nextOffset) this.nextOffset = entry.offset + 1n;
  }

  markDone(entry: E): void {
    if (entry.done) return;
    entry.done = true;
    this.#pending -= 1;
  }

  /** Records read and not yet resolved. */
  get pending(): number {
    return this.#pending;
  }

  /** The offset that is safe to commit: everything before it is resolved. */
  committable(): bigint | undefined {
    for (const entry of this.entries) if (!entry.done) return entry.offset;
    return this.nextOffset;
  }

  /** Whether the committable offset moved past the last commit. */
  needsCommit(): bigint | undefined {
    const offset = this.committable();
    if (offset === undefined) return undefined;
    return this.committed === undefined || offset > this.committed ? offset : undefined;
  }

  /** Drops the resolved records at the front. */
  compact(): void {
    let count = 0;
    while (count < this.entries.length && (this.entries[count] as E).done) count += 1;
    if (count > 0) this.entries.splice(0, count);
  }
}
