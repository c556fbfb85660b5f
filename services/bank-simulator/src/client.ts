import type { FaultRule } from './faults.ts';
import type {
  BankRequest,
  ExchangedMessage,
  MessageKind,
  MessageRoute,
  ReceivedPosting,
  SimulatorStats,
} from './records.ts';

/**
 * A test's handle on a running bank simulator (in this process or another). Waiting is on the
 * simulator's long poll: it answers as soon as the postings arrived, never after a fixed sleep.
 */
export class BankSimulatorClient {
  readonly #baseUrl: string;

  constructor(baseUrl: string) {
    this.#baseUrl = baseUrl.replace(/\/+$/, '');
  }

  /** Resolves with the uetr's postings (arrival order) once at least `count` arrived; rejects on timeout. */
  async waitForPostings(
    uetr: string,
    count: number,
    timeoutMs = 20_000,
    options: { memberId?: string } = {},
  ): Promise<ReceivedPosting[]> {
    const query = new URLSearchParams({ uetr, count: String(count), timeoutMs: String(timeoutMs) });
    if (options.memberId) query.set('memberId', options.memberId);
    const result = await this.#get<{ complete: boolean; count: number; postings: ReceivedPosting[] }>(
      `/sim/postings/wait?${query}`,
      timeoutMs + 5_000,
    );
    if (!result.complete) {
      throw new Error(`${result.count} of ${count} postings for ${uetr} arrived within ${timeoutMs} ms`);
    }
    return result.postings;
  }

  async postings(uetr?: string, memberId?: string): Promise<ReceivedPosting[]> {
    const query = new URLSearchParams();
    if (uetr) query.set('uetr', uetr);
    if (memberId) query.set('memberId', memberId);
    return (await this.#get<{ postings: ReceivedPosting[] }>(`/sim/postings?${query}`)).postings;
  }

  async messages(kind?: MessageKind, uetr?: string): Promise<ExchangedMessage[]> {
    const query = new URLSearchParams();
    if (kind) query.set('kind', kind);
    if (uetr) query.set('uetr', uetr);
    return (await this.#get<{ messages: ExchangedMessage[] }>(`/sim/messages?${query}`)).messages;
  }

  /** Every logged request to the message routes (faulted ones too), in arrival order. */
  async requests(
    filter: { route?: MessageRoute; uetr?: string; memberId?: string } = {},
  ): Promise<BankRequest[]> {
    const query = new URLSearchParams();
    if (filter.route) query.set('route', filter.route);
    if (filter.uetr) query.set('uetr', filter.uetr);
    if (filter.memberId) query.set('memberId', filter.memberId);
    return (await this.#get<{ requests: BankRequest[] }>(`/sim/requests?${query}`)).requests;
  }

  stats(): Promise<SimulatorStats> {
    return this.#get<SimulatorStats>('/sim/stats');
  }

  async setFault(rule: FaultRule): Promise<void> {
    await this.#send('POST', '/sim/faults', rule);
  }

  async listFaults(): Promise<FaultRule[]> {
    return (await this.#get<{ faults: FaultRule[] }>('/sim/faults')).faults;
  }

  async clearFaults(): Promise<void> {
    await this.#send('DELETE', '/sim/faults');
  }

  async reset(): Promise<void> {
    await this.#send('POST', '/sim/reset');
  }

  async #get<T>(path: string, timeoutMs = 10_000): Promise<T> {
    const response = await fetch(`${this.#baseUrl}${path}`, { signal: AbortSignal.timeout(timeoutMs) });
    if (!response.ok) throw new Error(`GET ${path}: ${response.status} ${await response.text()}`);
    return (await response.json()) as T;
  }

  async #send(method: string, path: string, body?: unknown): Promise<void> {
    const response = await fetch(`${this.#baseUrl}${path}`, {
      method,
      ...(body === undefined
        ? {}
        : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(10_000),
    });
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
    await response.arrayBuffer();
  }
}
