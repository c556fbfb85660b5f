import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { Report, Row } from './report.ts';
import { soakRows } from './soak.ts';
import { summarize } from './stats.ts';
import {
  formatSummary,
  inOrder,
  markdownTable,
  percentiles,
  renderDocument,
  share,
  summaryOf,
} from './summary.ts';

const row = (group: Row['group'], name: string, value: number, detail?: string): Row => ({
  group,
  name,
  value,
  unit: '',
  ...(detail === undefined ? {} : { detail }),
});

/** The cells of a table's line whose first cell starts with `start`, a run each. */
const cellsOf = (text: string, start: string) =>
  (text.split('\n').find((entry) => entry.startsWith(`| ${start}`)) ?? '')
    .split('|')
    .slice(2, -1)
    .map((cell) => cell.trim());

/** A full run's rows as the bench names them, with `debits` a second sustained and the event path's rate. */
function fullRun(commit: string, options: { debits: number; eventPath: number; outOfOrder?: number }) {
  const order = `order checked on all 1000 as they arrived: ${options.outOfOrder ?? 0} out of order`;
  return {
    machine: { cpuModel: 'AMD EPYC', cores: 2, versions: { commit } } as never,
    rows: [
      row('limit', 'kafka produce (idempotent, acks=all, 1000 per send, 1024 B)', 50_000),
      row('limit', 'machine CPU per record: kafka produce (idempotent, acks=all, 1000 per send, 1024 B)', 43),
      row('limit', 'kafka consume (eachBatch)', 150_000),
      row('limit', 'machine CPU per record: kafka consume (eachBatch)', 13),
      row('limit', 'machine CPU per entry: mongodb delivery log first attempts (1000 a call)', 30),
      row(
        'limit',
        "machine CPU per request: http POST /events to the services' HTTP stack, nothing behind it (32 connections)",
        115,
      ),
      row('limit', 'mongodb insertOne (concurrency 16)', 2_000),
      row('limit', 'mongodb delivery log first attempts (1000 a call)', 20_000),
      row('limit', 'http POST /events to the bank simulator (32 keep-alive connections)', 5_000),
      row('pipeline', 'burst: on-us debits through the whole journey, closed loop', 70.1),
      row('pipeline', 'drain of 10000 queued debits when the window opens', 125.5),
      row('pipeline', 'on-us debits sustained through the whole journey', options.debits),
      row(
        'pipeline',
        'event postings delivered at the sustained rate (both classes)',
        options.debits * 18,
        `1000 postings, 0 duplicates, 0 signature failures; ${order}; 300 transactions followed: 0 out of order, 0 incomplete`,
      ),
      row('pipeline', 'kafka records written per debit', 34),
      row('pipeline', 'kafka requests per debit', 12),
      row('pipeline', 'mongodb write commands per debit', 1.5),
      row('pipeline', 'mongodb write statements per debit', 8.2),
      row('pipeline', 'http requests per debit', 22),
      row(
        'pipeline',
        'storage kept per debit: mongodb data and indexes',
        12.1,
        "the pipeline's database (dbStats), 3.9 kB of it indexes; Kafka's log 31.8 kB a debit (the run's topics' segments)",
      ),
      row(
        'pipeline',
        'machine CPU busy at the sustained rate',
        98,
        '119 of 121 core-seconds; 27 ms per debit',
      ),
      row('pipeline', 'CPU per debit: tracker', 3.2),
      row('pipeline', 'CPU per debit: bank-simulator', 4.2),
      row('pipeline', 'CPU per debit: bench (load generator)', 9),
      row('pipeline', 'CPU per debit: kafka', 3),
      row('pipeline', 'CPU per debit: registry', 0),
      row('pipeline', 'CPU per debit: ingress', 2.1),
      row(
        'pipeline',
        'machine CPU per debit in CPU references',
        268,
        '27.2 ms a debit over the 101.5 µs reference: the CPU a debit costs with the machine speed taken out',
      ),
      row('pipeline', 'machine CPU per debit in all-core CPU references', 256),
      row(
        'pipeline',
        'latency ingress 202 at 36.3 debits/s, p50 / p95 / p99',
        62,
        '14 / 35 / 62 ms over 2181',
      ),
      row(
        'pipeline',
        '202 to the first posting at the bank, p50 / p95 / p99',
        227,
        '9 / 81 / 227 ms over 2181',
      ),
      row(
        'pipeline',
        '202 to DEBIT_COMPLETED at the bank, p50 / p95 / p99',
        571,
        '269 / 441 / 571 ms over 2181',
      ),
      row(
        'pipeline',
        'recovery after a 60 s bank outage',
        38.6,
        '2181 debits sent during the outage; 56.4 debits/s and 1016 postings/s while catching up',
      ),
      row(
        'pipeline',
        'event path alone: postings delivered from a backlog, in order (both classes)',
        options.eventPath,
        `36000 postings; 0 duplicates, 0 signature failures; ${order}`,
      ),
      row('pipeline', 'event path alone: machine CPU busy', 78, '15 of 19 core-seconds; 403 µs per posting'),
      row('pipeline', 'event path alone: machine CPU per posting in CPU references', 3.92),
      row('pipeline', 'scheduler alone: debits made ready and released from a backlog', 1_731.5),
      row('pipeline', "scheduler alone: one instance's ceiling, debits a second of its own CPU", 1_894),
    ],
  };
}

