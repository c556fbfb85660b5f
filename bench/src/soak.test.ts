import { describe, expect, it } from 'vitest';
import type { Row } from './report.ts';
import {
  collectedAt,
  followSeconds,
  minuteParts,
  type SoakMinute,
  type SoakReading,
  soakMinuteRow,
  soakRate,
  soakRows,
} from './soak.ts';
import { summarize } from './stats.ts';

function minute(index: number, overrides: Partial<SoakMinute> = {}): SoakMinute {
  return {
    minute: index,
    seconds: 60,
    sent: 1_800,
    completed: 1_800,
    busyPercent: 50,
    cpuMsPerDebit: 30,
    processMs: { tracker: 3, 'event-publisher': 3.5, kafka: 2, postgres: 4, ferretdb: 1 },
    memoryMb: { tracker: 200, scheduler: 150 },
    lagPeak: { group: 'event-publisher.rp.events.v1', records: 120 },
    toCompleted: summarize([300, 400, 500, 900]),
    followed: 4,
    notDone: 0,
    outOfOrder: 0,
    ...overrides,
  };
}

function reading(minutes: readonly SoakMinute[], overrides: Partial<SoakReading> = {}): SoakReading {
  return {
    rate: 30,
    rateSource: 'the rate given',
    seconds: 60 * minutes.length,
    sent: 1_800 * minutes.length,
    completed: 1_800 * minutes.length,
    drainSeconds: 0.8,
    postings: 18 * 1_800 * minutes.length,
    duplicates: 0,
    signatureFailures: 0,
    outOfOrder: 0,
    minutes,
    ...overrides,
  };
}

const byName = (rows: readonly Row[], name: string) => rows.find((row) => row.name === name);

