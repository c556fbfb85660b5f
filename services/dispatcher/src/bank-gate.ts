/**
 * Per-bank admission for calls: at most `concurrency` calls on one bank at a time, a bounded wait for a
 * slot, and a pause after the bank stops answering, so that one slow or dead bank never holds the
 * consumer's partitions (whose other records go to other banks). A paused bank gets one probe call once
 * the pause is over; the others are deferred (to the retry tiers) until the probe shows it answers.
 * Times are real (monotonic) time: the bank's health is not on the business clock.
 */
export type Admission =
  | { readonly admitted: true; release(outcome: CallHealth): void }
  | { readonly admitted: false; readonly reason: 'bank-unresponsive' | 'bank-busy' };

/** What a call showed about the bank: it answered, it did not (timeout, connection), or it asked for a pause. */
export type CallHealth =
  | { readonly kind: 'answered' }
  | { readonly kind: 'unresponsive' }
  | { readonly kind: 'paused'; readonly forMs: number };

export interface BankGateOptions {
  readonly concurrency: number;
  /** Longest a call waits for a free slot before it is deferred. */
  readonly maxWaitMs: number;
  /** How long a bank that stopped answering is left alone. */
  readonly cooldownMs: number;
  readonly now?: () => number;
}

export class BankGate {
  readonly #options: BankGateOptions;
  readonly #now: () => number;
  #active = 0;
  /** Calls waiting for a slot; a released slot is handed to the first of them, still counted as active. */
  readonly #waiters: ((granted: boolean) => void)[] = [];
  #pausedUntil = 0;
  #suspect = false;
  #probing = false;

  constructor(options: BankGateOptions) {
    this.#options = options;
    this.#now = options.now ?? (() => performance.now());
  }

  get inFlight(): number {
    return this.#active;
  }

  async admit(): Promise<Admission> {
    if (this.#now() < this.#pausedUntil) return { admitted: false, reason: 'bank-unresponsive' };
    let probe = false;
    if (this.#suspect) {
      if (this.#probing) return { admitted: false, reason: 'bank-unresponsive' };
      this.#probing = true;
      probe = true;
    }
    if (this.#active < this.#options.concurrency) this.#active += 1;
    else if (!(await this.#waitForSlot())) {
      if (probe) this.#probing = false;
      return { admitted: false, reason: 'bank-busy' };
    }
    let released = false;
    return {
      admitted: true,
      release: (health) => {
        if (released) return;
        released = true;
        if (probe) this.#probing = false;
        this.#record(health);
        const next = this.#waiters.shift();
        if (next) next(true);
        else this.#active -= 1;
      },
    };
  }

  #record(health: CallHealth): void {
    if (health.kind === 'answered') {
      this.#suspect = false;
      return;
    }
    if (health.kind === 'unresponsive') {
      this.#suspect = true;
      this.#pausedUntil = Math.max(this.#pausedUntil, this.#now() + this.#options.cooldownMs);
      return;
    }
    this.#pausedUntil = Math.max(this.#pausedUntil, this.#now() + health.forMs);
  }

  #waitForSlot(): Promise<boolean> {
    return new Promise((resolve) => {
      const grant = (granted: boolean) => {
        clearTimeout(timer);
        resolve(granted);
      };
      const timer = setTimeout(() => {
        const index = this.#waiters.indexOf(grant);
        if (index >= 0) this.#waiters.splice(index, 1);
        resolve(false);
      }, this.#options.maxWaitMs);
      this.#waiters.push(grant);
    });
  }
}

/** One gate per bank, made on first use. */
export class BankGates {
  readonly #options: BankGateOptions;
  readonly #gates = new Map<string, BankGate>();

  constructor(options: BankGateOptions) {
    this.#options = options;
  }

  of(memberId: string): BankGate {
    let gate = this.#gates.get(memberId);
    if (!gate) {
      gate = new BankGate(this.#options);
      this.#gates.set(memberId, gate);
    }
    return gate;
  }

  entries(): IterableIterator<[string, BankGate]> {
    return this.#gates.entries();
  }
}