/** A large-queue run: the medians of a minute, and after a forced collection. */
const queueRun = {
  machine: { versions: { commit: 'a2dd385' } } as never,
  rows: [
    row(
      'pipeline',
      'memory with 1,000,000 debits queued: tracker',
      133,
      '131 MB with 100,000 (+1.5%); 127 MB idle',
    ),
    row(
      'pipeline',
      'memory after a forced collection, 1,000,000 queued: tracker',
      122,
      '120 MB with 100,000 (+1.7%); heap in use 28.7 MB against 29.5 MB (-2.7%)',
    ),
    row(
      'pipeline',
      'memory after a forced collection, 1,000,000 queued: scheduler',
      122,
      '121 MB with 100,000 (-0.8%); heap in use 28.8 MB against 29 MB (-0.7%)',
    ),
  ],
};

describe('what the summary reads of a run', () => {
  it('reads the rates, the limits, a debit and the latencies by the rows the bench writes', () => {
    const run = summaryOf('run', fullRun('abc1234', { debits: 72.7, eventPath: 3_914.8 }));
    expect(run).toMatchObject({
      commit: 'abc1234',
      cpuModel: 'AMD EPYC',
      debits: 72.7,
      journeyPostings: { rate: 72.7 * 18, inOrder: true },
      eventPath: { rate: 3_914.8, inOrder: true },
      eventPathCpu: 403,
      eventPathReferences: 3.92,
      burst: 70.1,
      drain: 125.5,
      schedulerAlone: 1_731.5,
      schedulerCeiling: 1_894,
      limits: { kafkaProduce: 50_000, mongoInsert: 2_000, deliveryLog: 20_000, bankHttp: 5_000 },
      limitCpu: { kafkaProduce: 43, kafkaConsume: 13, deliveryLog: 30, bareHttp: 115 },
      cores: 2,
      // The references' row gives the CPU a debit to a tenth; the busy row rounds it.
      perDebit: { kafkaRecords: 34, writeCommands: 1.5, cpu: 27.2, references: 268, allCoreReferences: 256 },
      busy: 98,
      storage: { mongodb: 12.1, kafka: 31.8 },
      halfLoad: 36.3,
      ingress: { p50: 14, p95: 35, p99: 62 },
      firstPosting: { p50: 9, p95: 81, p99: 227 },
      completed: { p50: 269, p95: 441, p99: 571 },
      recovery: { seconds: 38.6, postingsPerSecond: 1_016 },
      memory: [],
    });
    // Most first; the load generator and a process that took nothing left out.
    expect(run.cpuByProcess.map((entry) => entry.process)).toEqual([
      'bank-simulator',
      'tracker',
      'kafka',
      'ingress',
    ]);
  });

  it('names in its column a run whose services ran together in one process, and no other', () => {
    const apart = summaryOf('apart', fullRun('abc1234', { debits: 72.7, eventPath: 3_914.8 }));
    const together = summaryOf('together', {
      ...fullRun('def5678', { debits: 80.1, eventPath: 3_914.8 }),
      settings: { together: ['tracker', 'validator', 'ingress'] },
    });
    expect(apart.together).toBeUndefined();
    expect(together.together).toEqual(['tracker', 'validator', 'ingress']);
    const header = formatSummary([apart, together], ['targets'])
      .split('\n')
      .find((line) => line.includes('abc1234'));
    expect(header).toMatch(/\| +`abc1234`, AMD EPYC +\|/);
    expect(header).toMatch(/\| +`def5678`, AMD EPYC, 3 services in one process +\|/);
  });

  it("takes a large-queue run's memory, after a forced collection, where the run has none of its own", () => {
    const run = summaryOf('run', fullRun('abc1234', { debits: 72.7, eventPath: 3_914.8 }), queueRun);
    expect(run.memory).toEqual([
      { service: 'tracker', at100k: 120, at1m: 122, change: 1.7, heapChange: -2.7 },
      { service: 'scheduler', at100k: 121, at1m: 122, change: -0.8, heapChange: -0.7 },
    ]);
    expect(run.memoryFrom).toBe('a2dd385');
    // The large-queue run itself: its own figures, no other run named.
    const own = summaryOf('queue', queueRun);
    expect(own.memory).toHaveLength(2);
    expect(own.memoryFrom).toBeUndefined();
    expect(own.debits).toBeUndefined();
  });

  it('says a delivery was not all once and in order when any count of it is not 0', () => {
    expect(inOrder('78516 postings, 0 duplicates; order checked on all: 0 out of order; 0 incomplete')).toBe(
      true,
    );
    expect(inOrder('78516 postings, 0 duplicates; order checked on all: 3 out of order')).toBe(false);
    expect(inOrder('1,024 duplicates')).toBe(false);
    expect(inOrder('300 transactions followed: 0 out of order, 2 incomplete')).toBe(false);
    expect(inOrder('nothing counted')).toBeUndefined();
  });

  it('reads percentiles from a latency row', () => {
    expect(percentiles('5 / 46 / 82 ms over 1,878')).toEqual({ p50: 5, p95: 46, p99: 82 });
    expect(percentiles(undefined)).toBeUndefined();
  });
});

