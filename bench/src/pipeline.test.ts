import { describe, expect, it } from 'vitest';
import { idleCpuRows } from './pipeline.ts';

describe('idle CPU rows', () => {
  it("gives the machine's busy share and each process's share of a core, busiest first, without the bench", () => {
    const reading = (tracker: number, kafka: number, bench: number, busy: number, total: number) => ({
      processes: new Map([
        ['tracker', tracker],
        ['kafka', kafka],
        ['bench (load generator)', bench],
      ]),
      machine: { busySeconds: busy, totalSeconds: total },
    });
    const rows = idleCpuRows(reading(10, 50, 3, 100, 1_000), reading(10.5, 53, 9, 104, 1_040), 20);
    expect(rows.map((row) => [row.name, row.value])).toEqual([
      ['machine CPU busy while idle', 10],
      ['CPU while idle: kafka', 15],
      ['CPU while idle: tracker', 2.5],
    ]);
  });
});
