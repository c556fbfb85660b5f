import type { Logger } from '@rp/runtime';
import type { IdempotencyClaim, IdempotencyRepository } from '@rp/store';
import type { IngressMetrics } from './metrics.ts';

export interface ProducedMarkersOptions {
  /** Longest a marker waits in memory before it is written. */
  readonly delayMs: number;
  /** Markers written in one command at most; a batch this full is written at once. */
  readonly batchSize: number;
}

export const defaultProducedMarkers: ProducedMarkersOptions = { delayMs: 1_000, batchSize: 100 };

export interface ProducedMarkersDeps {
  readonly idempotency: Pick<IdempotencyRepository, 'claimMany'>;
  readonly metrics: Pick<IngressMetrics, 'markers'>;
  readonly logger: Logger;
  readonly options?: Partial<ProducedMarkersOptions>;
}

/**
 * The "produced" markers of the messages whose records the broker acknowledged, written behind: many in
 * one insert command, up to `delayMs` after their 202s, rather than one command each before them. A
 * marker only spares a resend the produce (the records are durable when it is made), so until it is
 * written this instance answers from memory: a resend here is answered from the idempotency record, as
 * with the marker stored. A resend at another instance within that second, or after this one
 * died before writing, finds no marker and produces the message again; downstream drops the repeat, as
 * for any resend whose first attempt's marker is missing. `flush` writes what waits (at shutdown).
 */
export class ProducedMarkers {
  readonly #deps: ProducedMarkersDeps;
  readonly #options: ProducedMarkersOptions;
  /** Waiting for the next write. */
  readonly #waiting = new Map<string, IdempotencyClaim>();
  /** In a write that has not ended yet. */
  readonly #writing = new Map<string, IdempotencyClaim>();
  #timer: NodeJS.Timeout | undefined;
  /** The writes, one after another. */
  #written: Promise<void> = Promise.resolve();

  constructor(deps: ProducedMarkersDeps) {
    this.#deps = deps;
    this.#options = { ...defaultProducedMarkers, ...deps.options };
  }

  add(marker: IdempotencyClaim): void {
    this.#waiting.set(marker.key, marker);
    if (this.#waiting.size >= this.#options.batchSize) {
      void this.flush();
      return;
    }
    this.#timer ??= setTimeout(() => {
      this.#timer = undefined;
      void this.flush();
    }, this.#options.delayMs);
  }

  /** Whether this instance made the marker and has not finished writing it. */
  has(key: string): boolean {
    return this.#waiting.has(key) || this.#writing.has(key);
  }

  /** Writes the markers waiting now; resolves once every write so far has ended (written or given up). */
  flush(): Promise<void> {
    if (this.#timer !== undefined) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
    }
    const batch = [...this.#waiting.values()];
    this.#waiting.clear();
    if (batch.length > 0) {
      for (const marker of batch) this.#writing.set(marker.key, marker);
      this.#written = this.#written.then(() => this.#write(batch));
    }
    return this.#written;
  }

  async #write(batch: readonly IdempotencyClaim[]): Promise<void> {
    try {
      await this.#deps.idempotency.claimMany(batch);
      this.#deps.metrics.markers('written', batch.length);
    } catch (error) {
      // An optimisation, not a condition of anything: a resend of these messages produces them again.
      this.#deps.metrics.markers('failed', batch.length);
      this.#deps.logger.warn(
        { err: error, markers: batch.length },
        'produced markers not written; a resend of those messages will produce them again',
      );
    } finally {
      for (const marker of batch) {
        if (this.#writing.get(marker.key) === marker) this.#writing.delete(marker.key);
      }
    }
  }
}