describe('the tables', () => {
  it("gives a rate's share of the limit measured beside it", () => {
    expect(share(1_295.5, 5_913)).toBe('1,295.5/s, 21.9% of 5,913');
    expect(share(1_000, undefined)).toBe('1,000/s');
    expect(share(undefined, 5_913)).toBe('-');
  });

  it('says which targets each run met', () => {
    const slow = summaryOf('a', fullRun('abc1234', { debits: 72.7, eventPath: 3_914.8 }), queueRun);
    const fast = summaryOf('b', fullRun('def5678', { debits: 600, eventPath: 2_000, outOfOrder: 1 }));
    const text = formatSummary([slow, fast]);
    const cells = (start: string) => cellsOf(text, start);
    expect(cells('at least 500 on-us debits/s')).toEqual(['72.7/s: not met', '600/s: met']);
    // 10,800 postings a second in the whole journey of the fast run, but one came out of order.
    expect(cells('at least 3,000 event postings/s')).toEqual([
      '1,308.6/s in the whole journey, 3,914.8/s on the event path alone: met by the event path alone',
      '10,800/s in the whole journey, not all once and in order, 2,000/s on the event path alone, not all once and in order: not met',
    ]);
    expect(cells('p99 from the 202 to the first posting')).toEqual([
      '227 ms at 36.3/s: met',
      '227 ms at 36.3/s: met',
    ]);
    expect(cells('at most 2 MongoDB writes')).toEqual([
      '1.5 commands, 8.2 documents: met as commands',
      '1.5 commands, 8.2 documents: met as commands',
    ]);
    expect(cells('resident memory')).toEqual(['every service -0.8% to +1.7% (at `a2dd385`): met', '-']);
    // 72.7 debits a second of 34 records: 2,471.8 records a second, 4.9% of the 50,000 the broker took.
    expect(cells('at that rate: its Kafka records')).toEqual([
      '2,471.8/s, 4.9% of 50,000',
      '20,400/s, 40.8% of 50,000',
    ]);
    expect(cells('event path alone: postings')).toEqual([
      '3,914.8/s, 78.3% of 5,000',
      '2,000/s, 40% of 5,000',
    ]);
    // The CPU a debit by process, most first, the load generator and a process that took nothing left out.
    expect(cells('bank-simulator')).toEqual(['4.2 ms', '4.2 ms']);
    expect(cells('all of them')).toEqual(['12.5 ms', '12.5 ms']);
    expect(text).not.toContain('| bench (load generator)');
    expect(text).not.toContain('| registry');
    expect(cells('storage kept')).toEqual(['12.1 kB / 31.8 kB', '12.1 kB / 31.8 kB']);
    expect(cells('202 to the first posting')).toEqual(['9 / 81 / 227 ms', '9 / 81 / 227 ms']);
  });

  it("gives a debit's floor: its traffic at the machine CPU each kind cost at its limit", () => {
    const measured = summaryOf('a', fullRun('abc1234', { debits: 72.7, eventPath: 3_914.8 }));
    // A run from before the limits' machine CPU was read: its floor is not known.
    const older = fullRun('0ld0000', { debits: 72.7, eventPath: 3_914.8 });
    const unmeasured = summaryOf('b', {
      ...older,
      rows: older.rows.filter((entry) => !entry.name.startsWith('machine CPU per ')),
    });
    const text = formatSummary([measured, unmeasured], ['floor']);
    const cells = (start: string) => cellsOf(text, start);
    expect(cells('HTTP requests')).toEqual(['22 × 115 µs = 2.53 ms', '-']);
    expect(cells('Kafka records written')).toEqual(['34 × 43 µs = 1.46 ms', '-']);
    expect(cells('the same records read')).toEqual(['34 × 13 µs = 0.44 ms', '-']);
    expect(cells('MongoDB documents written')).toEqual(['8.2 × 30 µs = 0.25 ms', '-']);
    // 2,530 + 1,462 + 442 + 246 µs.
    expect(cells('the floor a debit')).toEqual(['4.68 ms', '-']);
    expect(cells('debits a second the floor allows')).toEqual(['427/s on 2 cores', '-']);
    expect(cells('500 debits a second at the floor')).toEqual(['2.34 cores', '-']);
    expect(cells("the pipeline's CPU a debit")).toEqual(['27.2 ms, 5.8 × the floor', '-']);
  });

  it('gives the cores each process would need for 500 debits a second at the CPU a debit the run measured', () => {
    const text = formatSummary(
      [summaryOf('a', fullRun('abc1234', { debits: 72.7, eventPath: 3_914.8 }))],
      ['sizing'],
    );
    const cells = (start: string) => cellsOf(text, start);
    // 4.2 ms a debit × 500 a second; 2.1 ms is a core and a twentieth.
    expect(cells('bank-simulator')).toEqual(['2.1 cores']);
    expect(cells('ingress')).toEqual(['1.1 cores']);
    // The engine's services without the bank simulator and the stack: the tracker and the ingress here.
    expect(cells("the engine's services")).toEqual(['2.7 cores']);
    // 4.2 + 3.2 + 3 + 2.1 ms: the load generator and a process that took nothing left out.
    expect(cells('all of them')).toEqual(['6.3 cores']);
    expect(text).not.toContain('| bench (load generator)');
  });

  it("counts the engine's process, services together in one, among the engine's services", () => {
    const run = fullRun('abc1234', { debits: 72.7, eventPath: 3_914.8 });
    const together = {
      ...run,
      rows: [
        ...run.rows.filter((entry) => !/^CPU per debit: (tracker|ingress)$/.test(entry.name)),
        row('pipeline', 'CPU per debit: engine (tracker, ingress)', 4.6),
      ],
    };
    const text = formatSummary([summaryOf('a', together)], ['sizing']);
    const cells = (start: string) => cellsOf(text, start);
    expect(cells('engine (tracker, ingress)')).toEqual(['2.3 cores']);
    // The engine's 4.6 ms a debit and nothing else: the bank simulator and the stack apart.
    expect(cells("the engine's services")).toEqual(['2.3 cores']);
  });

  it('gives what each service held under its Kubernetes memory limit, where the run ran under them', () => {
    const limited = {
      machine: { cpuModel: 'AMD EPYC', versions: { commit: 'abc1234' } } as never,
      rows: [
        row(
          'pipeline',
          'memory under its Kubernetes limit, the whole run: tracker',
          308,
          "of its manifest's 768 MiB limit (40%), page cache included; V8's heap limit from it 432 MB; 0 killed for want of memory",
        ),
        row(
          'pipeline',
          'memory under its Kubernetes limit, the whole run: ingress',
          512,
          "of its manifest's 512 MiB limit (100%), page cache included; V8's heap limit from it not read; 1 killed for want of memory",
        ),
      ],
    };
    const run = summaryOf('pods', limited);
    expect(run.pods).toEqual([
      { service: 'tracker', peak: 308, limit: 768, heapLimit: 432, killed: 0 },
      { service: 'ingress', peak: 512, limit: 512, heapLimit: undefined, killed: 1 },
    ]);
    const text = formatSummary(
      [run, summaryOf('other', fullRun('def5678', { debits: 1, eventPath: 1 }))],
      ['pods'],
    );
    const [, , tracker, ingress] = text.split('\n').map((line) => line.split('|').map((cell) => cell.trim()));
    expect(tracker?.slice(1, 4)).toEqual(['tracker', '308 MB of 768 MiB, 40% (heap 432 MB), 0 killed', '-']);
    expect(ingress?.slice(1, 4)).toEqual(['ingress', '512 MB of 512 MiB, 100%, 1 killed', '-']);
  });

  it('gives a soak: the rate held, each minute, how its figures moved, from the rows it writes', () => {
    const minute = (index: number, cpuMsPerDebit: number, tracker: number, p99: number) => ({
      minute: index,
      seconds: 60,
      sent: 1_800,
      completed: 1_800,
      busyPercent: 70,
      cpuMsPerDebit,
      processMs: { tracker: 3 },
      memoryMb: { tracker, ingress: 190 },
      lagPeak: undefined,
      toCompleted: summarize([200, 300, p99]),
      followed: 3,
      notDone: 0,
      outOfOrder: 0,
    });
    const soak = {
      machine: { cpuModel: 'AMD EPYC', versions: { commit: 'abc1234' } } as never,
      rows: soakRows({
        rate: 30,
        rateSource: 'the rate given',
        seconds: 120,
        sent: 3_600,
        completed: 3_600,
        drainSeconds: 0.5,
        postings: 64_800,
        duplicates: 0,
        signatureFailures: 0,
        outOfOrder: 0,
        minutes: [
          {
            ...minute(1, 40, 200, 600),
            collected: { tracker: { rss: 180, heap: 40.5 }, ingress: { rss: 150, heap: 20 } },
          },
          {
            ...minute(2, 36, 230, 450),
            collected: { tracker: { rss: 220, heap: 61.2 }, ingress: { rss: 150, heap: 20.1 } },
          },
        ],
      }),
    };
    const run = summaryOf('soak', soak);
    expect(run.soak).toEqual({
      rate: 30,
      minutes: 2,
      lost: 0,
      inOrder: true,
      perMinute: [
        { minute: 1, rate: 30, p99: 600, cpu: 40 },
        { minute: 2, rate: 30, p99: 450, cpu: 36 },
      ],
      cpuDrift: { early: 40, late: 36, change: -10, earlyMinutes: [1, 1], lateMinutes: [2, 2] },
      p99Drift: { early: 600, late: 450, change: -25, earlyMinutes: [1, 1], lateMinutes: [2, 2] },
      memory: [
        { service: 'tracker', first: 200, last: 230, change: 15, heap: { first: 40.5, last: 61.2 } },
        { service: 'ingress', first: 190, last: 190, change: 0, heap: { first: 20, last: 20.1 } },
      ],
    });
    const text = formatSummary(
      [run, summaryOf('full', fullRun('def5678', { debits: 1, eventPath: 1 }))],
      ['soak'],
    );
    const cells = (start: string) => cellsOf(text, start);
    expect(cells('debits offered steadily')).toEqual(['30/s for 2 min: nothing lost, in order', '-']);
    expect(cells('minute 2:')).toEqual(['30/s, 450 ms, 36 ms', '-']);
    expect(cells('machine CPU a debit, the late minutes')).toEqual(['-10% (40 → 36 ms)', '-']);
    expect(cells('p99 202 to DEBIT_COMPLETED, the late minutes')).toEqual(['-25% (600 → 450 ms)', '-']);
    expect(
      cells('resident memory (heap after a forced collection), the first minute → the last: tracker'),
    ).toEqual(['200 → 230 MB, +15% (heap 40.5 → 61.2 MB)', '-']);
    // A long soak's lines: the first minute, every fifth and the last.
    const long = soakRows({
      rate: 30,
      rateSource: 'the rate given',
      seconds: 720,
      sent: 21_600,
      completed: 21_600,
      drainSeconds: 0.5,
      postings: 388_800,
      duplicates: 0,
      signatureFailures: 0,
      outOfOrder: 0,
      minutes: Array.from({ length: 12 }, (_, index) => minute(index + 1, 36, 200, 450)),
    });
    const shown = formatSummary([summaryOf('long', { ...soak, rows: long })], ['soak'])
      .split('\n')
      .flatMap((line) => /^\| minute (\d+):/.exec(line)?.[1] ?? []);
    expect(shown).toEqual(['1', '5', '10', '12']);
    // A run without a soak makes no lines of its own.
    expect(
      formatSummary([summaryOf('full', fullRun('def5678', { debits: 1, eventPath: 1 }))], ['soak']).split(
        '\n',
      ),
    ).toHaveLength(2);
  });

  it("gives each service's resident set with the queue, after a forced collection where the run has it", () => {
    const medians = { ...queueRun, rows: queueRun.rows.slice(0, 1) };
    const text = formatSummary([summaryOf('queue', queueRun), summaryOf('medians', medians)], ['memory']);
    const [, , tracker, scheduler] = text.split('\n');
    expect(tracker?.split('|').map((cell) => cell.trim())).toEqual([
      '',
      'tracker',
      '120 → 122 MB, +1.7% (heap -2.7%)',
      '131 → 133 MB, +1.5%',
      '',
    ]);
    expect(scheduler?.split('|').map((cell) => cell.trim())).toEqual([
      '',
      'scheduler',
      '121 → 122 MB, -0.8% (heap -0.7%)',
      '-',
      '',
    ]);
  });

  it('lays a Markdown table out with the figures right-aligned and pipes escaped', () => {
    expect(markdownTable(['figure', 'a'], [['x|y', '1']]).split('\n')).toEqual([
      '| figure |   a |',
      '| ------ | --: |',
      '| x\\|y   |   1 |',
    ]);
  });
});

