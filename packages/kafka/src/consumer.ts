import type { TraceSpan, Tracing } from '@rp/runtime';
import type {
  Admin,
  Consumer,
  ConsumerGroupJoinEvent,
  ConsumerRunConfig,
  EachBatchPayload,
  Kafka as KafkaJs,
  Producer as KafkaJsProducer,
  KafkaMessage,
  Message,
} from 'kafkajs';
import { coPartitionedAssigner } from './assigner.ts';
import type { AvroCodec } from './avro-serde.ts';
import { defaultCompression, type KafkaCompression } from './compression.ts';
import type { ConsumerObserver, LagReading } from './consumer-metrics.ts';
import { dispose } from './dispositions.ts';
import { describeError, fromKafkaJsError, isRetriableFailure, KafkaError } from './errors.ts';
import { type ConsumedRecord, type Handlers, type Indexed, invokeHandler } from './handler.ts';
import { whileBeating } from './keepalive.ts';
import type { Logger } from './logger.ts';
import { deadLetterTopicName, isLegalTopicName, retryTopicName } from './names.ts';
import { ParkedKeys } from './parked-keys.ts';
import { defaultOutboundOptions, OutboundQueue } from './producer.ts';
import {
  deadLetterHeaders,
  headersToStrings,
  parseRetryState,
  type RecordOrigin,
  type RetryState,
  retryHeader,
  retryHeaders,
  userHeaders,
} from './retry-headers.ts';
import {
  type DeadLetterReason,
  type RetryPolicy,
  retryHintOf,
  retryPolicy,
  routeFailure,
  tierCount,
} from './retry-policy.ts';
import { type BufferedRecord, TierBuffer } from './tier-buffer.ts';

interface ConsumerOptionsBase<T> {
  /** Consumer group, by convention `<service>.<topic>` (see `consumerGroupName`). */
  groupId: string;
  topics: readonly string[];
  /** Decodes every value (any registered writer schema is resolved to this codec's schema). */
  codec: AvroCodec<T>;
  retry?: Partial<RetryPolicy>;
  /**
   * Whether a handler failure is retried (else dead-lettered at once). Default: everything except errors
   * that carry `retriable: false`.
   */
  isRetriable?: (error: unknown) => boolean;
  /** Partitions whose batches are handled at the same time. Default 4. */
  partitionsConsumedConcurrently?: number;
  /** `handleRecord` only: distinct keys of one partition handled at the same time. Default 1. */
  keyConcurrency?: number;
  /** Records per handler call (and per commit). Default 500. */
  maxRecordsPerCall?: number;
  /** Where a new group starts: the earliest record (default) or only new ones. */
  fromBeginning?: boolean;
  /** Create the retry tiers and the dead-letter topic if missing. Default true. */
  declareTopics?: boolean;
  deadLetterRetentionMs?: number;
  /** Retry records read ahead per tier and partition before reading pauses. Default 10,000. */
  maxBufferedRetries?: number;
  sessionTimeoutMs?: number;
  /** How long a fetch waits for records; also bounds how long `stop` waits for the fetch loop. Default 500. */
  maxWaitTimeMs?: number;
  /**
   * Bytes a fetch waits for (up to `maxWaitTimeMs`) before it returns. Default 1: every record as soon as
   * it is there. More makes a busy consumer's batches larger and its fetches fewer.
   */
  fetchMinBytes?: number;
  /** How the records it writes to its retry tiers and dead-letter topic are compressed. Default `none`. */
  compression?: KafkaCompression;
  /**
   * How long a ready source partition with records waiting may go without a record handled before the
   * runner logs it as stalled and resumes it: a pause whose resume was lost, whatever lost it, costs this
   * long instead of the partition. Resuming a partition that waits for a reason does no harm: it pauses
   * again on its next batch. Default 60,000; 0 turns the check off.
   */
  stallMs?: number;
  /**
   * How long the offsets of handled records may wait to be committed. 0 (the default): after every
   * handler call, one commit each. Above 0: what every partition of this consumer handled is committed
   * together, at most this often (one request for many handler calls). Either way nothing is committed
   * before it was handled; a crash re-delivers what was handled since the last commit, so this is also
   * how much more a crash re-delivers.
   */
  commitIntervalMs?: number;
  /**
   * For a handler that leaves work buffered when it returns (write-behind): called before any offset is
   * committed, it resolves once the buffered work is durable. `all: true` (a stop, a retry tier's commit,
   * no commit interval): everything handed to the buffer before the call. `all: false` (a commit
   * interval's round, with `heldFrom`): it may keep young work in memory, which `heldFrom` names. While it
   * throws, the offsets wait and it is called again a second later.
   */
  flush?: (scope: { readonly all: boolean }) => Promise<void>;
  /**
   * With `flush`: after `flush({ all: false })`, the offset of the oldest record of a source partition
   * whose work is still only in memory (undefined: none). That partition's commit stops there, so a crash
   * re-delivers the record and what followed it; the rest is committed by a later round. Records read
   * from a retry tier (`fromRetryTier`) must not be held this way: a tier's commit flushes everything.
   */
  heldFrom?: (topic: string, partition: number) => bigint | undefined;
}

/** Exactly one of `handleBatch` and `handleRecord`. */
export type ConsumerOptions<T> = ConsumerOptionsBase<T> & Handlers<T>;

export interface ConsumerRunner {
  readonly groupId: string;
  /** Retry tier topics, tier 1 first. */
  readonly retryTopics: readonly string[];
  readonly deadLetterTopic: string;
  /**
   * Graceful: finishes the handler call in flight and commits it, lets in-flight retries finish, leaves the
   * group and disconnects. Records not yet handled are re-delivered to the next owner.
   */
  stop(): Promise<void>;
  /**
   * Immediate: no further handler calls and no further commits (what a crash leaves behind), then leaves
   * the group. Handlers see `context.signal` aborted. Used when a drain takes too long.
   */
  abort(): Promise<void>;
  /** False once stopped, or once kafkajs gave up on the consumer after a crash (readiness should fail). */
  isRunning(): boolean;
}

export interface ConsumerDeps {
  kafka: KafkaJs;
  /** An idempotent, acks=all producer configured like the application's. */
  createKafkaJsProducer(): KafkaJsProducer;
  admin(): Promise<Admin>;
  ensureTopics(topics: readonly { topic: string; partitions: number; retentionMs?: number }[]): Promise<void>;
  logger: Logger;
  /** A consumer span per record handled; the handler sees the span as the record's `traceparent`. */
  tracing?: Tracing;
  /** Told of dead letters, stalls, crashes and the lag (see `kafkaConsumerMetrics`). */
  observer?: ConsumerObserver;
}

