/** Limits of one produce request built from coalesced `send` calls. */
export interface BatchLimits {
  /** Records per request. */
  maxRecords: number;
  /**
   * Bytes (keys, values, headers) per request. Kept under the broker's 1 MiB record-batch limit, which
   * applies per partition: a request that fits is safe however its records fall across partitions.
   */
  maxBytes: number;
}

export interface QueuedSend {
  readonly records: number;
  readonly bytes: number;
}

/**
 * Takes whole sends from the front of the queue, in order, until the next one would break a limit.
 * A send larger than the limits on its own still goes out, alone, so nothing waits forever.
 */
export function takeBatch<E extends QueuedSend>(queue: E[], limits: BatchLimits): E[] {
  let records = 0;
  let bytes = 0;
  let count = 0;
  for (const entry of queue) {
    const fits = records + entry.records <= limits.maxRecords && bytes + entry.bytes <= limits.maxBytes;
    if (!fits && count > 0) break;
    records += entry.records;
    bytes += entry.bytes;
    count += 1;
  }
  return queue.splice(0, count);
}

/** Whether the queue already holds a full request, so waiting out the linger gains nothing. */
export function isFull(queued: QueuedSend, limits: BatchLimits): boolean {
  return queued.records >= limits.maxRecords || queued.bytes >= limits.maxBytes;
}

/** Groups messages per topic, keeping their order within each topic (kafkajs `sendBatch` input). */
export function groupByTopic<M>(sends: readonly { topic: string; messages: readonly M[] }[]): {
  topic: string;
  messages: M[];
}[] {
  const byTopic = new Map<string, M[]>();
  for (const send of sends) {
    let messages = byTopic.get(send.topic);
    if (!messages) {
      messages = [];
      byTopic.set(send.topic, messages);
    }
    for (const message of send.messages) messages.push(message);
  }
  return [...byTopic].map(([topic, messages]) => ({ topic, messages }));
}

/** Approximate bytes of a message on the wire, for the batch limits. */
export function messageBytes(message: {
  key?: Buffer | string | null;
  value: Buffer | string | null;
  headers?: Record<string, string | Buffer | undefined>;
}): number {
  let bytes = 16 + sizeOf(message.key) + sizeOf(message.value);
  if (message.headers) {
    for (const [name, value] of Object.entries(message.headers)) bytes += name.length + sizeOf(value) + 4;
  }
  return bytes;
}

function sizeOf(value: Buffer | string | null | undefined): number {
  if (value === null || value === undefined) return 0;
  return typeof value === 'string' ? Buffer.byteLength(value) : value.length;
}
