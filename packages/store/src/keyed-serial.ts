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

  /** Keys with work in flight or waiting. */
  get size(): number {
    return this.#tails.size;
  }
}
