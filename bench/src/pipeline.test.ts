import { describe, expect, it } from 'vitest';
import type { Switches } from './cpu.ts';
import { type PauseReading, pauseReading } from './path-times.ts';
import {
  behindRows,
  benchNodeOptions,
  benchServicesEnvironment,
  cpuReferenceRows,
  cpuRows,
  fellBehindRows,
  idleCpuRows,
  kafkaRequestsBetween,
  kafkaRequestsRow,
  keptJourneys,
  mongoStatementsBetween,
  mongoStatementsOf,
  mongoStatementsRow,
  publisherConsumerRow,
  type SchedulerAloneReading,
  type SteadyWindow,
  schedulerAloneRows,
  settledBetween,
  settleRow,
  settleThreshold,
} from './pipeline.ts';
import { summarize } from './stats.ts';

const reading = (
  tracker: number,
  kafka: number,
  bench: number,
  busy: number,
  total: number,
  steal = 0,
  switches: { tracker?: Switches; kafka?: Switches; machine?: number } = {},
) => ({
  processes: new Map([
    ['tracker', tracker],
    ['kafka', kafka],
    ['bench (load generator)', bench],
  ]),
  switches: new Map(
    (['tracker', 'kafka'] as const).flatMap((name) => {
      const counts = switches[name];
      return counts === undefined ? [] : [[name, new Map([[1, counts]])] as const];
    }),
  ),
  machine: {
    busySeconds: busy,
    totalSeconds: total,
    stealSeconds: steal,
    contextSwitches: switches.machine ?? 0,
  },
});

describe('sustained-window CPU rows', () => {
  it("gives the machine's busy share and each process's CPU per debit, busiest first, with its share of the busy time", () => {
    const rows = cpuRows(reading(10, 50, 3, 100, 1_000), reading(14, 56, 4, 120, 1_040), 100);
    expect(rows.map((row) => [row.name, row.value, row.detail])).toEqual([
      ['machine CPU busy at the sustained rate', 50, '20 of 40 core-seconds; 200 ms per debit'],
      ['CPU per debit: kafka', 60, "30% of the machine's busy time"],
      ['CPU per debit: tracker', 40, "20% of the machine's busy time"],
      ['CPU per debit: bench (load generator)', 10, "5% of the machine's busy time"],
    ]);
  });
});

describe('context switches in the CPU rows', () => {
  it("gives the machine's switches a debit and the CPU a switch, and each process's waits and preemptions a debit", () => {
    const rows = cpuRows(
      reading(10, 50, 3, 100, 1_000, 0, {
        tracker: { voluntary: 1_000, involuntary: 10 },
        kafka: { voluntary: 5_000, involuntary: 300 },
        machine: 90_000,
      }),
      reading(14, 56, 4, 120, 1_040, 0, {
        tracker: { voluntary: 5_350, involuntary: 110 },
        kafka: { voluntary: 25_000, involuntary: 800 },
        machine: 130_000,
      }),
      100,
    );
    expect(rows.map((row) => [row.name, row.value, row.detail])).toEqual([
      ['machine CPU busy at the sustained rate', 50, '20 of 40 core-seconds; 200 ms per debit'],
      [
        'context switches per debit',
        400,
        "every core's (/proc/stat), each a core going from one thread to another: 500 µs of the machine's CPU a switch",
      ],
      [
        'CPU per debit: kafka',
        60,
        "30% of the machine's busy time; 200 waits and 5 preemptions a debit (its threads' context switches)",
      ],
      [
        'CPU per debit: tracker',
        40,
        "20% of the machine's busy time; 43.5 waits and 1 preemptions a debit (its threads' context switches)",
      ],
      ['CPU per debit: bench (load generator)', 10, "5% of the machine's busy time"],
    ]);
  });
});

