/**
 * Admission of attempts on one bank: at most `concurrency` requests at a time, and a breaker. After
 * `failureThreshold` retryable failures in a row (no answer, timeouts, 5xx...), or when the bank asks for
 * a pause (429 or 503 with Retry-After), the bank is paused: its postings are parked without an attempt,
 * so a bank that is down costs one probe per cooldown instead of a timeout per posting. Once the pause is
 * over, one probe goes through; an answer closes the breaker and releases the bank's parked lanes at once
 * (`onRecovered`). A probe that fails without an answer pauses the bank again for longer (doubling up to
 * `maxCooldownMs`, per failed probe in a row); one the bank answers with a Retry-After pauses it for
 * what the bank asked. Attempts that were already out when the bank was paused only ever extend the
 * pause to their own Retry-After: they are not probes, and do not make the next pause longer (with many
 * requests in flight to a bank shedding half of them, counting each one doubled the pause to its
 * maximum at once, and its lanes waited a minute per unlucky probe after it was back).
 *
 * The breaker is an optimisation kept per process: the lanes in MongoDB remain the truth of what waits.
 */
export interface BankGateOptions {
  readonly concurrency: number;
  readonly failureThreshold: number;
  /** Pause after the breaker opens; doubled for every failed probe in a row. */
  readonly baseCooldownMs: number;
  readonly maxCooldownMs: number;
  /** Monotonic milliseconds. */
  readonly now?: () => number;
}

/** What an attempt showed about the bank. */
export type BankHealth =
  | { readonly kind: 'answered' }
  | { readonly kind: 'failed' }
  | { readonly kind: 'paused'; readonly forMs: number };

export interface GateTicket {
  readonly probe: boolean;
}

export class BankGate {
  readonly #options: BankGateOptions;
  readonly #now: () => number;
  readonly #recovered: (() => void)[] = [];
  #active = 0;
  readonly #waiters: (() => void)[] = [];
  #consecutiveFailures = 0;
  #openings = 0;
  #open = false;
  #resumeAt = 0;
  #probing = false;

  constructor(options: BankGateOptions) {
    this.#options = options;
    this.#now = options.now ?? (() => performance.now());
  }

  get isOpen(): boolean {
    return this.#open;
  }

  /** Milliseconds until a probe may go (0 when closed or due). */
  get resumeInMs(): number {
    return this.#open ? Math.max(0, this.#resumeAt - this.#now()) : 0;
  }

  /** Paused, the pause is over and no probe is out: the next admitted attempt is the probe. */
  get probeDue(): boolean {
    return this.#open && !this.#probing && this.#now() >= this.#resumeAt;
  }

  get inFlight(): number {
    return this.#active;
  }

  onRecovered(listener: () => void): void {
    this.#recovered.push(listener);
  }

  /** A ticket when an attempt may be made now; undefined while the bank is paused (park the posting). */
  admit(): GateTicket | undefined {
    if (!this.#open) return { probe: false };
    if (this.#probing || this.#now() < this.#resumeAt) return undefined;
    this.#probing = true;
    return { probe: true };
  }

  /** Waits for one of the bank's request slots; call the returned function once the request is over. */
  async slot(): Promise<() => void> {
    if (this.#active < this.#options.concurrency) this.#active += 1;
    else await new Promise<void>((resolve) => this.#waiters.push(resolve));
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.#waiters.shift();
      if (next) next();
      else this.#active -= 1;
    };
  }

  /** Every admitted attempt reports once, also when it never reached the bank. */
  report(ticket: GateTicket, health: BankHealth): void {
    if (ticket.probe) this.#probing = false;
    switch (health.kind) {
      case 'answered': {
        const wasOpen = this.#open;
        this.#open = false;
        this.#consecutiveFailures = 0;
        this.#openings = 0;
        if (wasOpen) for (const listener of this.#recovered) listener();
        return;
      }
      case 'failed': {
        this.#consecutiveFailures += 1;
        if (ticket.probe || (!this.#open && this.#consecutiveFailures >= this.#options.failureThreshold)) {
          this.#open = true;
          this.#extendPause(this.#cooldownMs());
          this.#openings += 1;
        }
        return;
      }
      case 'paused':
        if (ticket.probe || !this.#open) {
          this.#open = true;
          this.#openings += 1;
        }
        this.#extendPause(health.forMs);
        return;
    }
  }

  /** The pause after the next failed probe: the base cooldown, doubled for each opening in a row. */
  #cooldownMs(): number {
    const { baseCooldownMs, maxCooldownMs } = this.#options;
    return Math.min(maxCooldownMs, baseCooldownMs * 2 ** Math.min(this.#openings, 30));
  }

  #extendPause(forMs: number): void {
    this.#resumeAt = Math.max(this.#resumeAt, this.#now() + forMs);
  }
}

/** The gates of every bank, created on first use with the same options. */
export class BankGates {
  readonly #options: BankGateOptions;
  readonly #gates = new Map<string, BankGate>();
  readonly #recovered: ((memberId: string) => void)[] = [];

  constructor(options: BankGateOptions) {
    this.#options = options;
  }

  of(memberId: string): BankGate {
    let gate = this.#gates.get(memberId);
    if (!gate) {
      gate = new BankGate(this.#options);
      gate.onRecovered(() => {
        for (const listener of this.#recovered) listener(memberId);
      });
      this.#gates.set(memberId, gate);
    }
    return gate;
  }

  onRecovered(listener: (memberId: string) => void): void {
    this.#recovered.push(listener);
  }

  entries(): IterableIterator<[string, BankGate]> {
    return this.#gates.entries();
  }
}
