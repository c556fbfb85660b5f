/** One request's fate in a grouped command: its result, or the error it alone failed with. */
export type Settled<R> =
  | { readonly ok: true; readonly value: R }
  | { readonly ok: false; readonly error: unknown };

export interface GroupCommitOptions<Q> {
  /** Most weight (documents) in one command; a request is never split across commands. */
  readonly maxBatch: number;
  /** Most commands in flight at once; what is asked for meanwhile waits and joins the next one. */
  readonly maxInFlight: number;
  /** A request's weight against `maxBatch` (default 1): the documents it writes. */
  readonly weight?: (request: Q) => number;
}

interface Waiting<Q, R> {
  readonly request: Q;
  readonly resolve: (value: R) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * Group commit: the writes asked for while the event loop turns, and while `maxInFlight` commands are
 * out, go to the server as one command, and each caller learns its own request's fate. Under light load
 * a command carries one request and nothing waits longer than it would alone; the commands grow with the
 * load, and so does what one command saves (the local MongoDB-compatible server spends a tenth of the
 * CPU on a document inserted in a group of 50 that it spends on one inserted alone).
 *
 * `send` settles every request of its group: a request that failed alone (a duplicate key, say) is
 * settled as failed without failing the others. If `send` throws, every request of the group fails with
 * that error: what the command wrote before it failed is for the caller's retry to find (every write sent
 * this way must be safe to repeat).
 */
export class GroupCommit<Q, R> {
  readonly #send: (requests: readonly Q[]) => Promise<readonly Settled<R>[]>;
  readonly #maxBatch: number;
  readonly #maxInFlight: number;
  readonly #weight: (request: Q) => number;
  #waiting: Waiting<Q, R>[] = [];
  #scheduled = false;
  #inFlight = 0;

  constructor(
    send: (requests: readonly Q[]) => Promise<readonly Settled<R>[]>,
    options: GroupCommitOptions<Q>,
  ) {
    this.#send = send;
    this.#maxBatch = Math.max(1, options.maxBatch);
    this.#maxInFlight = Math.max(1, options.maxInFlight);
    this.#weight = options.weight ?? (() => 1);
  }

  /** Requests waiting for a command (a gauge, and tests). */
  get waiting(): number {
    return this.#waiting.length;
  }

  submit(request: Q): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.#waiting.push({ request, resolve, reject });
      this.#schedule();
    });
  }

  #schedule(): void {
    if (this.#scheduled || this.#waiting.length === 0 || this.#inFlight >= this.#maxInFlight) return;
    this.#scheduled = true;
    // After the current turn of the event loop: the requests its other callbacks make join this command.
    setImmediate(() => {
      this.#scheduled = false;
      while (this.#waiting.length > 0 && this.#inFlight < this.#maxInFlight) {
        const group = this.#take();
        this.#inFlight += 1;
        void this.#run(group).finally(() => {
          this.#inFlight -= 1;
          this.#schedule();
        });
      }
    });
  }

  /** The oldest waiting requests up to `maxBatch` of weight (at least one, however heavy). */
  #take(): Waiting<Q, R>[] {
    let weight = 0;
    let count = 0;
    for (const entry of this.#waiting) {
      const next = Math.max(1, this.#weight(entry.request));
      if (count > 0 && weight + next > this.#maxBatch) break;
      weight += next;
      count += 1;
    }
    return this.#waiting.splice(0, count);
  }

  async #run(group: readonly Waiting<Q, R>[]): Promise<void> {
    let settled: readonly Settled<R>[];
    try {
      settled = await this.#send(group.map((entry) => entry.request));
    } catch (error) {
      for (const entry of group) entry.reject(error);
      return;
    }
    group.forEach((entry, index) => {
      const outcome = settled[index];
      if (outcome === undefined) entry.reject(new Error(`group commit: request ${index} was not settled`));
      else if (outcome.ok) entry.resolve(outcome.value);
      else entry.reject(outcome.error);
    });
  }
}