interface RetryEntry extends BufferedRecord {
  readonly tier: number;
  readonly message: KafkaMessage;
  readonly key: string;
  readonly headers: Record<string, string>;
  readonly state: RetryState | KafkaError;
  dueAt: number;
  running: boolean;
}

interface Lane {
  readonly partition: number;
  readonly generation: number;
  readonly parked: ParkedKeys;
  readonly tiers: TierBuffer<RetryEntry>[];
  ready: boolean;
  /** When the lane became ready (the stall check counts from there until a record is handled). */
  readyAt: number | undefined;
  /** Per source topic: the next offset to handle and when the lane got there. */
  readonly handled: Map<string, { next: bigint; at: number }>;
  /**
   * Per source topic: the partition's end at the join (read with the retry tiers' ends), or else when this
   * consumer first fetched it after the join. What lies below it may have been handled by a previous owner
   * that did not commit (`possiblyHandled`).
   */
  readonly newFrom: Map<string, bigint>;
  /**
   * Per source topic: the partition's end as the last fetch (or stall check) saw it, and where the lane
   * stood then if it had handled nothing yet (the lag's reading).
   */
  readonly seen: Map<string, { end: bigint; from: bigint }>;
  /** Per tier index: the end offset the tier must be read to before the lane knows all its parked keys. */
  catchUp: Map<number, bigint> | undefined;
  readonly readyWaiters: (() => void)[];
  readonly pausedTiers: Map<number, () => void>;
  timer: NodeJS.Timeout | undefined;
  pumping: Promise<void> | undefined;
  pumpAgain: boolean;
}

interface Outgoing {
  topic: string;
  message: Message;
  /** A dead letter: the topic its record came from and why (counted once sent). */
  deadLetter?: { readonly topic: string; readonly reason: DeadLetterReason };
}

/** An offset handled and not committed yet (source topics), or a retry tier's first unresolved one. */
interface PendingCommit {
  readonly lane: Lane;
  readonly topic: string;
  readonly partition: number;
  readonly offset: bigint;
  /** For a retry tier: its buffer, told what was committed. */
  readonly tier?: TierBuffer<RetryEntry>;
}

/** How long a partition waits before trying again after the registry or the broker failed it. */
const infrastructureBackoffMs = 1_000;
/** The group's heartbeat interval: a tenth of the default session, sent while handlers work too. */
const heartbeatIntervalMs = 3_000;

