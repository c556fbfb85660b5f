/**
 * Where the time from a debit's 202 to its first posting at the bank goes: the first record of each
 * transaction on the state topic (the ingress's, written before its 202) and on rp.events.v1 (the
 * tracker's), by the records' own timestamps (the producers' create times), between the 202 and the
 * bank's receipt. Every clock read is this machine's.
 */
import { readOnce } from '@rp/kafka';
import type { Kafka } from 'kafkajs';
import type { Row } from './report.ts';
import { metricValue, round, type Summary, summarize } from './stats.ts';

/**
 * The earliest record timestamp of each of `keys` among the records `topic` took from `since` (epoch
 * ms) to the moment of the call, read as the project reads a topic off the hot path (`readOnce`).
 */
export async function firstRecordTimes(
  kafka: Kafka,
  topic: string,
  since: number,
  keys: ReadonlySet<string>,
  timeoutMs = 120_000,
): Promise<Map<string, number>> {
  const admin = kafka.admin();
  await admin.connect();
  const found = new Map<string, number>();
  try {
    const starts = await admin.fetchTopicOffsetsByTimestamp(topic, since);
    const ends = new Map(
      (await admin.fetchTopicOffsets(topic)).map((entry) => [entry.partition, entry.high]),
    );
    // Partitions with records to read, and the last offset each is read to.
    const remaining = new Map<number, bigint>();
    for (const start of starts) {
      const end = BigInt(ends.get(start.partition) ?? start.offset);
      if (start.offset !== '-1' && BigInt(start.offset) < end) remaining.set(start.partition, end - 1n);
    }
    if (remaining.size === 0) return found;
    await readOnce(
      { kafka, admin: async () => admin },
      {
        topic,
        groupPrefix: 'bench-path-times',
        fromBeginning: false,
        starts: new Map(
          starts.filter((start) => remaining.has(start.partition)).map((s) => [s.partition, s.offset]),
        ),
        timeoutMs,
        what: `the first records of ${keys.size} transactions`,
      },
      (batch, pause) => {
        const last = remaining.get(batch.partition);
        if (last === undefined) return remaining.size === 0;
        for (const message of batch.messages) {
          const key = message.key?.toString();
          if (key === undefined || !keys.has(key)) continue;
          const at = Number(message.timestamp);
          const earlier = found.get(key);
          if (earlier === undefined || at < earlier) found.set(key, at);
        }
        if (BigInt(batch.lastOffset()) >= last) {
          remaining.delete(batch.partition);
          pause();
        }
        return remaining.size === 0;
      },
    );
  } finally {
    await admin.disconnect();
  }
  return found;
}

/** One journey's first posting, and when its first records were written (epoch ms). */
export interface FirstPostingPath {
  readonly uetr: string;
  /** When the load generator had the 202. */
  readonly acceptedAt: number;
  /** When the bank received the first posting. */
  readonly receivedAt: number;
  /** The ingress's first record on the state topic. */
  readonly stateAt: number | undefined;
  /** The tracker's first record on rp.events.v1. */
  readonly eventAt: number | undefined;
}

export interface PathSplit {
  /** Journeys with both records found. */
  readonly count: number;
  /** The state record to the 202 at the load generator (the ingress's reply after its produce). */
  readonly toReply: Summary;
  /** The state record to the tracker's posting record: the state consumer's fetch and the tracker's batch. */
  readonly tracker: Summary;
  /** The posting record to the bank's receipt: the event publisher's fetch, its batch, the POST. */
  readonly publisher: Summary;
  /** The slowest hundredth by 202 to first posting: how their time splits (ms on average). */
  readonly slowest: {
    readonly count: number;
    readonly firstPosting: number;
    readonly tracker: number;
    readonly publisher: number;
    /** Those whose first attempt is known: how many, and their ms on average to it and from it to the bank. */
    readonly attempted: number;
    readonly toAttempt: number;
    readonly attemptToBank: number;
    /** When in the phase they were sent (seconds from the phase's first 202), earliest and latest. */
    readonly from: number;
    readonly to: number;
    /** The phase's tenths (by 202) they fell in, with how many in each. */
    readonly tenths: readonly number[];
    /**
     * Each of them: seconds into the phase, then ms to the first posting, at the tracker, and after it:
     * in one figure, or, where its first attempt is known, to the attempt's start, from it to the bank's
     * receipt, and the POST's whole round trip.
     */
    readonly each: readonly (readonly number[])[];
  };
}

/** The event publisher's first attempt of a posting: when it began (epoch ms) and the POST's time. */
export interface FirstAttempt {
  readonly at: number;
  readonly latencyMs: number;
}

type WholePath = FirstPostingPath & { stateAt: number; eventAt: number };

