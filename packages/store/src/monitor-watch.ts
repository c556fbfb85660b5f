/**
 * Watches the MongoDB driver's server monitors through their heartbeat events, to find one that is stuck.
 *
 * A monitor checks its server every `heartbeatFrequencyMS`: each check starts (`serverHeartbeatStarted`)
 * and ends, well or badly (`serverHeartbeatSucceeded`, `serverHeartbeatFailed`), within the connect timeout
 * (plus the await time of a streaming check). If the monitor's connection closes at the wrong moment the
 * driver's check can wait forever: no end, no next check, the server Unknown for good, and every operation
 * failing server selection although the server is back. That was seen after the MongoDB-compatible
 * server restarted under load (the monitor's connection closed, its check still in progress 40 minutes
 * later). A check in progress far longer than any check can take is such a monitor.
 */
export class MonitorWatch {
  readonly #stalledAfterMs: number;
  /** Per server address, when its check in progress started. */
  readonly #inProgress = new Map<string, number>();

  /** `stalledAfterMs`: how long a check may be in progress before its monitor counts as stuck. */
  constructor(stalledAfterMs: number) {
    this.#stalledAfterMs = stalledAfterMs;
  }

  started(address: string, at: number): void {
    // A streaming monitor starts its next check as the last one ends: the newest start counts.
    this.#inProgress.set(address, at);
  }

  ended(address: string): void {
    this.#inProgress.delete(address);
  }

  /** The servers whose check has been in progress for longer than a check can take, and for how long. */
  stalled(now: number): { address: string; forMs: number }[] {
    const stalled: { address: string; forMs: number }[] = [];
    for (const [address, since] of this.#inProgress) {
      if (now - since > this.#stalledAfterMs) stalled.push({ address, forMs: now - since });
    }
    return stalled;
  }

  /** Forgets every check in progress (the client was reconnected: its monitors are new). */
  reset(): void {
    this.#inProgress.clear();
  }
}