describe('the CPU stolen by the hypervisor', () => {
  it('is said beside the busy core-seconds when there was any, and left out of the CPU a debit', () => {
    const rows = cpuRows(reading(10, 50, 3, 100, 1_000, 2), reading(14, 56, 4, 120, 1_040, 5.5), 100);
    // 20 busy core-seconds, 3.5 of them stolen: 16.5 of the machine's own over 100 debits.
    expect(rows[0]?.detail).toBe(
      '20 of 40 core-seconds (3.5 of them stolen: the hypervisor ran another guest on a core this machine wanted); 165 ms per debit, the stolen seconds left out',
    );
    expect(rows.slice(1).map((row) => [row.name, row.value, row.detail])).toEqual([
      ['CPU per debit: kafka', 60, "36% of the machine's busy time"],
      ['CPU per debit: tracker', 40, "24% of the machine's busy time"],
      ['CPU per debit: bench (load generator)', 10, "6% of the machine's busy time"],
    ]);
  });

  it('is left out of the CPU a debit in references', () => {
    const at = { oneThread: 165, allCores: 330, oneThreadCpu: 150 };
    const rows = cpuReferenceRows(
      reading(10, 50, 3, 100, 1_000, 2),
      reading(14, 56, 4, 120, 1_040, 5.5),
      100,
      { before: at, after: at },
    );
    // 165 ms a debit of the machine's own CPU: a thousand references of 165 µs, five hundred of 330,
    // eleven hundred of 150 in CPU time.
    expect(rows.slice(3).map((row) => [row.value, row.detail])).toEqual([
      [
        1_000,
        "165 ms a debit over the 165 µs reference: the CPU a debit costs with the machine's speed taken out",
      ],
      [
        500,
        "165 ms a debit over the 330 µs all-core reference: the CPU a debit costs with the machine's speed taken out",
      ],
      [
        1_100,
        "165 ms a debit over the 150 µs CPU-time reference: the CPU a debit costs with the machine's speed taken out",
      ],
    ]);
  });
});

describe('CPU rows of another unit', () => {
  it('names its rows and scales its figures by what it counts', () => {
    const rows = cpuRows(reading(10, 50, 3, 100, 1_000), reading(14, 56, 4, 120, 1_040), 10_000, {
      busy: 'event path alone: machine CPU busy',
      noun: 'posting',
      unit: 'µs',
      prefix: 'event path alone: ',
    });
    expect(rows.map((row) => [row.name, row.value, row.unit, row.detail])).toEqual([
      [
        'event path alone: machine CPU busy',
        50,
        '% of all cores',
        '20 of 40 core-seconds; 2000 µs per posting',
      ],
      ['event path alone: CPU per posting: kafka', 600, 'µs', "30% of the machine's busy time"],
      ['event path alone: CPU per posting: tracker', 400, 'µs', "20% of the machine's busy time"],
      [
        'event path alone: CPU per posting: bench (load generator)',
        100,
        'µs',
        "5% of the machine's busy time",
      ],
    ]);
  });
});

describe('idle CPU rows', () => {
  it("gives the machine's busy share and each process's share of a core, busiest first, without the bench", () => {
    const rows = idleCpuRows(reading(10, 50, 3, 100, 1_000), reading(10.5, 53, 9, 104, 1_040), 20);
    expect(rows.map((row) => [row.name, row.value])).toEqual([
      ['machine CPU busy while idle', 10],
      ['CPU while idle: kafka', 15],
      ['CPU while idle: tracker', 2.5],
    ]);
  });

  it("says the machine's switches a second and each process's waits and preemptions a second", () => {
    const rows = idleCpuRows(
      reading(10, 50, 3, 100, 1_000, 0, { tracker: { voluntary: 100, involuntary: 4 }, machine: 1_000 }),
      reading(10.5, 53, 9, 104, 1_040, 0, { tracker: { voluntary: 1_100, involuntary: 9 }, machine: 9_000 }),
      20,
    );
    expect(rows.map((row) => [row.name, row.detail])).toEqual([
      [
        'machine CPU busy while idle',
        '4 of 40 core-seconds with nothing sent; 400 context switches a second',
      ],
      ['CPU while idle: kafka', undefined],
      ['CPU while idle: tracker', '50 waits and 0.3 preemptions a second'],
    ]);
  });
});

describe('Kafka requests per debit', () => {
  const counts = (
    Produce: number,
    Fetch: number,
    OffsetCommit: number,
    Heartbeat: number,
    other: number,
  ) => ({
    Produce,
    Fetch,
    OffsetCommit,
    Heartbeat,
    other,
  });

  it("takes each service's counts before the window from its counts after it (a service new since counts from zero)", () => {
    const between = kafkaRequestsBetween(
      { tracker: counts(10, 20, 3, 1, 5) },
      { tracker: counts(60, 70, 8, 2, 5), ingress: counts(40, 0, 0, 0, 1) },
    );
    expect(between).toEqual({ tracker: counts(50, 50, 5, 1, 0), ingress: counts(40, 0, 0, 0, 1) });
  });

  it('gives the total per debit, then by API and by service, busiest first, leaving out services that sent none', () => {
    const row = kafkaRequestsRow(
      { tracker: counts(50, 50, 5, 1, 0), ingress: counts(40, 0, 0, 0, 1), validator: counts(0, 0, 0, 0, 0) },
      10,
    );
    expect(row).toMatchObject({ name: 'kafka requests per debit', value: 14.7, unit: 'requests' });
    expect(row.detail).toBe(
      "the services' own counts, by API: Produce 9, Fetch 5, OffsetCommit 0.5, Heartbeat 0.1, other 0.1; by service: tracker 10.6 (Produce 5, Fetch 5), ingress 4.1 (Produce 4, Fetch 0)",
    );
  });
});

