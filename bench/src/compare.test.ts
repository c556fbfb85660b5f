import { describe, expect, it } from 'vitest';
import { formatComparison, runFigures, spreadOf } from './compare.ts';
import type { Row } from './report.ts';

const pipeline = (name: string, value: number, detail?: string): Row => ({
  group: 'pipeline',
  name,
  value,
  unit: '',
  ...(detail === undefined ? {} : { detail }),
});

/** A run's rows as the bench names them: `perPosting` µs of two processes, references of 200 µs or so. */
function report(commit: string, perPosting: number, stolen?: number) {
  return {
    machine: { versions: { commit } } as never,
    rows: [
      pipeline('on-us debits sustained through the whole journey', 40),
      pipeline('CPU per debit: tracker', 20),
      pipeline('CPU per debit: kafka', 30),
      pipeline('CPU per debit: bench (load generator)', 5),
      pipeline("CPU reference beside the sustained window (fixed work on a journey's example messages)", 100),
      pipeline('event path alone: postings delivered from a backlog, in order (both classes)', 2_000),
      pipeline(
        'event path alone: machine CPU busy',
        85,
        `40 of 46 core-seconds${stolen === undefined ? '' : ` (${stolen} of them stolen: the hypervisor ran another guest on a core this machine wanted)`}; 900 µs per posting`,
      ),
      pipeline('event path alone: CPU per posting: event-publisher', perPosting / 2),
      pipeline('event path alone: CPU per posting: bank-simulator', perPosting / 2),
      pipeline('event path alone: CPU per posting: bench (load generator)', 50),
      pipeline(
        "event path alone: CPU reference beside the phase (fixed work on a journey's example messages)",
        200,
      ),
      pipeline('event path alone: CPU reference on every core at once beside the phase', 400),
      pipeline("event path alone: CPU reference in its thread's CPU time beside the phase", 250),
    ],
  };
}

describe('a run, as the comparison reads it', () => {
  it("sums the pipeline's processes' CPU an item without the load generator, and reads each reference", () => {
    const run = runFigures('run-a', report('abc1234', 1_000, 10));
    expect(run).toEqual({
      name: 'run-a',
      commit: 'abc1234',
      window: {
        rate: 40,
        cpu: 50,
        oneThread: 100,
        allCores: undefined,
        oneThreadCpu: undefined,
        stolenShare: undefined,
      },
      eventPath: {
        rate: 2_000,
        cpu: 1_000,
        oneThread: 200,
        allCores: 400,
        oneThreadCpu: 250,
        // 10 of 40 busy core-seconds stolen.
        stolenShare: 0.25,
      },
    });
  });

  it('reads no stolen time where none was said, and nothing of a phase the run did not have', () => {
    const run = runFigures('run-b', { machine: {} as never, rows: report('x', 800).rows.slice(5, 7) });
    expect(run.commit).toBe('?');
    expect(run.eventPath.stolenShare).toBe(0);
    expect(run.eventPath.cpu).toBeUndefined();
    expect(run.window).toEqual({
      rate: undefined,
      cpu: undefined,
      oneThread: undefined,
      allCores: undefined,
      oneThreadCpu: undefined,
      stolenShare: undefined,
    });
  });
});

describe('the spread of a figure over runs', () => {
  it('is its most over its least, over the runs that have it', () => {
    expect(spreadOf([4, undefined, 5, 2])).toEqual({ runs: 3, least: 2, most: 5, ratio: 2.5 });
  });

  it('needs two runs', () => {
    expect(spreadOf([3, undefined])).toBeUndefined();
  });
});

describe('the comparison table', () => {
  it('gives a line a run, each figure in units of each reference, and the spread of the code', () => {
    const text = formatComparison([
      runFigures('run-a', report('abc1234', 1_000, 10)),
      runFigures('run-b', report('def5678', 1_500)),
    ]);
    const [header, , first, second, spread] = text.split('\n');
    expect(header?.split(/\s{2,}/)).toEqual([
      'run',
      'commit',
      'ref µs',
      'stolen %',
      'debits/s',
      'ms/debit',
      'postings/s',
      'µs/posting',
      'refs',
      'all-core refs',
      'CPU-time refs',
    ]);
    // 1,000 µs a posting: 5 references of 200 µs, 2.5 of the all-core 400, 4 of the CPU-time 250.
    expect(first?.split(/\s+/)).toEqual([
      'run-a',
      'abc1234',
      '200',
      '25',
      '40',
      '50',
      '2,000',
      '1,000',
      '5',
      '2.5',
      '4',
    ]);
    expect(second?.split(/\s+/)).toEqual([
      'run-b',
      'def5678',
      '200',
      '0',
      '40',
      '50',
      '2,000',
      '1,500',
      '7.5',
      '3.75',
      '6',
    ]);
    // Nothing for the hour's figures; 1× for what did not move, 1.5× for what did.
    expect(spread?.split(/\s+/)).toEqual([
      'most',
      '/',
      'least',
      '1×',
      '1×',
      '1×',
      '1.5×',
      '1.5×',
      '1.5×',
      '1.5×',
    ]);
  });
});
