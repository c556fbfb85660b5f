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
    const previous = this.#tails.get(key);
    const result = previous === undefined ? work() : previous.then(work);
    const tail = result.then(
      () => undefined,
      () => undefined,
    );
    this.#tails.set(key, tail);
    void tail.then(() => {
      if (this.#tails.get(key) === tail) this.#tails.delete(key);
    });
    return result;
  }

  /**
   * Runs `work` once the work queued earlier under every one of `keys` has ended; work queued later under
   * any of them waits for it. Each call waits only on calls made before it, so none can wait on another
   * in a circle.
   */
  runAll<T>(keys: readonly string[], work: () => Promise<T>): Promise<T> {
    const unique = [...new Set(keys)];
    const previous = unique
      .map((key) => this.#tails.get(key))
      .filter((tail): tail is Promise<void> => tail !== undefined);
    const result = previous.length === 0 ? work() : Promise.all(previous).then(work);
    const tail = result.then(
      () => undefined,
      () => undefined,
    );
    for (const key of unique) this.#tails.set(key, tail);
    void tail.then(() => {
      for (const key of unique) if (this.#tails.get(key) === tail) this.#tails.delete(key);
    });
    return result;
  }

  /** Keys with work in flight or waiting. */
  get size(): number {
    return this.#tails.size;
  }
}