export async function startConsumer<T>(
  deps: ConsumerDeps,
  options: ConsumerOptions<T>,
): Promise<ConsumerRunner> {
  const { logger } = deps;
  const { codec } = options;
  const handlers: Handlers<T> = options;
  const isRetriable = options.isRetriable ?? isRetriableFailure;
  const policy = retryPolicy(options.retry);
  const tiers = tierCount(policy);
  const groupId = options.groupId;
  const retryTopics = Array.from({ length: tiers }, (_, index) => retryTopicName(groupId, index + 1));
  const deadLetterTopic = deadLetterTopicName(groupId);
  const sourceTopics = [...new Set(options.topics)];
  const maxRecordsPerCall = options.maxRecordsPerCall ?? 500;
  const keyConcurrency = options.keyConcurrency ?? 1;
  const maxBufferedRetries = options.maxBufferedRetries ?? 10_000;
  if (sourceTopics.length === 0) throw new RangeError('a consumer needs at least one topic');
  for (const topic of [...retryTopics, deadLetterTopic]) {
    if (!isLegalTopicName(topic))
      throw new RangeError(`group ${groupId} gives the illegal topic name ${topic}`);
    if (sourceTopics.includes(topic))
      throw new RangeError(`${topic} cannot be both a source and a retry topic`);
  }

  const admin = await deps.admin();
  const partitionCount = await sourcePartitionCount(admin, sourceTopics);
  if (options.declareTopics !== false) {
    await deps.ensureTopics([
      ...retryTopics.map((topic) => ({ topic, partitions: partitionCount })),
      {
        topic: deadLetterTopic,
        partitions: partitionCount,
        ...(options.deadLetterRetentionMs === undefined
          ? {}
          : { retentionMs: options.deadLetterRetentionMs }),
      },
    ]);
  }
  await checkRetryTopics(admin, retryTopics, partitionCount);

  const outbound = new OutboundQueue(
    () => deps.createKafkaJsProducer(),
    { ...defaultOutboundOptions, lingerMs: 1, compression: options.compression ?? defaultCompression },
    logger,
  );
  await outbound.connect();

  const consumer: Consumer = deps.kafka.consumer({
    groupId,
    partitionAssigners: [coPartitionedAssigner],
    allowAutoTopicCreation: false,
    sessionTimeout: options.sessionTimeoutMs ?? 30_000,
    heartbeatInterval: heartbeatIntervalMs,
    maxWaitTimeInMs: options.maxWaitTimeMs ?? 500,
    minBytes: options.fetchMinBytes ?? 1,
  });

  const lanes = new Map<number, Lane>();
  const backoffTimers = new Set<NodeJS.Timeout>();
  const abortController = new AbortController();
  let generation = 0;
  let stopping = false;
  let aborted = false;
  /** kafkajs stopped the consumer after a crash and did not restart it; this runner restarts it. */
  let crashed = false;
  /** Restarts after crashes since the consumer last joined its group (sets the restart's backoff). */
  let crashRestarts = 0;
  let restartTimer: NodeJS.Timeout | undefined;
  let shutdown: Promise<void> | undefined;
  /**
   * Commits through the consumer group itself. `consumer.commitOffsets` silently does nothing once a stop
   * has begun, which would lose the commits a graceful stop exists to make.
   */
  let commitDirect: EachBatchPayload['commitOffsetsIfNecessary'] | undefined;
  const commitIntervalMs = Math.max(0, options.commitIntervalMs ?? 0);
  /** Offsets waiting for the next commit, by topic and partition (commit-behind). */
  const pendingCommits = new Map<string, PendingCommit>();
  let commitTimer: NodeJS.Timeout | undefined;
  let committing: Promise<void> | undefined;

  const halted = () => stopping || aborted;
  const isCurrent = (lane: Lane) => lane.generation === generation && lanes.get(lane.partition) === lane;

  /**
   * Pauses the batch's partition and returns its resume. A pause lives in the kafkajs consumer group that
   * made it: one made before kafkajs restarted the consumer is gone with that group, and its resume does
   * nothing to the new one. A join resumes everything it assigns (see `onJoin`), so a resume lost with a
   * lane never leaves a partition paused.
   */
  function pausePartition(payload: EachBatchPayload): () => void {
    return payload.pause();
  }

  function resumeLater(resume: () => void, delayMs: number): void {
    const timer = setTimeout(() => {
      backoffTimers.delete(timer);
      resume();
    }, delayMs);
    backoffTimers.add(timer);
  }

  function onJoin(event: ConsumerGroupJoinEvent): void {
    generation += 1;
    if (crashed) logger.warn({ groupId, restarts: crashRestarts }, 'consumer running again after its crash');
    crashed = false;
    crashRestarts = 0;
    for (const lane of lanes.values()) clearTimeout(lane.timer);
    lanes.clear();
    const assignment = event.payload.memberAssignment;
    const partitions = new Set<number>();
    const assigned: { topic: string; partitions: number[] }[] = [];
    for (const topic of [...sourceTopics, ...retryTopics]) {
      const ofTopic = assignment[topic] ?? [];
      for (const partition of ofTopic) partitions.add(partition);
      if (ofTopic.length > 0) assigned.push({ topic, partitions: [...ofTopic] });
    }
    for (const partition of partitions) {
      lanes.set(partition, {
        partition,
        generation,
        parked: new ParkedKeys(),
        tiers: retryTopics.map(() => new TierBuffer<RetryEntry>()),
        ready: tiers === 0,
        readyAt: tiers === 0 ? Date.now() : undefined,
        handled: new Map(),
        newFrom: new Map(),
        seen: new Map(),
        catchUp: undefined,
        readyWaiters: [],
        pausedTiers: new Map(),
        timer: undefined,
        pumping: undefined,
        pumpAgain: false,
      });
    }
    // kafkajs keeps pauses across a rebalance; this generation decides its own. Every assigned partition
    // is resumed: the resumes of the lanes just dropped are never called, and bookkeeping of which
    // partitions are paused would be wrong once kafkajs had restarted the consumer under a new group
    // object (an old pause's resume, firing late, would clear the entry of a new pause).
    try {
      if (assigned.length > 0) consumer.resume(assigned);
    } catch (error) {
      logger.error({ groupId, generation, err: error }, 'assigned partitions not resumed');
    }
    logger.info(
      { groupId, generation, partitions: [...partitions].sort((a, b) => a - b) },
      'consumer assigned',
    );
    if (tiers > 0 && partitions.size > 0) void rebuildParkedKeys(generation);
  }

  /**
   * A new owner of a partition does not know which keys have records waiting in the retry tiers. Until the
   * tiers are read up to where they ended at the join, the source partition waits: otherwise a key's newer
   * record could overtake its older ones.
   *
   * The group's committed offsets are read again until every lane is ready: a tier partition whose
   * committed offset reached its target holds nothing unresolved below it, whatever this consumer has
   * read of it. The read at the join can lag the group (a metadata refresh, a commit of the previous
   * owner landing late) while the fetch starts past it; without the second look such a partition would
   * wait for records that are never delivered again.
   */
  async function rebuildParkedKeys(forGeneration: number): Promise<void> {
    const since = Date.now();
    let targetsSet = false;
    let warned = false;
    for (;;) {
      if (forGeneration !== generation || halted()) return;
      try {
        const committed = await admin.fetchOffsets({ groupId, topics: retryTopics });
        const committedOf = (topic: string, partition: number) =>
          committedOffset(committed, topic, partition);
        if (!targetsSet) {
          // The source partitions' ends too: what lies below them at the join may have been handled by a
          // previous owner, what comes after may not (the lane waits for this, so no record is handled
          // before its bound is known; a consumer without tiers takes its first fetch's end instead).
          const [ends, sourceEnds] = await Promise.all([
            Promise.all(retryTopics.map((topic) => admin.fetchTopicOffsets(topic))),
            Promise.all(sourceTopics.map((topic) => admin.fetchTopicOffsets(topic))),
          ]);
          if (forGeneration !== generation) return;
          for (const lane of lanes.values()) {
            sourceTopics.forEach((topic, index) => {
              const end = sourceEnds[index]?.find((entry) => entry.partition === lane.partition);
              if (end && !lane.newFrom.has(topic)) lane.newFrom.set(topic, BigInt(end.high));
            });
            const targets = new Map<number, bigint>();
            retryTopics.forEach((topic, index) => {
              const end = ends[index]?.find((entry) => entry.partition === lane.partition);
              if (!end) return;
              const low = BigInt(end.low);
              const high = BigInt(end.high);
              const committedOffset = committedOf(topic, lane.partition);
              let start =
                committedOffset === undefined || committedOffset === '-1' ? low : BigInt(committedOffset);
              if (start < low) start = low;
              const buffer = lane.tiers[index] as TierBuffer<RetryEntry>;
              buffer.committed = start;
              if (start < high) targets.set(index, high);
            });
            lane.catchUp = targets;
            checkCaughtUp(lane);
          }
          targetsSet = true;
        } else {
          if (forGeneration !== generation) return;
          for (const lane of lanes.values()) {
            if (lane.ready || !lane.catchUp) continue;
            for (const [index, target] of lane.catchUp) {
              const offset = committedOf(retryTopics[index] as string, lane.partition);
              if (offset !== undefined && offset !== '-1' && BigInt(offset) >= target)
                lane.catchUp.delete(index);
            }
            checkCaughtUp(lane);
          }
        }
        const waiting = [...lanes.values()].filter((lane) => !lane.ready).map((lane) => lane.partition);
        if (waiting.length === 0) return;
        if (!warned && Date.now() - since >= 30_000) {
          warned = true;
          logger.warn(
            { groupId, partitions: waiting.sort((x, y) => x - y) },
            'partitions still wait for their retry tiers to be read',
          );
        }
      } catch (error) {
        if (forGeneration !== generation || halted()) return;
        logger.warn({ groupId, err: error }, 'reading the retry tiers offsets failed; trying again');
      }
      await new Promise((resolve) => resumeLater(() => resolve(undefined), infrastructureBackoffMs));
    }
  }

  function checkCaughtUp(lane: Lane): void {
    if (lane.ready || !lane.catchUp || !isCurrent(lane)) return;
    for (const [index, target] of lane.catchUp) {
      const next = lane.tiers[index]?.nextOffset;
      if (next !== undefined && next >= target) lane.catchUp.delete(index);
    }
    if (lane.catchUp.size > 0) return;
    lane.ready = true;
    lane.readyAt = Date.now();
    for (const resume of lane.readyWaiters.splice(0)) resume();
    schedulePump(lane);
  }

  async function onSourceBatch(payload: EachBatchPayload): Promise<void> {
    const { batch } = payload;
    const lane = lanes.get(batch.partition);
    if (halted()) {
      // Leaving the group: stop the fetch loop from re-fetching this partition meanwhile.
      payload.pause();
      return;
    }
    if (!lane) {
      resumeLater(pausePartition(payload), infrastructureBackoffMs);
      return;
    }
    const first = batch.messages[0]?.offset;
    see(lane, batch.topic, BigInt(batch.highWatermark), first === undefined ? undefined : BigInt(first));
    if (!lane.ready) {
      lane.readyWaiters.push(pausePartition(payload));
      return;
    }
    // Without the end at the join (a consumer without retry tiers reads none), the first fetch's, at or
    // past it: what lies below it may have been seen.
    if (!lane.newFrom.has(batch.topic)) lane.newFrom.set(batch.topic, BigInt(batch.highWatermark));
    const messages = batch.messages;
    for (let start = 0; start < messages.length; start += maxRecordsPerCall) {
      if (halted() || !payload.isRunning() || payload.isStale() || !isCurrent(lane)) return;
      const chunk = messages.slice(start, start + maxRecordsPerCall);
      try {
        await handleSourceChunk(lane, batch.topic, batch.partition, chunk, payload.heartbeat);
      } catch (error) {
        if (error instanceof KafkaError && error.retriable) {
          logger.warn(
            { groupId, topic: batch.topic, partition: batch.partition, err: error },
            'partition waits: the registry or the broker is unavailable',
          );
          resumeLater(pausePartition(payload), infrastructureBackoffMs);
          return;
        }
        throw error;
      }
      if (aborted || !isCurrent(lane)) return;
      const last = (chunk[chunk.length - 1] as KafkaMessage).offset;
      payload.resolveOffset(last);
      lane.handled.set(batch.topic, { next: BigInt(last) + 1n, at: Date.now() });
      await commitHandled({
        lane,
        topic: batch.topic,
        partition: batch.partition,
        offset: BigInt(last) + 1n,
      });
      await payload.heartbeat();
    }
  }

  /**
   * Records the partition's end as a fetch or a stall check saw it, and `from`, where the lane stands if it
   * has handled nothing yet (a batch's first offset, the group's committed one).
   */
  function see(lane: Lane, topic: string, end: bigint, position: bigint | undefined): void {
    const before = lane.seen.get(topic);
    const from = position ?? before?.from ?? end;
    lane.seen.set(topic, { end: before !== undefined && before.end > end ? before.end : end, from });
  }

  /** Each owned source partition's records not handled yet, as far as this consumer has seen its end. */
  function lag(): LagReading[] {
    const readings: LagReading[] = [];
    for (const lane of lanes.values()) {
      if (!isCurrent(lane)) continue;
      for (const [topic, { end, from }] of lane.seen) {
        const next = lane.handled.get(topic)?.next ?? from;
        readings.push({ topic, partition: lane.partition, records: end > next ? end - next : 0n });
      }
    }
    return readings;
  }

  async function handleSourceChunk(
    lane: Lane,
    topic: string,
    partition: number,
    chunk: readonly KafkaMessage[],
    heartbeat: () => Promise<void>,
  ): Promise<void> {
    const keys = chunk.map((message) => message.key?.toString('utf8') ?? '');
    const parkedBefore = keys.map((key) => key !== '' && lane.parked.isParked(topic, key));
    const toDecode = chunk.flatMap((_, index) => (parkedBefore[index] ? [] : [index]));
    const decoded = await codec.decodeMany(toDecode.map((index) => (chunk[index] as KafkaMessage).value));
    const poison = new Map<number, KafkaError>();
    const records: Indexed<T>[] = [];
    toDecode.forEach((index, at) => {
      const outcome = decoded[at];
      const message = chunk[index] as KafkaMessage;
      if (!outcome) return;
      if (!outcome.ok) {
        poison.set(index, outcome.error);
        return;
      }
      records.push({
        index,
        record: {
          topic,
          partition,
          offset: message.offset,
          key: keys[index] as string,
          value: outcome.value,
          headers: headersToStrings(message.headers),
          timestamp: isoTimestamp(message.timestamp),
          attempt: 1,
          ...(BigInt(message.offset) < (lane.newFrom.get(topic) ?? 0n) ? { possiblyHandled: true } : {}),
        },
      });
    });

    const failures = await invokeTraced(records, heartbeat, 1);
    const dispositions = dispose({ keys, parkedBefore, poison, failures }, policy, isRetriable);

    const outgoing: Outgoing[] = [];
    const parkedNow: { key: string; offset: bigint }[] = [];
    const now = Date.now();
    dispositions.forEach((disposition, index) => {
      if (disposition.kind === 'handled') return;
      const message = chunk[index] as KafkaMessage;
      const key = keys[index] as string;
      const origin: RecordOrigin = {
        topic,
        partition,
        offset: message.offset,
        timestamp: isoTimestamp(message.timestamp),
      };
      const own = headersToStrings(message.headers);
      if (disposition.kind === 'dead-letter') {
        const tried = disposition.reason === 'poison' ? 0 : 1;
        const failed = tried === 0 ? {} : { firstFailureAt: new Date(now).toISOString() };
        outgoing.push(
          toDeadLetter(
            message,
            own,
            { origin, attempt: tried, reason: 'failed', ...failed },
            disposition.reason,
            disposition.error,
          ),
        );
        return;
      }
      if (key !== '') {
        // Parked synchronously, before any await: the next chunk of this partition must already see it.
        lane.parked.park(topic, key, BigInt(message.offset));
        parkedNow.push({ key, offset: BigInt(message.offset) });
      }
      const state: RetryState =
        disposition.kind === 'park'
          ? { origin, attempt: 0, reason: 'parked', dueAt: now + disposition.delayMs }
          : {
              origin,
              attempt: 1,
              reason: 'failed',
              dueAt: now + disposition.delayMs,
              firstFailureAt: new Date(now).toISOString(),
              ...described(disposition.error),
            };
      outgoing.push(toTier(disposition.tier, message, partition, own, state));
    });
    if (outgoing.length === 0) return;
    try {
      await send(outgoing);
    } catch (error) {
      for (const { key, offset } of parkedNow) lane.parked.release(topic, key, offset);
      throw error;
    }
  }

  /** `invoke` inside one consumer span per record, each the child of the trace its record carries. */
  async function invokeTraced(
    records: readonly Indexed<T>[],
    heartbeat: () => Promise<void>,
    attempt: number,
  ): Promise<Map<number, unknown>> {
    const tracing = deps.tracing;
    if (!tracing || records.length === 0) return invoke(records, heartbeat, attempt);
    const spans: TraceSpan[] = [];
    const traced = records.map(({ index, record }) => {
      const span = tracing.startSpan(`process ${record.topic}`, {
        role: 'consumer',
        parent: record.headers,
        uetr: record.key,
        attributes: {
          'messaging.system': 'kafka',
          'messaging.destination.name': record.topic,
          'messaging.consumer.group.name': groupId,
          'messaging.kafka.offset': Number(record.offset),
          'rp.attempt': attempt,
        },
      });
      spans.push(span);
      return { index, record: { ...record, headers: { ...record.headers, ...span.headers } } };
    });
    try {
      const failures = await invoke(traced, heartbeat, attempt);
      traced.forEach(({ index }, at) => {
        if (failures.has(index)) spans[at]?.fail(failures.get(index));
      });
      return failures;
    } catch (error) {
      for (const span of spans) span.fail(error);
      throw error;
    } finally {
      for (const span of spans) span.end();
    }
  }

  /** Runs the handler for delivery number `attempt`; failures that go to retry park the rest of their key. */
  function invoke(
    records: readonly Indexed<T>[],
    heartbeat: () => Promise<void>,
    attempt: number,
  ): Promise<Map<number, unknown>> {
    // The handler may wait on a slow store for longer than the session: heartbeats go on meanwhile. kafkajs
    // sends one once the interval has passed since the last; asked at the interval itself, every other
    // would find it a moment short, so it is asked three times an interval.
    return whileBeating(heartbeat, heartbeatIntervalMs / 3, () =>
      invokeHandler(handlers, records, {
        signal: abortController.signal,
        heartbeat,
        keyConcurrency,
        parksKey: (error) => routeFailure(policy, attempt, isRetriable(error)).kind === 'retry',
        isAborted: () => aborted,
        onBatchThrew: (error, count) =>
          logger.warn(
            { groupId, records: count, err: error },
            'batch handler threw; handling its records one at a time',
          ),
      }),
    );
  }

  function onRetryBatch(payload: EachBatchPayload, tier: number): void {
    const { batch } = payload;
    const lane = lanes.get(batch.partition);
    if (halted()) {
      payload.pause();
      return;
    }
    if (!lane) {
      resumeLater(pausePartition(payload), infrastructureBackoffMs);
      return;
    }
    if (batch.messages.length === 0) return;
    const buffer = lane.tiers[tier - 1] as TierBuffer<RetryEntry>;
    for (const message of batch.messages) {
      const offset = BigInt(message.offset);
      if (buffer.nextOffset !== undefined && offset < buffer.nextOffset) continue;
      const headers = headersToStrings(message.headers);
      let state: RetryState | KafkaError;
      try {
        state = parseRetryState(headers);
      } catch (error) {
        state = error instanceof KafkaError ? error : new KafkaError('RETRY_HEADERS_INVALID', String(error));
      }
      const key = message.key?.toString('utf8') ?? '';
      buffer.add({
        offset,
        tier,
        message,
        key,
        headers,
        state,
        dueAt: state instanceof KafkaError ? 0 : state.dueAt,
        done: false,
        running: false,
      });
      if (!(state instanceof KafkaError) && key !== '') {
        lane.parked.park(state.origin.topic, key, BigInt(state.origin.offset));
      }
    }
    payload.resolveOffset((batch.messages[batch.messages.length - 1] as KafkaMessage).offset);
    checkCaughtUp(lane);
    if (lane.ready && buffer.pending >= maxBufferedRetries && !lane.pausedTiers.has(tier)) {
      lane.pausedTiers.set(tier, pausePartition(payload));
    }
    schedulePump(lane);
  }

  function schedulePump(lane: Lane): void {
    if (lane.pumping) {
      lane.pumpAgain = true;
      return;
    }
    lane.pumping = pump(lane)
      .catch((error: unknown) =>
        logger.error({ groupId, partition: lane.partition, err: error }, 'retry pump failed'),
      )
      .finally(() => {
        lane.pumping = undefined;
      });
  }

  /**
   * Handles the due records of a partition's retry tiers, tier by tier in offset order, each only when it
   * is the oldest waiting record of its key. Sleeps until the next due time; nothing blocks the source.
   */
  async function pump(lane: Lane): Promise<void> {
    do {
      lane.pumpAgain = false;
      if (!lane.ready || halted() || !isCurrent(lane)) return;
      clearTimeout(lane.timer);
      lane.timer = undefined;
      let wakeAt: number | undefined;
      for (const [index, buffer] of lane.tiers.entries()) {
        for (let at = 0; at < buffer.entries.length; at += 1) {
          const entry = buffer.entries[at] as RetryEntry;
          if (entry.done || entry.running) continue;
          if (halted() || !isCurrent(lane)) return;
          if (entry.dueAt > Date.now()) {
            wakeAt = Math.min(wakeAt ?? entry.dueAt, entry.dueAt);
            break;
          }
          const state = entry.state;
          if (!(state instanceof KafkaError) && entry.key !== '') {
            const origin = BigInt(state.origin.offset);
            if (!lane.parked.holds(state.origin.topic, entry.key, origin)) {
              // A second copy of a record already resolved (re-sent after a failed forward): nothing to do.
              buffer.markDone(entry);
              continue;
            }
            if (!lane.parked.isHead(state.origin.topic, entry.key, origin)) continue;
          }
          await processRetry(lane, buffer, entry);
          if (aborted || !isCurrent(lane)) return;
          await commitTier(lane, index);
        }
        buffer.compact();
        const resume = lane.pausedTiers.get(index + 1);
        if (resume && buffer.pending < maxBufferedRetries / 2) {
          lane.pausedTiers.delete(index + 1);
          resume();
        }
      }
      if (wakeAt !== undefined && !lane.pumpAgain && !halted()) {
        lane.timer = setTimeout(() => schedulePump(lane), Math.max(0, wakeAt - Date.now()));
      }
    } while (lane.pumpAgain);
  }

  async function processRetry(lane: Lane, buffer: TierBuffer<RetryEntry>, entry: RetryEntry): Promise<void> {
    entry.running = true;
    try {
      const state = entry.state;
      if (state instanceof KafkaError) {
        const origin: RecordOrigin = {
          topic: retryTopics[entry.tier - 1] as string,
          partition: lane.partition,
          offset: entry.message.offset,
          timestamp: isoTimestamp(entry.message.timestamp),
        };
        await send([
          toDeadLetter(
            entry.message,
            entry.headers,
            { origin, attempt: 0, reason: 'failed' },
            'poison',
            state,
          ),
        ]);
        buffer.markDone(entry);
        return;
      }
      const originOffset = BigInt(state.origin.offset);
      const release = () => {
        if (entry.key === '') return;
        lane.parked.release(state.origin.topic, entry.key, originOffset);
        // The key's next record may be waiting further up this tier or on an earlier one.
        if (lane.parked.isParked(state.origin.topic, entry.key)) lane.pumpAgain = true;
      };
      const [outcome] = await codec.decodeMany([entry.message.value]);
      if (!outcome) return;
      if (!outcome.ok) {
        await send([toDeadLetter(entry.message, entry.headers, state, 'poison', outcome.error)]);
        release();
        buffer.markDone(entry);
        return;
      }
      const attempt = state.attempt + 1;
      const record: ConsumedRecord<T> = {
        topic: state.origin.topic,
        partition: state.origin.partition,
        offset: state.origin.offset,
        key: entry.key,
        value: outcome.value,
        headers: userHeaders(entry.headers),
        timestamp: state.origin.timestamp,
        attempt,
        fromRetryTier: true,
        // Failed before (a redriven dead letter comes back as its first attempt): it may have been half
        // handled. A parked record waited behind its key and was never handed to the handler.
        ...(state.reason === 'failed' ? { possiblyHandled: true as const } : {}),
      };
      const failures = await invokeTraced([{ index: 0, record }], async () => {}, attempt);
      if (aborted || !isCurrent(lane)) return;
      if (!failures.has(0)) {
        release();
        buffer.markDone(entry);
        return;
      }
      const error = failures.get(0);
      const now = Date.now();
      const failed: Omit<RetryState, 'dueAt'> = {
        origin: state.origin,
        attempt,
        reason: 'failed',
        firstFailureAt: state.firstFailureAt ?? new Date(now).toISOString(),
        ...described(error),
      };
      const route = routeFailure(policy, attempt, isRetriable(error), retryHintOf(error));
      if (route.kind === 'retry') {
        await send([
          toTier(route.tier, entry.message, lane.partition, entry.headers, {
            ...failed,
            dueAt: now + route.delayMs,
          }),
        ]);
      } else {
        await send([toDeadLetter(entry.message, entry.headers, failed, route.reason)]);
        release();
      }
      buffer.markDone(entry);
    } catch (error) {
      entry.dueAt = Date.now() + infrastructureBackoffMs;
      const level = error instanceof KafkaError && error.retriable ? 'warn' : 'error';
      logger[level](
        { groupId, partition: lane.partition, tier: entry.tier, offset: entry.message.offset, err: error },
        'retry record waits: handling it could not complete',
      );
    } finally {
      entry.running = false;
    }
  }

  async function commitTier(lane: Lane, index: number): Promise<void> {
    const buffer = lane.tiers[index] as TierBuffer<RetryEntry>;
    const offset = buffer.needsCommit();
    if (offset === undefined || aborted || !isCurrent(lane)) return;
    await commitHandled({
      lane,
      topic: retryTopics[index] as string,
      partition: lane.partition,
      offset,
      tier: buffer,
    });
  }

  /**
   * Commits a handled offset: at once (after the handler's flush) without a commit interval or while
   * stopping, else with the next commit of every partition.
   */
  async function commitHandled(entry: PendingCommit): Promise<void> {
    const key = `${entry.topic}\u0000${entry.partition}`;
    if (commitIntervalMs > 0 && !stopping) {
      pendingCommits.set(key, entry);
      scheduleCommit(commitIntervalMs);
      return;
    }
    // Committed now: an older offset of the partition still waiting must not follow it.
    if ((pendingCommits.get(key)?.offset ?? -1n) <= entry.offset) pendingCommits.delete(key);
    try {
      await commitNow([entry], true);
    } catch (error) {
      if (entry.tier) {
        logger.debug({ groupId, partition: entry.partition, err: error }, 'retry tier commit failed');
        return;
      }
      throw error;
    }
  }

  function scheduleCommit(delayMs: number): void {
    if (commitTimer !== undefined || committing !== undefined || aborted) return;
    commitTimer = setTimeout(() => {
      commitTimer = undefined;
      committing = commitPending().finally(() => {
        committing = undefined;
        if (pendingCommits.size > 0) scheduleCommit(commitIntervalMs);
      });
    }, delayMs);
  }

  /** Commits every waiting offset; what could not be committed waits for the next round. */
  async function commitPending(): Promise<void> {
    if (pendingCommits.size === 0 || aborted) return;
    const entries = [...pendingCommits.values()];
    pendingCommits.clear();
    try {
      // A partition whose records' work the handler still holds is committed up to it; the rest waits.
      for (const entry of await commitNow(entries, false)) {
        const key = `${entry.topic}\u0000${entry.partition}`;
        if (!pendingCommits.has(key)) pendingCommits.set(key, entry);
      }
    } catch (error) {
      const current = entries.filter((entry) => isCurrent(entry.lane));
      if (current.length === 0) return;
      logger.warn({ groupId, err: error }, 'offsets not committed; trying again');
      for (const entry of current) {
        const key = `${entry.topic}\u0000${entry.partition}`;
        if (!pendingCommits.has(key)) pendingCommits.set(key, entry);
      }
      await new Promise((resolve) => setTimeout(resolve, infrastructureBackoffMs));
    }
  }

  /**
   * The handler's flush, then one commit of the offsets whose partitions this consumer still owns. A
   * partition that changed hands since is left to its new owner, which re-delivers what this one handled.
   * Unless `all`, a source partition whose records' work the handler still holds (`heldFrom`) is committed
   * only up to the oldest of them: those entries are returned, for a later round to commit the rest.
   */
  async function commitNow(entries: readonly PendingCommit[], all: boolean): Promise<PendingCommit[]> {
    // A retry tier's commit (or a stop) takes everything the handler holds to MongoDB first.
    const whole = all || options.heldFrom === undefined || entries.some((entry) => entry.tier !== undefined);
    if (options.flush) await options.flush({ all: whole });
    const current = entries.filter((entry) => isCurrent(entry.lane));
    if (current.length === 0 || aborted) return [];
    const unfinished: PendingCommit[] = [];
    const byTopic = new Map<string, { partition: number; offset: string }[]>();
    for (const entry of current) {
      const { topic, partition } = entry;
      let offset = entry.offset;
      const held = whole ? undefined : options.heldFrom?.(topic, partition);
      if (held !== undefined && held < offset) {
        offset = held;
        unfinished.push(entry);
      }
      byTopic.set(topic, [...(byTopic.get(topic) ?? []), { partition, offset: offset.toString() }]);
    }
    await commitDirect?.({ topics: [...byTopic].map(([topic, partitions]) => ({ topic, partitions })) });
    for (const entry of current) {
      if (entry.tier && (entry.tier.committed === undefined || entry.offset > entry.tier.committed)) {
        entry.tier.committed = entry.offset;
      }
    }
    return unfinished;
  }

  function toTier(
    tier: number,
    message: KafkaMessage,
    partition: number,
    own: Readonly<Record<string, string>>,
    state: RetryState,
  ): Outgoing {
    // Same partition as the source: the tier partition belongs to the same consumer (co-partitioned).
    return {
      topic: retryTopics[tier - 1] as string,
      message: {
        key: message.key,
        value: message.value,
        partition,
        headers: retryHeaders(groupId, own, state),
      },
    };
  }

  function toDeadLetter(
    message: KafkaMessage,
    own: Readonly<Record<string, string>>,
    state: Omit<RetryState, 'dueAt'>,
    reason: DeadLetterReason,
    error?: unknown,
  ): Outgoing {
    const failure = error === undefined ? state : { ...state, ...described(error) };
    const headers = deadLetterHeaders(groupId, own, failure, reason, new Date());
    logger.warn(
      {
        groupId,
        topic: state.origin.topic,
        partition: state.origin.partition,
        offset: state.origin.offset,
        reason,
        code: headers[retryHeader.errorCode],
      },
      'record dead-lettered',
    );
    return {
      topic: deadLetterTopic,
      message: { key: message.key, value: message.value, headers },
      deadLetter: { topic: state.origin.topic, reason },
    };
  }

  async function send(outgoing: readonly Outgoing[]): Promise<void> {
    const byTopic = new Map<string, Message[]>();
    for (const { topic, message } of outgoing) {
      const messages = byTopic.get(topic);
      if (messages) messages.push(message);
      else byTopic.set(topic, [message]);
    }
    await Promise.all([...byTopic].map(([topic, messages]) => outbound.send(topic, messages)));
    const observer = deps.observer;
    if (observer === undefined) return;
    for (const { deadLetter } of outgoing) {
      if (deadLetter) observer.deadLettered(groupId, deadLetter.topic, deadLetter.reason);
    }
  }

  const runConfig: ConsumerRunConfig = {
    autoCommit: false,
    eachBatchAutoResolve: false,
    partitionsConsumedConcurrently: options.partitionsConsumedConcurrently ?? 4,
    eachBatch: async (payload) => {
      commitDirect = payload.commitOffsetsIfNecessary;
      const tier = retryTopics.indexOf(payload.batch.topic) + 1;
      if (tier > 0) onRetryBatch(payload, tier);
      else await onSourceBatch(payload);
    },
  };

  /**
   * kafkajs restarts a crashed consumer only when it deems the error retriable. Some errors it does not
   * are transient all the same: after a broker restart, a metadata refresh can fail with a plain "Broker
   * not connected", and the consumer then stays stopped in a process that otherwise runs on. So this
   * runner starts the consumer again itself, with a backoff (1 s doubling to 30 s), until it joins its
   * group or the runner is stopped; `isRunning()` is false meanwhile.
   */
  function restartAfterCrash(): void {
    if (halted() || restartTimer !== undefined) return;
    const delayMs = Math.min(30_000, 1_000 * 2 ** Math.min(crashRestarts, 5));
    crashRestarts += 1;
    logger.warn(
      { groupId, delayMs, restarts: crashRestarts },
      'consumer stopped by its crash; starting it again',
    );
    restartTimer = setTimeout(() => {
      restartTimer = undefined;
      if (halted()) return;
      consumer.run(runConfig).catch((error: unknown) => {
        logger.error({ groupId, err: error }, 'consumer could not be started again');
        restartAfterCrash();
      });
    }, delayMs);
  }

  let stopWatchingLag: (() => void) | undefined;
  const stallMs = Math.max(0, options.stallMs ?? 60_000);
  let stallTimer: NodeJS.Timeout | undefined;
  let checkingStalls = false;
  /** From a crash or a rebalance to the next join nothing is fetched: the stall check waits for the join. */
  let awaitingJoin = false;

  /**
   * A ready source partition that has records waiting and has handled none for `stallMs` is logged and
   * resumed. Its position is the next offset it would handle, else the group's committed offset; a
   * partition with neither (a new group that starts at the end) is left alone.
   */
  async function checkStalls(): Promise<void> {
    const now = Date.now();
    // Only lanes with a topic that has handled nothing for that long cost a look at the broker's offsets.
    const idle = (lane: Lane, topic: string) =>
      now - (lane.handled.get(topic)?.at ?? (lane.readyAt as number)) >= stallMs;
    const suspects = [...lanes.values()].filter(
      (lane) =>
        isCurrent(lane) &&
        lane.ready &&
        lane.readyAt !== undefined &&
        sourceTopics.some((topic) => idle(lane, topic)),
    );
    if (awaitingJoin || suspects.length === 0 || halted()) return;
    const [ends, committed] = await Promise.all([
      Promise.all(sourceTopics.map((topic) => admin.fetchTopicOffsets(topic))),
      admin.fetchOffsets({ groupId, topics: sourceTopics }),
    ]);
    for (const lane of suspects) {
      if (awaitingJoin || !isCurrent(lane) || halted()) continue;
      sourceTopics.forEach((topic, index) => {
        const end = ends[index]?.find((entry) => entry.partition === lane.partition);
        if (!end) return;
        const seen = lane.handled.get(topic);
        const offset = committedOffset(committed, topic, lane.partition);
        const position = seen?.next ?? (offset === undefined || offset === '-1' ? undefined : BigInt(offset));
        const since = seen?.at ?? (lane.readyAt as number);
        see(lane, topic, BigInt(end.high), position);
        if (position === undefined || BigInt(end.high) <= position || !idle(lane, topic)) return;
        logger.warn(
          {
            groupId,
            topic,
            partition: lane.partition,
            waiting: (BigInt(end.high) - position).toString(),
            idleMs: now - since,
          },
          'partition handled nothing with records waiting; resuming it',
        );
        deps.observer?.stalled(groupId, topic);
        consumer.resume([{ topic, partitions: [lane.partition] }]);
        // Counted again from now: it is logged again only if it stays stalled.
        lane.handled.set(topic, { next: position, at: now });
      });
    }
  }

  function watchForStalls(): void {
    if (stallMs === 0) return;
    stallTimer = setInterval(
      () => {
        if (checkingStalls || halted()) return;
        checkingStalls = true;
        checkStalls()
          .catch((error: unknown) => logger.debug({ groupId, err: error }, 'stall check failed'))
          .finally(() => {
            checkingStalls = false;
          });
      },
      Math.max(500, Math.min(15_000, Math.floor(stallMs / 2))),
    );
    stallTimer.unref();
  }

  consumer.on(consumer.events.GROUP_JOIN, (event) => {
    awaitingJoin = false;
    onJoin(event);
  });
  consumer.on(consumer.events.REBALANCING, () => {
    awaitingJoin = true;
  });
  consumer.on(consumer.events.CRASH, (event) => {
    awaitingJoin = true;
    logger.error(
      { groupId, err: event.payload.error, restart: event.payload.restart },
      event.payload.restart ? 'consumer crashed; kafkajs restarts it' : 'consumer crashed and stopped',
    );
    deps.observer?.crashed(groupId, event.payload.restart);
    if (!event.payload.restart) {
      crashed = true;
      restartAfterCrash();
    }
  });
  try {
    await consumer.connect();
    await consumer.subscribe({ topics: sourceTopics, fromBeginning: options.fromBeginning ?? true });
    if (retryTopics.length > 0) await consumer.subscribe({ topics: retryTopics, fromBeginning: true });
    await consumer.run(runConfig);
    watchForStalls();
    stopWatchingLag = deps.observer?.started(groupId, sourceTopics, lag);
  } catch (error) {
    await consumer.disconnect().catch(() => {});
    await outbound.close();
    throw fromKafkaJsError(error, `starting consumer group ${groupId}`);
  }

  function close(abort: boolean): Promise<void> {
    if (abort) {
      aborted = true;
      abortController.abort(new KafkaError('KAFKA_UNAVAILABLE', `consumer ${groupId} aborted`));
    }
    shutdown ??= (async () => {
      stopping = true;
      clearTimeout(restartTimer);
      restartTimer = undefined;
      clearInterval(stallTimer);
      stopWatchingLag?.();
      for (const timer of backoffTimers) clearTimeout(timer);
      backoffTimers.clear();
      for (const lane of lanes.values()) clearTimeout(lane.timer);
      clearTimeout(commitTimer);
      commitTimer = undefined;
      await Promise.all([...lanes.values()].map((lane) => lane.pumping));
      // What waited for the commit interval is committed while this consumer is still in the group; a
      // handler call still running commits its own records when it returns (stopping: at once).
      if (!aborted) await committing;
      const waiting = [...pendingCommits.values()];
      pendingCommits.clear();
      if (!aborted && waiting.length > 0) {
        await commitNow(waiting, true).catch((error: unknown) => {
          logger.warn({ groupId, err: error }, 'offsets not committed at stop; the next owner re-delivers');
        });
      }
      await consumer.disconnect().catch((error: unknown) => {
        logger.warn({ groupId, err: error }, 'consumer disconnect failed');
      });
      await outbound.close();
      logger.info({ groupId, aborted }, 'consumer stopped');
    })();
    return shutdown;
  }

  return {
    groupId,
    retryTopics,
    deadLetterTopic,
    stop: () => close(false),
    abort: () => close(true),
    isRunning: () => !halted() && !crashed,
  };
}