describe('mongodb write statements per debit', () => {
  it("reads a service's statements by collection and command from its metrics, ignoring other series", () => {
    const metrics = new Map([
      ['rp_mongodb_write_statements_total{service="tracker",collection="transactions",command="update"}', 30],
      ['rp_mongodb_write_statements_total{service="tracker",collection="transactions",command="insert"}', 10],
      ['rp_mongodb_commands_total{service="tracker",command="update",outcome="ok"}', 4],
      ['rp_mongodb_write_statements_total{service="tracker",command="delete"}', 7],
    ]);
    expect(mongoStatementsOf(metrics)).toEqual({ 'transactions update': 30, 'transactions insert': 10 });
  });

  it("sums every service's statements between two readings (a service new since counts from zero)", () => {
    const between = mongoStatementsBetween(
      { tracker: { 'transactions update': 30 }, scheduler: { 'debit_queue update': 5 } },
      {
        tracker: { 'transactions update': 50, 'transactions insert': 10 },
        scheduler: { 'debit_queue update': 25 },
        ingress: { 'transactions update': 1 },
      },
    );
    expect(between).toEqual({
      'transactions update': 21,
      'transactions insert': 10,
      'debit_queue update': 20,
    });
  });

  it('gives the total per debit, then each collection, most first, split by command, leaving out none written', () => {
    const row = mongoStatementsRow(
      {
        'transactions update': 21,
        'transactions insert': 10,
        'debit_queue update': 20,
        'idempotency_keys insert': 0,
      },
      10,
    );
    expect(row).toMatchObject({ name: 'mongodb write statements per debit', value: 5.1, unit: 'statements' });
    expect(row.detail).toBe(
      "documents inserted and update, delete and findAndModify statements, the services' own counts, by collection: transactions 3.1 (update 2.1, insert 1); debit_queue 2 (update 2)",
    );
  });

  it("takes another phase's name, counting per debit of that phase", () => {
    const row = mongoStatementsRow(
      { 'event_lanes update': 15, 'event_lanes delete': 12, 'event_delivery_log insert': 180 },
      10,
      'recovery: mongodb write statements per debit of the backlog',
    );
    expect(row).toMatchObject({
      name: 'recovery: mongodb write statements per debit of the backlog',
      value: 20.7,
    });
    expect(row.detail).toMatch(
      /: event_delivery_log 18 \(insert 18\); event_lanes 2\.7 \(update 1\.5, delete 1\.2\)$/,
    );
  });
});