describe('the soak', () => {
  it("takes half the run of record's sustained rate, naming the run, and nothing without one", () => {
    const record = {
      machine: { versions: { commit: '5195a83' } } as never,
      rows: [
        {
          group: 'pipeline' as const,
          name: 'on-us debits sustained through the whole journey',
          value: 72.7,
          unit: 'debits/s',
        },
      ],
    };
    expect(soakRate(record)).toEqual({
      rate: 36.4,
      source: 'half the 72.7/s the run of record at `5195a83` sustained',
    });
    expect(soakRate({ ...record, rows: [] })).toBeUndefined();
  });

  it('says the rate held with nothing lost, each minute, and how the late minutes compare with the early', () => {
    const rows = soakRows(
      reading([
        // Start-up: slower and dearer than any minute after it, and left out of the drift.
        minute(1, { cpuMsPerDebit: 60, toCompleted: summarize([300, 5_000]), majorGcMs: { tracker: 500 } }),
        minute(2, {
          cpuMsPerDebit: 31,
          memoryMb: { tracker: 260, scheduler: 150 },
          majorGcMs: { tracker: 20 },
        }),
        minute(3, {
          majorGcMs: { tracker: 60 },
          cpuMsPerDebit: 33,
          processMs: { tracker: 3, 'event-publisher': 3.5, kafka: 2, postgres: 5, ferretdb: 1.5 },
          memoryMb: { tracker: 230, scheduler: 147 },
          toCompleted: summarize([300, 400, 500, 1_350]),
        }),
      ]),
    );
    const whole = byName(rows, 'soak: on-us debits offered steadily through the whole journey');
    expect(whole).toMatchObject({ value: 30, unit: 'debits/s' });
    expect(whole?.detail).toContain(
      '5400 sent evenly over 3 min at 30/s (the rate given), 5400 completed (nothing lost)',
    );
    expect(whole?.detail).toContain('0 out of order');
    expect(whole?.detail).toContain(`every minute's followed journeys done within ${followSeconds} s`);
    expect(rows.filter((row) => row.name.startsWith('soak minute '))).toHaveLength(3);

    const cpu = byName(rows, 'soak: machine CPU a debit, the late minutes against the early');
    expect(cpu).toMatchObject({ value: 6.5, unit: '% change' });
    expect(cpu?.detail).toMatch(/^33 ms in minute 3 against 31 ms in minute 2 \(medians of /);
    expect(cpu?.detail).toContain('the first minute, start-up, left out');
    // Two minutes are too few to leave the first out, and the row says so.
    const short = byName(
      soakRows(reading([minute(1), minute(2, { cpuMsPerDebit: 33 })])),
      'soak: machine CPU a debit, the late minutes against the early',
    );
    expect(short?.detail).toMatch(
      /^33 ms in minute 2 against 30 ms in minute 1 \(.*too few to leave the first out\)/,
    );
    expect(cpu?.detail).toContain('by minute: 60, 31, 33 ms');
    expect(cpu?.detail).toContain('postgres 4 / 5');
    const p99 = byName(rows, 'soak: 202 to DEBIT_COMPLETED p99, the late minutes against the early');
    expect(p99).toMatchObject({ value: 50 });
    expect(p99?.detail).toMatch(/^1350 ms in minute 3 against 900 ms in minute 2 /);
    expect(p99?.detail).toContain('p50 / p99 by minute: 300 / 5000, 400 / 900, 400 / 1350 ms');
    const stops = byName(
      rows,
      "soak: major collections' stop a minute, the late minutes against the early: tracker",
    );
    expect(stops).toMatchObject({ value: 200, unit: '% change' });
    expect(stops?.detail).toMatch(
      /^60 ms a minute in minute 3 against 20 ms in minute 2 .*; by minute: 500, 20, 60 ms$/,
    );
    const tracker = byName(rows, 'soak: resident memory, the last minute against the first: tracker');
    expect(tracker).toMatchObject({ value: 15 });
    expect(tracker?.detail).toContain('by minute: 200, 260, 230 MB; the most 260 MB');
    expect(byName(rows, 'soak: resident memory, the last minute against the first: scheduler')).toMatchObject(
      {
        value: -2,
      },
    );
  });

  it('names the debits missing and the minutes whose journeys were not done in time', () => {
    const rows = soakRows(
      reading([minute(1), minute(2, { notDone: 3 }), minute(3, { notDone: 1 })], { completed: 5_390 }),
    );
    const detail = byName(rows, 'soak: on-us debits offered steadily through the whole journey')?.detail;
    expect(detail).toContain('5390 completed (10 missing)');
    expect(detail).toContain(`not done within ${followSeconds} s of their quarter's end in minutes 2, 3`);
  });

  it('forces a collection after the first minute, every fifteenth and the last, and compares the heap it leaves', () => {
    expect(
      Array.from({ length: 31 }, (_, index) => index + 1).filter((minute) => collectedAt(minute, 31)),
    ).toEqual([1, 15, 30, 31]);
    expect(collectedAt(2, 2)).toBe(true);
    const rows = soakRows(
      reading([
        minute(1, { collected: { tracker: { rss: 190, heap: 40 } } }),
        minute(2),
        minute(3, { collected: { tracker: { rss: 260, heap: 50 } } }),
      ]),
    );
    const heap = byName(
      rows,
      'soak: V8 heap in use after a forced collection, the last minute against the first: tracker',
    );
    expect(heap).toMatchObject({ value: 25, unit: '% change' });
    expect(heap?.detail).toBe(
      '40 MB after the first minute, 50 MB after the last; after the collections forced at the end of minutes 1, 3: heap 40, 50 MB, resident 190, 260 MB',
    );
    // Without a collection at both ends there is nothing to compare.
    expect(rows.filter((row) => row.name.startsWith('soak: V8 heap')).length).toBe(1);
    expect(
      soakRows(reading([minute(1), minute(2)])).some((row) => row.name.startsWith('soak: V8 heap')),
    ).toBe(false);
  });

  it("puts a minute's latency, CPU, backlog and memory in its row", () => {
    const row = soakMinuteRow(minute(4, { completed: 1_770, notDone: 2, outOfOrder: 1 }));
    expect(row).toMatchObject({ name: 'soak minute 4: debits completed', value: 29.5, unit: 'debits/s' });
    expect(row.detail).toContain('p50 / p95 / p99 400 / 900 / 900 ms over 4 followed');
    expect(row.detail).toContain(`2 of 4 not done ${followSeconds} s after their quarter of the minute`);
    expect(row.detail).toContain('1 postings out of order');
    expect(row.detail).toContain(
      'the machine 50% busy, 30 ms of its CPU a debit (postgres 4, event-publisher 3.5, tracker 3, kafka 2)',
    );
    expect(row.detail).toContain('at most 120 records waiting (event-publisher.rp.events.v1)');
    expect(row.detail).toContain('resident MB: tracker 200, scheduler 150');
    const quiet = soakMinuteRow(minute(5, { lagPeak: undefined, toCompleted: summarize([]) }));
    expect(quiet.detail).toContain('no followed journey done');
    expect(quiet.detail).toContain('no records waiting at any sample');
    expect(quiet.detail).not.toContain('collections forced');
    expect(quiet.detail).not.toContain('major collections');
    const stopped = soakMinuteRow(
      minute(6, {
        majorGcMs: { tracker: 40.4, 'bank-simulator': 610, scheduler: 0, ingress: 12, validator: 9 },
      }),
    );
    expect(stopped.detail).toContain(
      'major collections stopped bank-simulator 610, tracker 40, ingress 12 ms',
    );
    expect(soakMinuteRow(minute(7, { majorGcMs: { tracker: 0 } })).detail).toContain(
      'major collections stopped no service',
    );
    expect(soakMinuteRow(minute(16), true).detail).toMatch(
      /; the collections forced after minute 15 stopped every service in this one$/,
    );
  });
});

describe('the parts of a minute followed each on its own', () => {
  it('splits the minute into consecutive parts that cover it, each with its share of the sample', () => {
    const parts = minuteParts(60_000, 120_000, 4, 300);
    expect(parts.map((part) => [part.start, part.end])).toEqual([
      [60_000, 75_000],
      [75_000, 90_000],
      [90_000, 105_000],
      [105_000, 120_000],
    ]);
    expect(parts.map((part) => part.sample)).toEqual([75, 75, 75, 75]);
  });

  it('ends the last part at the minute end, and follows one journey a part at least', () => {
    const parts = minuteParts(0, 1_000, 3, 2);
    expect(parts.at(-1)?.end).toBe(1_000);
    expect(parts.map((part) => part.sample)).toEqual([1, 1, 1]);
    expect(parts[1]?.start).toBe(parts[0]?.end);
  });
});
