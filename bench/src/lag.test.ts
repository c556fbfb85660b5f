import { describe, expect, it } from 'vitest';
import { lagByGroup, lagRow, mergeLag, watchLag } from './lag.ts';
import { parsePrometheus } from './stats.ts';

describe("the consumer groups' records waiting", () => {
  it("sums a service's partitions by group and ignores other metrics", () => {
    const metrics = parsePrometheus(
      [
        '# HELP rp_kafka_consumer_lag_records Records waiting',
        'rp_kafka_consumer_lag_records{group="tracker.state",topic="rp.transaction.state.v1",partition="0",service="tracker"} 5',
        'rp_kafka_consumer_lag_records{group="tracker.state",topic="rp.transaction.state.v1",partition="3",service="tracker"} 7',
        'rp_kafka_consumer_lag_records{group="tracker.outcomes",topic="rp.delivery.outcome.v1",partition="0",service="tracker"} 0',
        'rp_kafka_dead_letters_total{group="tracker.state",topic="rp.transaction.state.v1",reason="poison",service="tracker"} 9',
      ].join('\n'),
    );
    expect(lagByGroup(metrics)).toEqual(
      new Map([
        ['tracker.state', 12],
        ['tracker.outcomes', 0],
      ]),
    );
    expect(
      mergeLag([
        new Map([['a', 1]]),
        new Map([
          ['a', 2],
          ['b', 3],
        ]),
      ]),
    ).toEqual(
      new Map([
        ['a', 3],
        ['b', 3],
      ]),
    );
  });

  it("keeps each group's peak and its figure at the end; a failed sample is skipped", async () => {
    const readings: (Map<string, number> | Error)[] = [
      new Map([
        ['validator.debits', 40],
        ['tracker.state', 3],
      ]),
      new Error('a service held'),
      new Map([
        ['validator.debits', 10],
        ['tracker.state', 90],
      ]),
    ];
    const taken = readings.length;
    let next = 0;
    const sampled: (() => void)[] = [];
    const watch = watchLag(async () => {
      const reading =
        readings[next] ??
        new Map([
          ['validator.debits', 0],
          ['tracker.state', 25],
        ]);
      next += 1;
      if (next === taken) for (const resolve of sampled.splice(0)) resolve();
      if (reading instanceof Error) throw reading;
      return reading;
    }, 1);
    await new Promise<void>((resolve) => sampled.push(resolve));
    const lag = await watch.end();
    expect(lag.groups).toEqual({
      'validator.debits': { peak: 40, atEnd: 0 },
      'tracker.state': { peak: 90, atEnd: 25 },
    });
    expect(lag.samples).toBe(next - 1);
  });

  it('takes the end figure from the last reading that succeeded when the one at the end fails', async () => {
    let reads = 0;
    let firstRead: () => void = () => {};
    const read = new Promise<void>((resolve) => {
      firstRead = resolve;
    });
    const watch = watchLag(async () => {
      reads += 1;
      if (reads > 1) throw new Error('a service held');
      firstRead();
      return new Map([['tracker.state', 7]]);
    }, 1);
    await read;
    const lag = await watch.end();
    expect(lag.groups).toEqual({ 'tracker.state': { peak: 7, atEnd: 7 } });
    expect(lag.samples).toBe(1);
  });

  it('lists the groups that waited, most first, or says none did', () => {
    const row = lagRow('the window', {
      groups: {
        'tracker.state': { peak: 90, atEnd: 25 },
        'validator.debits': { peak: 140, atEnd: 0 },
        'scheduler.accepted': { peak: 0, atEnd: 0 },
      },
      samples: 31,
      everyMs: 2_000,
    });
    expect(row.value).toBe(140);
    expect(row.detail).toMatch(
      /^validator\.debits 140 \/ 0, tracker\.state 90 \/ 25; sampled every 2 s .*\(31 samples\)$/,
    );
    const none = lagRow('the window', {
      groups: { 'scheduler.accepted': { peak: 0, atEnd: 0 } },
      samples: 3,
      everyMs: 2_000,
    });
    expect(none.value).toBe(0);
    expect(none.detail).toMatch(/^none waited at any sample/);
  });
});