describe('the CPU reference beside the sustained window', () => {
  it("gives the reference's means, each way, and the machine's CPU a debit in units of each", () => {
    const rows = cpuReferenceRows(reading(10, 50, 3, 100, 1_000), reading(14, 56, 4, 120, 1_040), 100, {
      before: { oneThread: 150, allCores: 240, oneThreadCpu: 100 },
      after: { oneThread: 250, allCores: 260, oneThreadCpu: 150 },
    });
    expect(rows.map((row) => [row.name, row.value, row.unit])).toEqual([
      ["CPU reference beside the sustained window (fixed work on a journey's example messages)", 200, 'µs'],
      ['CPU reference on every core at once beside the sustained window', 250, 'µs'],
      ["CPU reference in its thread's CPU time beside the sustained window", 125, 'µs'],
      // 20 busy core-seconds over 100 debits: 200 ms a debit, a thousand references of 200 µs.
      ['machine CPU per debit in CPU references', 1_000, 'references'],
      // ... 800 of the all-core reference's 250 µs, and 1,600 of the CPU-time reference's 125.
      ['machine CPU per debit in all-core CPU references', 800, 'references'],
      ['machine CPU per debit in CPU-time references', 1_600, 'references'],
    ]);
    expect(rows[0]?.detail).toContain('150 µs just before the window, 250 µs just after its last journey');
    expect(rows[1]?.detail).toContain('240 µs just before the window, 260 µs just after its last journey');
    expect(rows[1]?.detail).toContain('1.25 times the one-thread reading');
    expect(rows[2]?.detail).toContain('100 µs just before the window, 150 µs just after its last journey');
    expect(rows[2]?.detail).toContain('0.63 times the one-thread reading');
  });

  it('gives the event path its CPU a posting in references, beside its own phase', () => {
    const per = {
      busy: 'event path alone: machine CPU busy',
      noun: 'posting',
      unit: 'µs',
      prefix: 'event path alone: ',
    } as const;
    const rows = cpuReferenceRows(
      reading(10, 50, 3, 100, 1_000),
      reading(14, 56, 4, 120, 1_040),
      20_000,
      {
        before: { oneThread: 190, allCores: 380, oneThreadCpu: 160 },
        after: { oneThread: 210, allCores: 420, oneThreadCpu: 240 },
      },
      per,
    );
    expect(rows.map((row) => [row.name, row.value, row.unit])).toEqual([
      [
        "event path alone: CPU reference beside the phase (fixed work on a journey's example messages)",
        200,
        'µs',
      ],
      ['event path alone: CPU reference on every core at once beside the phase', 400, 'µs'],
      ["event path alone: CPU reference in its thread's CPU time beside the phase", 200, 'µs'],
      // 20 busy core-seconds over 20,000 postings: 1,000 µs a posting, five references of 200 µs.
      ['event path alone: machine CPU per posting in CPU references', 5, 'references'],
      ['event path alone: machine CPU per posting in all-core CPU references', 2.5, 'references'],
      ['event path alone: machine CPU per posting in CPU-time references', 5, 'references'],
    ]);
    expect(rows[0]?.detail).toContain('190 µs just before the phase, 210 µs just after its last posting');
    expect(rows[2]?.detail).toContain('160 µs just before the phase, 240 µs just after its last posting');
    expect(rows[3]?.detail).toBe(
      "1000 µs a posting over the 200 µs reference: the CPU a posting costs with the machine's speed taken out",
    );
    expect(rows[4]?.detail).toBe(
      "1000 µs a posting over the 400 µs all-core reference: the CPU a posting costs with the machine's speed taken out",
    );
  });

  it('gives the references alone when the machine was not read', () => {
    const bare = { processes: new Map<string, number>(), switches: new Map(), machine: undefined };
    const at = { oneThread: 180, allCores: 200, oneThreadCpu: 170 };
    const rows = cpuReferenceRows(bare, bare, 100, { before: at, after: at });
    expect(rows.map((row) => row.name)).toEqual([
      "CPU reference beside the sustained window (fixed work on a journey's example messages)",
      'CPU reference on every core at once beside the sustained window',
      "CPU reference in its thread's CPU time beside the sustained window",
    ]);
  });
});

