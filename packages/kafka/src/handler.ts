/** A decoded record handed to a handler. */
export interface ConsumedRecord<T> {
  /** The topic the record was produced to (for a retried record: its source topic, not the retry tier). */
  readonly topic: string;
  readonly partition: number;
  /** Offset in that topic's partition. */
  readonly offset: string;
  /** The partitioning key (the UETR); '' when the record has none. */
  readonly key: string;
  readonly value: T;
  readonly headers: Readonly<Record<string, string>>;
  /** When the record was written to `topic` (ISO-8601 UTC). */
  readonly timestamp: string;
  /** 1 on the first delivery, n on the (n-1)-th retry. */
  readonly attempt: number;
  /**
   * Read from a retry tier: a retry, or a record that waited there behind a failed record of its key
   * (`attempt` 1). Its offset is its source topic's, which may have been committed past already.
   */
  readonly fromRetryTier?: true;
  /**
   * A record this consumer group may have handled before: one that was in its partition already when this
   * consumer was assigned it (a previous owner, crashed or rebalanced away before it committed, may have
   * handled it), or one that failed before (a retry, or a dead letter redriven, which comes back as its
   * first attempt). Absent on a record produced since the assignment and on one that waited behind its
   * key without being handled. A handler that takes a shortcut only safe the first time takes the long way
   * here.
   */
  readonly possiblyHandled?: true;
}

export interface HandlerContext {
  /** Aborted when the consumer is aborted (not on a graceful stop): give up outbound calls early. */
  readonly signal: AbortSignal;
  /** Keeps the group membership alive during a long handler; cheap to call often. */
  heartbeat(): Promise<void>;
}

export interface BatchContext<T> extends HandlerContext {
  /**
   * Reports one record as failed; it goes to the retry tiers (or the dead-letter topic) and the key's later
   * records follow it. Records not reported count as handled.
   */
  fail(record: ConsumedRecord<T>, error: unknown): void;
}

/**
 * Receives records of one partition in offset order. Report per-record failures with `context.fail`; once a
 * key's record failed, do not handle that key's later records in the batch (report them failed as well, or
 * skip them): the consumer re-delivers them after the failed one. A handler that throws has all its records
 * re-run one at a time, so a single bad record is isolated.
 */
export type BatchHandler<T> = (
  records: readonly ConsumedRecord<T>[],
  context: BatchContext<T>,
) => Promise<void>;

/** Handles one record; throwing fails that record. Records of one key are handled one after another. */
export type RecordHandler<T> = (record: ConsumedRecord<T>, context: HandlerContext) => Promise<void>;

export type Handlers<T> =
  | { handleBatch: BatchHandler<T>; handleRecord?: never }
  | { handleRecord: RecordHandler<T>; handleBatch?: never };

export interface Indexed<T> {
  readonly index: number;
  readonly record: ConsumedRecord<T>;
}

export interface InvokeOptions {
  signal: AbortSignal;
  heartbeat(): Promise<void>;
  /** `handleRecord`: distinct keys handled at the same time. */
  keyConcurrency: number;
  /** Whether this failure sends the record to retry, which parks the rest of its key. */
  parksKey(error: unknown): boolean;
  /** Checked between records: true stops handing out records (the consumer is being aborted). */
  isAborted(): boolean;
  /** Told when a batch handler throws as a whole and its records are re-run one at a time. */
  onBatchThrew?(error: unknown, records: number): void;
}

/**
 * Runs the handler over records of one partition (in offset order) and returns the failures by index.
 * In record mode a key stops at its first failure that parks it: its later records are not handled.
 */
export async function invokeHandler<T>(
  handlers: Handlers<T>,
  records: readonly Indexed<T>[],
  options: InvokeOptions,
): Promise<Map<number, unknown>> {
  const failures = new Map<number, unknown>();
  if (records.length === 0) return failures;
  const context: HandlerContext = { signal: options.signal, heartbeat: options.heartbeat };
  if (handlers.handleRecord) {
    const handleRecord = handlers.handleRecord;
    await perKey(records, options.keyConcurrency, failures, options, (record) =>
      handleRecord(record, context),
    );
    return failures;
  }
  const handleBatch = handlers.handleBatch;
  const indexOf = new Map(records.map((entry) => [entry.record, entry.index]));
  try {
    await handleBatch(
      records.map((entry) => entry.record),
      {
        ...context,
        fail(record, error) {
          const index = indexOf.get(record);
          if (index === undefined)
            throw new RangeError('fail() was given a record that is not in this batch');
          failures.set(index, error);
        },
      },
    );
    return failures;
  } catch (error) {
    failures.clear();
    if (records.length === 1) {
      failures.set((records[0] as Indexed<T>).index, error);
      return failures;
    }
    options.onBatchThrew?.(error, records.length);
    await perKey(records, 1, failures, options, async (record) => {
      let reported: { error: unknown } | undefined;
      await handleBatch([record], {
        ...context,
        fail(_record, failure) {
          reported = { error: failure };
        },
      });
      if (reported) throw reported.error;
    });
    return failures;
  }
}

async function perKey<T>(
  records: readonly Indexed<T>[],
  concurrency: number,
  failures: Map<number, unknown>,
  options: InvokeOptions,
  handle: (record: ConsumedRecord<T>) => Promise<void>,
): Promise<void> {
  const groups = new Map<string, Indexed<T>[]>();
  for (const entry of records) {
    // Records without a key have no order to keep: each is its own group.
    const id = entry.record.key === '' ? `\u0000${entry.index}` : entry.record.key;
    const group = groups.get(id);
    if (group) group.push(entry);
    else groups.set(id, [entry]);
  }
  const queue = [...groups.values()];
  // Heartbeats between records keep a long run of slow records from costing the group membership; if
  // the group is rebalancing, the rest is left for the next owner (nothing of this call is committed).
  let lost: { error: unknown } | undefined;
  let next = 0;
  const worker = async () => {
    while (next < queue.length && !lost && !options.isAborted()) {
      const group = queue[next] as Indexed<T>[];
      next += 1;
      for (const entry of group) {
        if (lost || options.isAborted()) return;
        try {
          await handle(entry.record);
        } catch (error) {
          failures.set(entry.index, error);
          if (entry.record.key !== '' && options.parksKey(error)) break;
        }
        try {
          await options.heartbeat();
        } catch (error) {
          lost ??= { error };
        }
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(Math.max(1, concurrency), queue.length) }, worker));
  if (lost) throw lost.error;
}
