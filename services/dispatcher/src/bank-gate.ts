/**
 * Per-bank admission for calls: at most `concurrency` calls on one bank at a time, a bounded wait for a
 * slot, and a pause after the bank stops answering (a timeout, a refused connection) or after
 * `failureThreshold` retryable refusals in a row (5xx, 408, 425, 429 without Retry-After), so that one
 * slow, dead or failing bank never holds the consumer's partitions (whose other records go to other
 * banks). A paused bank gets one probe call once the pause is over; the others are deferred (to the
 * retry tiers, with the time left of the pause, so they come back when the bank may answer, without
 * calls of their own meanwhile) until the probe shows it answers. Times are real (monotonic) time: the
 * bank's health is not on the business clock.
 */
export type Admission =
  | { readonly admitted: true; release(outcome: CallHealth): void }
  | {
      readonly admitted: false;
      readonly reason: 'bank-unresponsive' | 'bank-busy';
      /** When a call may be admitted again, as far as the gate knows (0: try again soon). */
      readonly retryInMs: number;
    };

/**
 * What a call showed about the bank: it answered (202 or a final refusal), it refused with a retryable
 * status, it did not answer (timeout, connection), or it asked for a pause (Retry-After).
 */
export type CallHealth =
  | { readonly kind: 'answered' }
  | { readonly kind: 'failing' }
  | { readonly kind: 'unresponsive' }
  | { readonly kind: 'paused'; readonly forMs: number };

export interface BankGateOptions {
  readonly concurrency: number;
  /** Longest a call waits for a slot before it is deferred. */
  readonly maxWaitMs: number;
  /** How long a bank that stopped answering is left alone. */
  readonly cooldownMs: number;
  /** Retryable refusals in a row that pause the bank like a timeout does. Default 5. */
  readonly failureThreshold?: number;
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
  #failuresInARow = 0;

  constructor(options: BankGateOptions) {
    this.#options = options;
    this.#now = options.now ?? (() => performance.now());
  }

  get inFlight(): number {
    return this.#active;
  }

  async admit(): Promise<Admission> {
    const now = this.#now();
    if (now < this.#pausedUntil) {
      return { admitted: false, reason: 'bank-unresponsive', retryInMs: this.#pausedUntil - now };
    }
    let probe = false;
    if (this.#suspect) {
      // The probe's answer is awaited: the others look again a cooldown later at the latest.
      if (this.#probing)
        return { admitted: false, reason: 'bank-unresponsive', retryInMs: this.#options.cooldownMs };
      this.#probing = true;
      probe = true;
    }
    if (this.#active < this.#options.concurrency) this.#active += 1;
    else if (!(await this.#waitForSlot())) {
      if (probe) this.#probing = false;
      return { admitted: false, reason: 'bank-busy', retryInMs: 0 };
    }
    let released = false;
    return {
      admitted: true,
      release: (health) => {
        if (released) return;
        released = true;
        if (probe) this.#probing = false;
        this.#record(health, probe);
        const next = this.#waiters.shift();
        if (next) next(true);
        else this.#active -= 1;
      },
    };
  }

  #record(health: CallHealth, probe: boolean): void {
    switch (health.kind) {
      case 'answered':
        this.#suspect = false;
        this.#failuresInARow = 0;
        return;
      case 'failing':
        this.#failuresInARow += 1;
        if (probe || this.#failuresInARow >= (this.#options.failureThreshold ?? 5)) this.#pauseSuspect();
        return;
      case 'unresponsive':
        this.#pauseSuspect();
        return;
      case 'paused':
        this.#pausedUntil = Math.max(this.#pausedUntil, this.#now() + health.forMs);
        return;
    }
  }

  #pauseSuspect(): void {
    this.#suspect = true;
    this.#pausedUntil = Math.max(this.#pausedUntil, this.#now() + this.#options.cooldownMs);
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