describe('when no rate tried kept up', () => {
  const counters = (inserted: number) => ({
    inserted,
    updated: 0,
    deleted: 0,
    commits: 0,
    blocksHit: 0,
    blocksRead: 0,
    blocksWrittenByBackends: 0,
    walRecords: 0,
    walFullPageImages: 0,
    walBytes: 0,
    checkpoints: 0,
    autovacuums: 0,
    autoanalyzes: 0,
  });
  const requests = { Produce: 40, Fetch: 60, OffsetCommit: 0, Heartbeat: 0, other: 0 };
  const window = (rate: number, debits: number, drainSeconds: number): SteadyWindow => ({
    rate,
    seconds: 10,
    sent: Array.from({ length: debits }, (_, index) => ({ uetr: `u${index}`, sentAt: 0, acceptedAt: 1 })),
    completedInWindow: debits / 2,
    drainSeconds,
    keptUp: false,
    postings: debits * 18,
    duplicates: 0,
    signatureFailures: 0,
    outOfOrder: 0,
    kafkaRecords: debits * 34,
    kafkaRequests: { validator: requests },
    mongo: { writes: debits * 2, reads: 0 },
    mongoBy: { tracker: { writes: debits * 2, reads: 0 } },
    mongoStatements: {},
    http: debits * 20,
    storage: {
      before: {
        mongoTotalBytes: 0,
        mongo: new Map([['event_delivery_log', { documents: 0, dataBytes: 0, indexBytes: 0 }]]),
      },
      after: {
        mongoTotalBytes: debits * 12_288,
        mongo: new Map([
          [
            'event_delivery_log',
            { documents: debits * 18, dataBytes: debits * 10_240, indexBytes: debits * 2_048 },
          ],
        ]),
      },
    },
    cpu: {
      before: reading(10, 50, 3, 100, 1_000),
      after: reading(14, 56, 4, 120, 1_040),
    },
    postgres: { before: counters(0), after: counters(debits * 26) },
    examined: {
      sampled: 2,
      outOfOrder: 0,
      incomplete: 0,
      firstPosting: summarize([10, 20]),
      firstReceived: [],
      toCompleted: summarize([9_000, 12_000]),
      toCompletedMs: [9_000, 12_000],
    },
    lag: {
      groups: { 'tracker.rp.transaction.state.v1': { peak: debits, atEnd: debits / 2 } },
      samples: 6,
      everyMs: 2_000,
    },
    publisher: {
      before: new Map([
        ['rp_events_batch_duration_seconds_sum', 1],
        ['rp_events_attempt_duration_seconds_sum', 2],
        ['rp_events_attempt_duration_seconds_count', 100],
      ]),
      after: new Map([
        ['rp_events_batch_duration_seconds_sum', 1 + (debits * 3) / 100],
        ['rp_events_attempt_duration_seconds_sum', 2 + debits],
        ['rp_events_attempt_duration_seconds_count', 100 + debits * 18],
      ]),
    },
    resends: 0,
    reports: { sent: debits, attempts: debits },
    pauses: {
      before: { tracker: pauses(0, 0) },
      after: { tracker: pauses(0.25, debits / 100) },
    },
  });
  const pauses = (loopMaxSeconds: number, waiting: number): PauseReading =>
    pauseReading(
      new Map([
        ['nodejs_eventloop_lag_max_seconds', loopMaxSeconds],
        ['rp_event_loop_stall_seconds_count{cause="waiting"}', waiting],
        ['rp_event_loop_stall_seconds_sum{cause="waiting"}', waiting * 0.125],
      ]),
    );

  it("reports no sustained rate, and the slowest window's figures a debit marked as that window's", () => {
    const rows = fellBehindRows(
      [window(30, 300, 40), window(22.5, 100, 20)],
      ['30 fell behind', '22.5 fell behind'],
    );
    expect(rows[0]).toMatchObject({
      name: 'on-us debits sustained through the whole journey',
      value: 0,
      detail: 'no rate tried kept up: 30 fell behind, 22.5 fell behind',
    });
    const byName = new Map(rows.map((row) => [row.name, row]));
    // The 22.5/s window's figures: 100 debits, 1,800 postings over its 10 s and 20 s of drain.
    expect(byName.get('kafka records written per debit')?.value).toBe(34);
    expect(byName.get('event postings delivered at the sustained rate (both classes)')?.value).toBe(60);
    expect(byName.get('event postings delivered at the sustained rate (both classes)')?.detail).toContain(
      'order checked on all 1800 as they arrived: 0 out of order',
    );
    expect(byName.get('machine CPU busy at the sustained rate')?.detail).toContain('200 ms per debit');
    expect(byName.get('postgresql rows written per debit')?.value).toBe(26);
    expect(byName.get('storage kept per debit: mongodb data and indexes')?.value).toBe(12);
    expect(byName.get('the longest event-loop delay of a service in the sustained window')).toMatchObject({
      value: 250,
      detail: expect.stringContaining('tracker 250 ms (0, 0, 0 s; stops: waiting 1 (0.13 s))'),
    });
    expect(
      byName.get('records waiting per consumer group in the sustained window, peak / at its end'),
    ).toMatchObject({
      value: 100,
      detail: expect.stringContaining('tracker.rp.transaction.state.v1 100 / 50;'),
    });
    for (const row of rows.slice(1)) {
      expect(row.detail).toMatch(
        /^from the window at 22\.5 debits\/s, which fell behind \(the last journey 20 s after it\)/,
      );
    }
  });

  it('says where the lowest window that fell behind spent itself: records waiting, the publisher, the cores', () => {
    // 720 debits over 10 s and 10 s of drain: 20 s; the machine 20 busy core-seconds in them.
    const rows = behindRows(window(72, 720, 10));
    expect(rows.map((row) => [row.name, row.value])).toEqual([
      [
        'records waiting per consumer group in the lowest window that fell behind (72 debits/s), peak / at its end',
        720,
      ],
      [
        'the lowest window that fell behind (72 debits/s): batches the event publisher handled at a time',
        1.08,
      ],
      ['cores each process used in the lowest window that fell behind (72 debits/s) and its drain', 1],
    ]);
    expect(rows[1]?.detail).toContain(
      '36 posts in flight to banks on average, 55.6 ms an attempt over 12960 attempts',
    );
    expect(rows[2]?.detail).toBe('over 20 s: kafka 0.3, tracker 0.2, bench (load generator) 0.05');
  });

  it('reports the headline alone when no window sent anything', () => {
    expect(fellBehindRows([window(5, 0, 0)], ['5 fell behind']).map((row) => row.name)).toEqual([
      'on-us debits sustained through the whole journey',
    ]);
  });
});

