import { describe, expect, it } from 'vitest';
import {
  type FirstPostingPath,
  firstPostingSplitRow,
  pauseReading,
  pausesRow,
  slowestHundredth,
  splitFirstPostings,
} from './path-times.ts';
import { parsePrometheus } from './stats.ts';

/** A journey sent `second` s into the phase whose first posting took `tracker` then `publisher` ms. */
const path = (second: number, tracker: number, publisher: number, uetr = `u${second}`): FirstPostingPath => {
  const stateAt = 1_000_000 + second * 1000;
  return {
    uetr,
    acceptedAt: stateAt + 2,
    stateAt,
    eventAt: stateAt + tracker,
    receivedAt: stateAt + tracker + publisher,
  };
};

describe('the split of 202 to first posting', () => {
  it('splits each journey at its records and finds where the slowest fell', () => {
    const paths = [
      ...Array.from({ length: 99 }, (_, index) => path(index / 10, 5, 10)),
      path(9.9, 300, 20),
      { ...path(5, 1, 1, 'missing'), eventAt: undefined },
    ];
    const split = splitFirstPostings(paths);
    expect(split.count).toBe(100);
    expect(split.toReply.p50).toBe(2);
    expect(split.tracker.p50).toBe(5);
    expect(split.tracker.max).toBe(300);
    expect(split.publisher.p99).toBe(10);
    expect(split.slowest.count).toBe(1);
    expect(split.slowest.firstPosting).toBe(318);
    expect(split.slowest.tracker).toBe(300);
    expect(split.slowest.publisher).toBe(20);
    expect(split.slowest.from).toBe(9.9);
    expect(split.slowest.tenths).toEqual([0, 0, 0, 0, 0, 0, 0, 0, 0, 1]);
    expect(split.slowest.each).toEqual([[9.9, 318, 300, 20]]);
    const slowest = paths[99] as FirstPostingPath;
    const attempted = splitFirstPostings(
      paths,
      new Map([[slowest.uetr, { at: (slowest.eventAt as number) + 15, latencyMs: 9.6 }]]),
    );
    expect(attempted.slowest.each).toEqual([[9.9, 318, 300, 15, 5, 10]]);
    expect(attempted.slowest.attempted).toBe(1);
    expect(firstPostingSplitRow(attempted).detail).toContain(
      "(1 with the event publisher's first attempt read: 15 ms to its start, 5 ms from it to the bank)",
    );
    const row = firstPostingSplitRow(split);
    expect(row.value).toBe(5);
    expect(row.detail).toContain(
      "spent 300 ms at the tracker and 20 ms after it (no first attempt of the event publisher's read)",
    );
  });

  it('says why when nothing could be split', () => {
    const none = firstPostingSplitRow(splitFirstPostings([{ ...path(0, 5, 5), stateAt: undefined }]));
    expect(none.value).toBe(0);
    expect(none.detail).toBe("not split: no journey's two records were found");
  });

  it('takes the slowest hundredth, one at least, and places each in its tenth of the phase', () => {
    const few = splitFirstPostings([path(0, 10, 10), path(1, 30, 10), path(2, 1, 1)]);
    expect(few.slowest.count).toBe(1);
    expect(few.slowest.tenths).toEqual([0, 0, 0, 0, 0, 1, 0, 0, 0, 0]);
    const many = splitFirstPostings(Array.from({ length: 201 }, (_, index) => path(index, index, 1)));
    expect(many.slowest.count).toBe(3);
    expect(many.slowest.each.map(([second]) => second)).toEqual([200, 199, 198]);
    expect(slowestHundredth([{ ...path(0, 900, 1), eventAt: undefined }, path(1, 5, 5)])).toEqual([
      path(1, 5, 5),
    ]);
  });
});

describe("the services' pauses", () => {
  it('reads the loop delay and the collections from the default metrics, and ranks the services', () => {
    const metrics = (loopMax: number, count: number, under100: number, seconds: number, stalls = 0) =>
      parsePrometheus(
        [
          `rp_event_loop_stall_seconds_count{service="s",cause="waiting"} ${stalls}`,
          `rp_event_loop_stall_seconds_sum{service="s",cause="waiting"} ${stalls * 0.2}`,
          `rp_event_loop_stall_seconds_count{service="s",cause="work"} 1`,
          `rp_event_loop_stall_seconds_sum{service="s",cause="work"} 0.125`,
          `nodejs_eventloop_lag_max_seconds ${loopMax}`,
          `nodejs_gc_duration_seconds_bucket{le="0.1",kind="major"} ${under100 - 1}`,
          `nodejs_gc_duration_seconds_bucket{le="0.1",kind="minor"} 1`,
          `nodejs_gc_duration_seconds_bucket{le="1",kind="major"} ${count - 1}`,
          `nodejs_gc_duration_seconds_sum{kind="major"} ${seconds}`,
          `nodejs_gc_duration_seconds_count{kind="major"} ${count - 1}`,
          `nodejs_gc_duration_seconds_count{kind="minor"} 1`,
        ].join('\n'),
      );
    const before = {
      tracker: pauseReading(metrics(0.5, 10, 10, 1)),
      simulator: pauseReading(metrics(0.1, 4, 3, 2)),
    };
    expect(before.simulator).toEqual({
      loopMaxMs: 100,
      gcCount: 4,
      gcOver100ms: 1,
      gcSeconds: 2,
      stalls: {
        work: { count: 1, seconds: 0.125 },
        collection: { count: 0, seconds: 0 },
        waiting: { count: 0, seconds: 0 },
      },
    });
    const after = {
      tracker: pauseReading(metrics(0.012, 30, 30, 1.5)),
      simulator: pauseReading(metrics(0.9, 9, 5, 3.25, 3)),
    };
    const row = pausesRow('the latency phase', before, after);
    expect(row.value).toBe(900);
    expect(row.detail).toContain(
      'simulator 900 ms (5, 3, 1.25 s; stops: waiting 3 (0.6 s)); tracker 12 ms (20, 0, 0.5 s; stops: none)',
    );
  });
});