/** A partition's committed offset in an answer of `admin.fetchOffsets` ('-1': none committed). */
function committedOffset(
  committed: Awaited<ReturnType<Admin['fetchOffsets']>>,
  topic: string,
  partition: number,
): string | undefined {
  return committed
    .find((entry) => entry.topic === topic)
    ?.partitions.find((entry) => entry.partition === partition)?.offset;
}

async function sourcePartitionCount(admin: Admin, topics: readonly string[]): Promise<number> {
  let metadata: Awaited<ReturnType<Admin['fetchTopicMetadata']>>;
  try {
    const existing = new Set(await admin.listTopics());
    const missing = topics.filter((topic) => !existing.has(topic));
    if (missing.length > 0) {
      throw new KafkaError(
        'KAFKA_TOPIC_MISCONFIGURED',
        `topic ${missing.join(', ')} does not exist; topics are declared (ensureTopics), not created on use`,
      );
    }
    metadata = await admin.fetchTopicMetadata({ topics: [...topics] });
  } catch (error) {
    throw fromKafkaJsError(error, `reading metadata of ${topics.join(', ')}`);
  }
  return Math.max(...metadata.topics.map((topic) => topic.partitions.length));
}

async function checkRetryTopics(admin: Admin, topics: readonly string[], partitions: number): Promise<void> {
  if (topics.length === 0) return;
  const metadata = await admin.fetchTopicMetadata({ topics: [...topics] }).catch((error: unknown) => {
    throw fromKafkaJsError(error, `reading metadata of ${topics.join(', ')}`);
  });
  for (const topic of metadata.topics) {
    if (topic.partitions.length < partitions) {
      throw new KafkaError(
        'KAFKA_TOPIC_MISCONFIGURED',
        `retry topic ${topic.name} has ${topic.partitions.length} partitions; its source topics need ${partitions}`,
      );
    }
  }
}

function described(error: unknown): { errorCode: string; errorMessage: string } {
  const { code, message } = describeError(error);
  return { errorCode: code, errorMessage: message };
}

function isoTimestamp(milliseconds: string): string {
  const value = Number(milliseconds);
  return Number.isFinite(value) && value >= 0 ? new Date(value).toISOString() : new Date(0).toISOString();
}
