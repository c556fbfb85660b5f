/**
 * The values of the keys used last, at most `capacity` of them: setting a key past the bound forgets the
 * one used longest ago. Reading a key counts as using it. A capacity of 0 remembers nothing.
 *
 * For what a process remembers only to save work (a read, a repeat): forgetting is never wrong.
 */
export class RecentMap<K, V> {
  readonly #capacity: number;
  readonly #entries = new Map<K, V>();

  constructor(capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 0) {
      throw new RangeError(`a recent map's capacity must be a whole number of at least 0, not ${capacity}`);
    }
    this.#capacity = capacity;
  }

  get size(): number {
    return this.#entries.size;
  }

  has(key: K): boolean {
    return this.#entries.has(key);
  }

  get(key: K): V | undefined {
    if (!this.#entries.has(key)) return undefined;
    const value = this.#entries.get(key) as V;
    this.#entries.delete(key);
    this.#entries.set(key, value);
    return value;
  }

  set(key: K, value: V): void {
    if (this.#capacity === 0) return;
    this.#entries.delete(key);
    this.#entries.set(key, value);
    if (this.#entries.size > this.#capacity) {
      const oldest = this.#entries.keys().next();
      if (!oldest.done) this.#entries.delete(oldest.value);
    }
  }

  delete(key: K): void {
    this.#entries.delete(key);
  }

  clear(): void {
    this.#entries.clear();
  }
}

/** The keys added last, at most `capacity` of them: adding one past the bound forgets the oldest. */
export class RecentKeys<K = string> {
  readonly #entries: RecentMap<K, true>;

  constructor(capacity: number) {
    this.#entries = new RecentMap(capacity);
  }

  get size(): number {
    return this.#entries.size;
  }

  has(key: K): boolean {
    return this.#entries.has(key);
  }

  add(key: K): void {
    this.#entries.set(key, true);
  }
}