describe('waiting for the machine to settle', () => {
  it('is settled below 15% of all cores busy, and names the busiest process but the bench', () => {
    // 4 of 40 core-seconds busy over 20 s on two cores: 10%; the tracker took 0.4 s of it.
    const quiet = settledBetween(reading(10, 50, 3, 100, 1_000), reading(10.4, 50.2, 9, 104, 1_040), 20);
    expect(quiet).toEqual({
      settled: true,
      busyPercent: 10,
      busiest: { name: 'tracker', percentOfCore: expect.closeTo(2, 6) },
    });
    // 8 of 40: 20%, the broker still busy.
    const busy = settledBetween(reading(10, 50, 3, 100, 1_000), reading(10.4, 56, 3, 108, 1_040), 20);
    expect(busy).toMatchObject({
      settled: false,
      busyPercent: 20,
      busiest: { name: 'kafka', percentOfCore: 30 },
    });
  });

  it('counts a sample without the machine counters as settled', () => {
    const bare = { processes: new Map<string, number>(), switches: new Map(), machine: undefined };
    expect(settledBetween(bare, bare, 3)).toEqual({ settled: true, busyPercent: 0 });
  });

  it('lists every wait in one row, with those that did not settle in time', () => {
    const row = settleRow([
      [
        'idle',
        {
          seconds: 42.4,
          thresholdPercent: 15,
          busyPercent: 9.6,
          busiest: { name: 'postgres', percentOfCore: 11.2 },
        },
      ],
      ['window 1', { seconds: 3, thresholdPercent: 17, busyPercent: 16 }],
      ['latency', { seconds: 180.2, thresholdPercent: 17, busyPercent: 31 }],
    ]);
    expect(row).toMatchObject({
      name: 'waits for the machine to settle before the phases',
      value: 226,
      unit: 's',
    });
    expect(row.detail).toBe(
      "until a 3 s sample with nothing sent finds the machine under the share of all cores given (15%, or the idle reading's and 5 points more), at most 180 s each; 1 not settled in time: idle 42 s (10% of under 15%, postgres 11% of a core), window 1 3 s (16% of under 17%), latency 180 s (31% of under 17%)",
    );
  });

  it("wants 15% before the idle reading, then the idle reading's share and 5 points more, never under 15%", () => {
    expect(settleThreshold()).toBe(15);
    expect(settleThreshold(6)).toBe(15);
    expect(settleThreshold(12.5)).toBe(17.5);
    // 16% busy: not settled against 15%, settled against an idle reading of 12.5%.
    const sample = [reading(10, 50, 3, 100, 1_000), reading(10.4, 50.2, 3, 106.4, 1_040), 20] as const;
    expect(settledBetween(...sample).settled).toBe(false);
    expect(settledBetween(...sample, settleThreshold(12.5)).settled).toBe(true);
  });
});

