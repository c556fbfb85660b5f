/**
 * The keys of one partition that have records waiting in the retry tiers, each with the source offsets of
 * those records in order. While a key has any, its newer records are parked behind them instead of going
 * to the handler, and on the tiers only the oldest one (the head) may be handled: that is what keeps a
 * key's records in source order across the main topic and all retry tiers.
 */
export class ParkedKeys {
  readonly #chains = new Map<string, bigint[]>();

  isParked(topic: string, key: string): boolean {
    return this.#chains.has(chainKey(topic, key));
  }

  /** Adds a record of the key (idempotent: the same source offset is held once). */
  park(topic: string, key: string, offset: bigint): void {
    const id = chainKey(topic, key);
    const chain = this.#chains.get(id);
    if (!chain) {
      this.#chains.set(id, [offset]);
      return;
    }
    const last = chain[chain.length - 1] as bigint;
    if (offset > last) {
      chain.push(offset);
      return;
    }
    const at = lowerBound(chain, offset);
    if (chain[at] !== offset) chain.splice(at, 0, offset);
  }

  /** Whether this record is its key's oldest waiting one (and so may be handled now). */
  isHead(topic: string, key: string, offset: bigint): boolean {
    return this.#chains.get(chainKey(topic, key))?.[0] === offset;
  }

  holds(topic: string, key: string, offset: bigint): boolean {
    const chain = this.#chains.get(chainKey(topic, key));
    if (!chain) return false;
    return chain[lowerBound(chain, offset)] === offset;
  }

  /** The record is resolved (handled or dead-lettered); the key is free once it has none left. */
  release(topic: string, key: string, offset: bigint): void {
    const id = chainKey(topic, key);
    const chain = this.#chains.get(id);
    if (!chain) return;
    const at = lowerBound(chain, offset);
    if (chain[at] !== offset) return;
    chain.splice(at, 1);
    if (chain.length === 0) this.#chains.delete(id);
  }

  get keyCount(): number {
    return this.#chains.size;
  }
}

function chainKey(topic: string, key: string): string {
  return `${topic}\u0000${key}`;
}

function lowerBound(sorted: readonly bigint[], value: bigint): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((sorted[middle] as bigint) < value) low = middle + 1;
    else high = middle;
  }
  return low;
}
