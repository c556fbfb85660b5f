/**
 * Runs work one at a time per key, in call order, and different keys side by side.
 *
 * Real MongoDB applies each update to a document atomically, but the local MongoDB-compatible server
 * (FerretDB on PostgreSQL) reads, changes and writes back the whole document, so two updates of one
 * document in flight at the same time can lose one of them (measured: 20 concurrent `$push`es to one
 * document kept 14-17). A repository whose process writes a document from two places at once (the
 * tracker: state changes and delivery attempts of one transaction) sends those writes through this.
 */
export class KeyedSerial {
  readonly #tails = new Map<string, Promise<void>>();

  run<T>(key: string, work: () => Promise<T>): Promise<T> {
    return this.runAll([key], work);
  }

  /**
   * Runs `work` once for several keys: after the work already queued for any of them, and before any
   * queued for them later. Keys not named are not held up.
   */
  runAll<T>(keys: readonly string[], work: () => Promise<T>): Promise<T> {
    const previous: Promise<void>[] = [];
    for (const key of new Set(keys)) {
      const tail = this.#tails.get(key);
      if (tail !== undefined) previous.push(tail);
    }
    const result = previous.length === 0 ? work() : Promise.all(previous).then(work);
    const tail = result.then(
      () => undefined,
      () => undefined,
    );
    for (const key of keys) this.#tails.set(key, tail);
    void tail.then(() => {
      for (const key of keys) if (this.#tails.get(key) === tail) this.#tails.delete(key);
    });
    return result;
  }

  /** Keys with work in flight or waiting. */
  get size(): number {
    return this.#tails.size;
  }
}