describe('publisherConsumerRow', () => {
  const metrics = (
    handler: number,
    calls: number,
    records: number,
    fetches: number,
    attempt: number,
    attempts: number,
  ) =>
    new Map([
      ['rp_events_batch_duration_seconds_sum{service="event-publisher"}', handler],
      ['rp_events_batch_duration_seconds_count{service="event-publisher"}', calls],
      ['rp_events_batch_records_total{service="event-publisher"}', records],
      ['rp_kafka_request_duration_seconds_count{service="event-publisher",api="Fetch"}', fetches],
      ['rp_kafka_request_duration_seconds_count{service="event-publisher",api="Produce"}', 7],
      [
        'rp_events_attempt_duration_seconds_sum{service="event-publisher",member_id="1",result="delivered"}',
        attempt,
      ],
      [
        'rp_events_attempt_duration_seconds_count{service="event-publisher",member_id="1",result="delivered"}',
        attempts,
      ],
      [
        'rp_events_attempt_duration_seconds_sum{service="event-publisher",member_id="2",result="retryable"}',
        attempt / 2,
      ],
      [
        'rp_events_attempt_duration_seconds_count{service="event-publisher",member_id="2",result="retryable"}',
        attempts / 2,
      ],
    ]);

  it("divides the handlers' and the attempts' time between two readings by the phase's", () => {
    const row = publisherConsumerRow(
      metrics(2, 10, 100, 3, 1, 100),
      metrics(24, 98, 36_100, 17, 241, 36_100),
      10,
      4,
      'event path alone: ',
    );
    expect(row.name).toBe('event path alone: batches the event publisher handled at a time');
    expect(row.value).toBe(2.2);
    expect(row.unit).toBe('batches');
    expect(row.detail).toBe(
      'on average, of the 4 its EVENTS_PARTITIONS_CONCURRENTLY allows: 88 handler calls of 36000 records (409.1 a call) from 14 fetches; 36 posts in flight to banks on average, 6.7 ms an attempt over 54000 attempts',
    );
  });

  it('reads zero for a phase with nothing handled', () => {
    const same = metrics(5, 5, 5, 5, 5, 5);
    const row = publisherConsumerRow(same, same, 0, 4, '');
    expect(row.value).toBe(0);
    expect(row.detail).toContain('0 handler calls of 0 records (0 a call) from 0 fetches; 0 posts in flight');
  });
});

describe('the scheduler alone', () => {
  const cpu = (scheduler: number, kafka: number, busy: number, total: number) => ({
    processes: new Map([
      ['scheduler', scheduler],
      ['kafka', kafka],
    ]),
    switches: new Map(),
    machine: { busySeconds: busy, totalSeconds: total, stealSeconds: 0, contextSwitches: 0 },
  });
  /** A phase of 10 debits in a second with nothing else read, changed by `read`. */
  const phase = (read: Partial<SchedulerAloneReading>): SchedulerAloneReading => ({
    copies: 10,
    producedSeconds: 0.1,
    seconds: 1,
    released: 10,
    atOnce: 10,
    rounds: { count: 0, seconds: 0 },
    drains: { count: 0, seconds: 0 },
    kafkaRequests: undefined,
    writes: 1,
    statements: {},
    cpu: {
      before: { processes: new Map([['kafka', 1]]), switches: new Map(), machine: undefined },
      after: { processes: new Map([['kafka', 2]]), switches: new Map(), machine: undefined },
    },
    ...read,
  });

  it("gives the rate from the backlog, one instance's ceiling by its own CPU, its writes and the CPU a debit", () => {
    const rows = schedulerAloneRows(
      phase({
        copies: 3_000,
        producedSeconds: 1.2,
        seconds: 10,
        released: 3_000,
        atOnce: 2_900,
        rounds: { count: 30, seconds: 6 },
        drains: { count: 1, seconds: 0.5 },
        kafkaRequests: { Produce: 300, Fetch: 600, OffsetCommit: 30, Heartbeat: 3, other: 0 },
        writes: 150,
        statements: { 'debit_queue update': 3_000, 'debit_queue insert': 300 },
        // 3 s of the scheduler's CPU for 3,000 debits: 1 ms a debit, 1,000 a second on a core of its own.
        cpu: { before: cpu(10, 50, 100, 1_000), after: cpu(13, 52, 116, 1_020) },
        reference: {
          before: { oneThread: 100, allCores: 150, oneThreadCpu: 90 },
          after: { oneThread: 100, allCores: 150, oneThreadCpu: 90 },
        },
      }),
    );
    const byName = new Map(rows.map((row) => [row.name, row]));
    const rate = byName.get('scheduler alone: debits made ready and released from a backlog');
    expect(rate?.value).toBe(300);
    expect(rate?.detail).toContain('3000 of 3000 debits');
    expect(rate?.detail).toContain('2900 of them at once, the rest through the queue');
    expect(rate?.detail).toContain('Kafka requests a debit: 0.31 (Produce 0.1, Fetch 0.2)');
    expect(rate?.detail).toContain('30 release rounds of 100 debits on average, 200 ms each');
    expect(rate?.detail).toContain(
      "together 60% of the phase; 1 drains of the window's queue, 500 ms each, 5% of the phase",
    );
    const ceiling = byName.get("scheduler alone: one instance's ceiling, debits a second of its own CPU");
    expect(ceiling?.value).toBe(1_000);
    expect(ceiling?.detail).toContain('1 ms a debit');
    expect(byName.get('scheduler alone: mongodb write commands per debit')?.value).toBe(0.05);
    expect(byName.get('scheduler alone: mongodb write statements per debit')?.value).toBe(1.1);
    expect(byName.get('scheduler alone: CPU per debit: scheduler')?.value).toBe(1);
    expect(byName.get('scheduler alone: CPU per debit: kafka')?.value).toBeCloseTo(0.7, 1);
    expect(byName.get('scheduler alone: machine CPU busy')?.value).toBe(80);
    // The phase's own reference rows: 16 busy core-seconds over 3,000 debits, 5.3 ms a debit of 100 µs.
    const reference = byName.get(
      "scheduler alone: CPU reference beside the phase (fixed work on a journey's example messages)",
    );
    expect(reference?.value).toBe(100);
    expect(reference?.detail).toContain('just after its last debit');
    expect(byName.get('scheduler alone: machine CPU per debit in CPU references')?.value).toBe(53);
  });

  it('leaves the ceiling out when the scheduler was not read', () => {
    const rows = schedulerAloneRows(phase({}));
    expect(rows.map((row) => row.name)).not.toContain(
      "scheduler alone: one instance's ceiling, debits a second of its own CPU",
    );
    expect(rows[0]?.detail).not.toContain('Kafka requests');
    expect(rows[0]?.detail).toContain('every one of them at once;');
    expect(rows[0]?.detail).not.toContain('release rounds');
    expect(rows[0]?.detail).toContain('no drain of the queue (known empty)');
  });
});