const firstPosting = (path: FirstPostingPath) => path.receivedAt - path.acceptedAt;

/** The journeys whose two records were found. */
function wholePaths<T extends FirstPostingPath>(paths: readonly T[]): (T & WholePath)[] {
  return paths.filter(
    (path): path is T & WholePath => path.stateAt !== undefined && path.eventAt !== undefined,
  );
}

/** The slowest hundredth (one at least) by 202 to first posting, of the journeys whose two records were found. */
export function slowestHundredth<T extends FirstPostingPath>(paths: readonly T[]): (T & WholePath)[] {
  const whole = wholePaths(paths);
  return whole.sort((a, b) => firstPosting(b) - firstPosting(a)).slice(0, Math.ceil(whole.length / 100));
}

/**
 * The split of each journey's 202-to-first-posting, over those whose two records were found; the
 * slowest split further at the event publisher's first attempt, where `attempts` (by UETR) has it.
 */
export function splitFirstPostings(
  paths: readonly FirstPostingPath[],
  attempts: ReadonlyMap<string, FirstAttempt> = new Map(),
): PathSplit {
  const whole = wholePaths(paths);
  const phaseStart = Math.min(...whole.map((path) => path.acceptedAt));
  const phaseEnd = Math.max(...whole.map((path) => path.acceptedAt));
  const slow = slowestHundredth(whole);
  const mean = (values: readonly number[]) =>
    values.length === 0
      ? Number.NaN
      : round(values.reduce((sum, value) => sum + value, 0) / values.length, 1);
  const tenths = Array.from({ length: 10 }, () => 0);
  const span = Math.max(1, phaseEnd - phaseStart);
  for (const path of slow) {
    const tenth = Math.min(9, Math.floor(((path.acceptedAt - phaseStart) / span) * 10));
    tenths[tenth] = (tenths[tenth] ?? 0) + 1;
  }
  const sentAt = slow.map((path) => (path.acceptedAt - phaseStart) / 1000);
  const attempted = slow.flatMap((path) => {
    const attempt = attempts.get(path.uetr);
    return attempt === undefined ? [] : [{ path, attempt }];
  });
  return {
    count: whole.length,
    toReply: summarize(whole.map((path) => path.acceptedAt - path.stateAt)),
    tracker: summarize(whole.map((path) => path.eventAt - path.stateAt)),
    publisher: summarize(whole.map((path) => path.receivedAt - path.eventAt)),
    slowest: {
      count: slow.length,
      firstPosting: mean(slow.map(firstPosting)),
      tracker: mean(slow.map((path) => path.eventAt - path.stateAt)),
      publisher: mean(slow.map((path) => path.receivedAt - path.eventAt)),
      attempted: attempted.length,
      toAttempt: mean(attempted.map(({ path, attempt }) => attempt.at - path.eventAt)),
      attemptToBank: mean(attempted.map(({ path, attempt }) => path.receivedAt - attempt.at)),
      from: slow.length === 0 ? Number.NaN : round(Math.min(...sentAt), 1),
      to: slow.length === 0 ? Number.NaN : round(Math.max(...sentAt), 1),
      tenths,
      each: slow.map((path) => {
        const attempt = attempts.get(path.uetr);
        return [
          round((path.acceptedAt - phaseStart) / 1000, 2),
          round(firstPosting(path), 0),
          path.eventAt - path.stateAt,
          ...(attempt === undefined
            ? [path.receivedAt - path.eventAt]
            : [attempt.at - path.eventAt, path.receivedAt - attempt.at, round(attempt.latencyMs, 0)]),
        ];
      }),
    },
  };
}

const splitRowName = '202 to the first posting, split: state record to posting record (tracker), p99';

/**
 * The row when the split could not be made (the topics not read): the run goes on without it, and says
 * why.
 */
export function firstPostingSplitMissing(reason: string): Row {
  return {
    group: 'pipeline',
    name: splitRowName,
    value: 0,
    unit: 'ms (p99)',
    detail: `not split: ${reason}`,
  };
}

/** The split as a row: the tracker's and the event publisher's parts, and where the slowest fell. */
export function firstPostingSplitRow(split: PathSplit): Row {
  if (split.count === 0) return firstPostingSplitMissing("no journey's two records were found");
  const ms = (summary: Summary) =>
    `${round(summary.p50, 0)} / ${round(summary.p95, 0)} / ${round(summary.p99, 0)}`;
  const slow = split.slowest;
  const attemptsRead =
    slow.attempted === 0
      ? "no first attempt of the event publisher's read"
      : `${slow.attempted} with the event publisher's first attempt read: ${round(slow.toAttempt, 0)} ms to its start, ${round(slow.attemptToBank, 0)} ms from it to the bank`;
  return {
    group: 'pipeline',
    name: splitRowName,
    value: round(split.tracker.p99, 0),
    unit: 'ms (p99)',
    detail: `over ${split.count} journeys, p50 / p95 / p99 ms: state record to 202 ${ms(split.toReply)}, to the tracker's posting record ${ms(split.tracker)}, that record to the bank ${ms(split.publisher)}; the slowest ${slow.count} (${round(slow.firstPosting, 0)} ms on average) spent ${round(slow.tracker, 0)} ms at the tracker and ${round(slow.publisher, 0)} ms after it (${attemptsRead}), sent ${slow.from}-${slow.to} s into the phase (by tenth: ${slow.tenths.join(' ')})`,
  };
}