describe("a document's summary blocks", () => {
  const runs: Record<string, Pick<Report, 'machine' | 'rows'>> = {
    'results/a.json': fullRun('abc1234', { debits: 72.7, eventPath: 3_914.8 }),
    'results/b.json': fullRun('def5678', { debits: 600, eventPath: 2_000 }),
    'results/queue.json': queueRun,
  };
  const read = (file: string) => {
    const run = runs[file];
    if (run === undefined) throw new Error(`no run ${file}`);
    return run;
  };

  it('are made again from the runs each names, the text around them kept', () => {
    const text = [
      'Before.',
      '<!-- summary targets: --memory results/queue.json results/a.json results/b.json -->',
      'a stale table',
      '<!-- /summary -->',
      'Between.',
      '<!-- summary cpu yardstick: results/b.json -->',
      '<!-- /summary -->',
      'After.',
    ].join('\n');
    const made = renderDocument(text, read);
    const [first, second] = made.split('Between.');
    expect(first).toBe(
      [
        'Before.',
        '<!-- summary targets: --memory results/queue.json results/a.json results/b.json -->',
        '',
        formatSummary(
          [
            summaryOf('a', read('results/a.json'), queueRun),
            summaryOf('b', read('results/b.json'), queueRun),
          ],
          ['targets'],
        ),
        '',
        '<!-- /summary -->',
        '',
      ].join('\n'),
    );
    expect(second).toContain(formatSummary([summaryOf('b', read('results/b.json'))], ['cpu', 'yardstick']));
    expect(second?.endsWith('<!-- /summary -->\nAfter.')).toBe(true);
    // Made again from what it made, it is the same.
    expect(renderDocument(made, read)).toBe(made);
  });

  it('refuses a table it does not make', () => {
    expect(() => renderDocument('<!-- summary speed: results/a.json -->\n<!-- /summary -->', read)).toThrow(
      /unknown summary table speed/,
    );
  });

  it('read every figure of a full run, a large-queue run and a soak the bench wrote, none left a dash', () => {
    const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
    const read = (file: string) =>
      JSON.parse(readFileSync(resolve(root, 'bench/results', file), 'utf8')) as Report;
    const text = [
      formatSummary([
        summaryOf('full', read('2026-12-06T11-03-57-151Z.json'), read('2026-12-06T09-45-17-139Z.json')),
      ]),
      formatSummary([summaryOf('soak', read('2026-12-06T14-29-47-531Z.json'))], ['soak']),
    ].join('\n');
    // A row the summary looks for by a name the bench no longer writes would show as a dash here.
    // (a dash alone or beside another figure, "34 / -"; not a sign, "-2.7%").
    const dashes = text
      .split('\n')
      .filter((line) => line.split('|').some((cell) => /(^|\s)-(\s|$)/.test(cell.trim())));
    expect(dashes).toEqual([]);
  });

  it("hold BENCHMARKS.md's tables to the runs they name", () => {
    const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
    const document = readFileSync(resolve(root, 'BENCHMARKS.md'), 'utf8');
    expect(document).toContain('<!-- summary targets:');
    const made = renderDocument(
      document,
      (file) => JSON.parse(readFileSync(resolve(root, file), 'utf8')) as Report,
    );
    // When this fails, a run's file changed or the tables were edited by hand: make them again with
    // `npm run summary -w @rp/bench -- --docs BENCHMARKS.md`.
    expect(made).toBe(document);
  });
});