describe("the services' settings the bench names", () => {
  it("names the bench's NODE_OPTIONS when its own options were added to them, and what was inherited as it is", () => {
    const pipeline = { inheritedEnv: { TRACKER_CACHE_SIZE: '20000' } };
    expect(benchServicesEnvironment(pipeline, { NODE_OPTIONS: '--max-semi-space-size=64' })).toEqual({
      TRACKER_CACHE_SIZE: '20000',
      NODE_OPTIONS: '--max-semi-space-size=64',
    });
    expect(benchServicesEnvironment(pipeline, {})).toEqual({ TRACKER_CACHE_SIZE: '20000' });
    expect(benchServicesEnvironment(pipeline, { NODE_OPTIONS: '' })).toEqual({ TRACKER_CACHE_SIZE: '20000' });
    // Inherited as it was (no profiler, no inspector): named once, as inherited.
    expect(
      benchServicesEnvironment({ inheritedEnv: { NODE_OPTIONS: '--a' } }, { NODE_OPTIONS: '--a' }),
    ).toEqual({ NODE_OPTIONS: '--a' });
  });

  it("puts the bench's own options after its NODE_OPTIONS, not in their place", () => {
    expect(
      benchNodeOptions(['--cpu-prof', undefined, '--inspect=127.0.0.1:9'], { NODE_OPTIONS: '--x' }),
    ).toBe('--x --cpu-prof --inspect=127.0.0.1:9');
    expect(benchNodeOptions(['--inspect=127.0.0.1:9'], { NODE_OPTIONS: '' })).toBe('--inspect=127.0.0.1:9');
    expect(benchNodeOptions([undefined], {})).toBe('');
  });
});

describe("the journeys followed when the bank no longer keeps all of a window's postings", () => {
  // 60 journeys over 60 s from t = 1,000,000 ms, one a second.
  const sent = Array.from({ length: 60 }, (_, second) => ({
    uetr: `u${second}`,
    sentAt: 1_000_000 + second * 1000,
    acceptedAt: 1_000_000 + second * 1000 + 10,
  }));
  const window = { startedAt: 1_000_000, seconds: 60 };

  it('follows every journey while the bank keeps every posting', () => {
    expect(keptJourneys(sent, window, { accepted: 1080, kept: 1080 })).toEqual({
      journeys: sent,
      fromSeconds: 0,
    });
  });

  it('leaves out those of the share of the window whose postings are gone, and two seconds more', () => {
    // A quarter of the postings gone: the first 15 s, then 2 s more.
    const { journeys, fromSeconds } = keptJourneys(sent, window, { accepted: 1080, kept: 810 });
    expect(fromSeconds).toBe(17);
    expect(journeys).toHaveLength(43);
    expect(journeys[0]?.uetr).toBe('u17');
  });

  it('never starts past the window', () => {
    expect(keptJourneys(sent, window, { accepted: 1080, kept: 1 }).fromSeconds).toBe(60);
  });
});