/** What a service's own metrics say of its pauses: its event loop's longest delay, its collections. */
export interface PauseReading {
  /**
   * The longest event-loop delay since the service's last scrape (ms; each scrape resets it): the longest
   * time between two of its looks at the loop, so never under their 20 ms period.
   */
  readonly loopMaxMs: number;
  /** Collections so far: their count, those over 100 ms, and their seconds. */
  readonly gcCount: number;
  readonly gcOver100ms: number;
  readonly gcSeconds: number;
  /**
   * The event loop's stops of 100 ms or more so far, by their cause as the service told them apart
   * (`rp_event_loop_stall_seconds`): the collector, the main thread's own work, or the thread waiting
   * for a core. Each cause's count and seconds.
   */
  readonly stalls: Readonly<Record<StallCause, { readonly count: number; readonly seconds: number }>>;
}

const stallCauses = ['work', 'collection', 'waiting'] as const;
type StallCause = (typeof stallCauses)[number];

export function pauseReading(metrics: ReadonlyMap<string, number>): PauseReading {
  const count = metricValue(metrics, 'nodejs_gc_duration_seconds_count');
  return {
    loopMaxMs: metricValue(metrics, 'nodejs_eventloop_lag_max_seconds') * 1000,
    gcCount: count,
    gcOver100ms: count - metricValue(metrics, 'nodejs_gc_duration_seconds_bucket', { le: '0.1' }),
    gcSeconds: metricValue(metrics, 'nodejs_gc_duration_seconds_sum'),
    stalls: Object.fromEntries(
      stallCauses.map((cause) => [
        cause,
        {
          count: metricValue(metrics, 'rp_event_loop_stall_seconds_count', { cause }),
          seconds: metricValue(metrics, 'rp_event_loop_stall_seconds_sum', { cause }),
        },
      ]),
    ) as PauseReading['stalls'],
  };
}

/** A service's stops by cause between two readings, as `work 2 (0.31 s)`; `none` without any. */
function stallsBetween(before: PauseReading | undefined, after: PauseReading): string {
  const parts = stallCauses.flatMap((cause) => {
    const count = after.stalls[cause].count - (before?.stalls[cause].count ?? 0);
    const seconds = after.stalls[cause].seconds - (before?.stalls[cause].seconds ?? 0);
    return count > 0 ? [`${cause} ${count} (${round(seconds, 2)} s)`] : [];
  });
  return parts.length === 0 ? 'none' : parts.join(', ');
}

/**
 * Each service's longest event-loop delay over a phase (the reading after it; the one before reset the
 * services' gauges) and its collections between the two readings: a service that stopped for a while
 * shows here, in its own figures.
 */
export function pausesRow(
  phase: string,
  before: Readonly<Record<string, PauseReading>>,
  after: Readonly<Record<string, PauseReading>>,
): Row {
  const services = Object.entries(after)
    .map(([service, reading]) => {
      const earlier = before[service];
      return {
        service,
        loopMaxMs: reading.loopMaxMs,
        gcCount: reading.gcCount - (earlier?.gcCount ?? 0),
        gcOver100ms: reading.gcOver100ms - (earlier?.gcOver100ms ?? 0),
        gcSeconds: reading.gcSeconds - (earlier?.gcSeconds ?? 0),
        stalls: stallsBetween(earlier, reading),
      };
    })
    .sort((a, b) => b.loopMaxMs - a.loopMaxMs);
  return {
    group: 'pipeline',
    name: `the longest event-loop delay of a service in ${phase}`,
    value: round(services[0]?.loopMaxMs ?? 0, 0),
    unit: 'ms',
    detail: `each service's own, longest first, with its collections (count, over 100 ms, seconds) and its stops of 100 ms or more by cause (its own work, the collector, waiting for a core): ${services
      .map(
        (entry) =>
          `${entry.service} ${round(entry.loopMaxMs, 0)} ms (${entry.gcCount}, ${entry.gcOver100ms}, ${round(entry.gcSeconds, 2)} s; stops: ${entry.stalls})`,
      )
      .join('; ')}`,
  };
}
