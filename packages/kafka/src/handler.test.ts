import { describe, expect, test } from 'vitest';
import { type ConsumedRecord, type Indexed, type InvokeOptions, invokeHandler } from './handler.ts';

const record = (key: string, sequence: number, index: number): Indexed<number> => ({
  index,
  record: {
    topic: 't',
    partition: 0,
    offset: String(index),
    key,
    value: sequence,
    headers: {},
    timestamp: new Date(0).toISOString(),
    attempt: 1,
  },
});

/** a1 b1 a2 c1 b2 a3 */
const interleaved = (): Indexed<number>[] =>
  [
    ['a', 1],
    ['b', 1],
    ['a', 2],
    ['c', 1],
    ['b', 2],
    ['a', 3],
  ].map(([key, sequence], index) => record(key as string, sequence as number, index));

const options = (overrides: Partial<InvokeOptions> = {}): InvokeOptions => ({
  signal: new AbortController().signal,
  heartbeat: async () => {},
  keyConcurrency: 1,
  parksKey: () => true,
  isAborted: () => false,
  ...overrides,
});

const label = (entry: ConsumedRecord<number>) => `${entry.key}${entry.value}`;

describe('invokeHandler, record mode', () => {
  test('handles every record, each key in order, several keys at once', async () => {
    const seen: string[] = [];
    let inFlight = 0;
    let mostInFlight = 0;
    const failures = await invokeHandler(
      {
        handleRecord: async (entry) => {
          inFlight += 1;
          mostInFlight = Math.max(mostInFlight, inFlight);
          await Promise.resolve();
          seen.push(label(entry));
          inFlight -= 1;
        },
      },
      interleaved(),
      options({ keyConcurrency: 3 }),
    );
    expect(failures.size).toBe(0);
    expect(seen.filter((entry) => entry.startsWith('a'))).toEqual(['a1', 'a2', 'a3']);
    expect(seen.filter((entry) => entry.startsWith('b'))).toEqual(['b1', 'b2']);
    expect(seen).toHaveLength(6);
    expect(mostInFlight).toBe(3);
  });

  test('a failure that parks its key stops that key only', async () => {
    const seen: string[] = [];
    const failures = await invokeHandler(
      {
        handleRecord: async (entry) => {
          seen.push(label(entry));
          if (label(entry) === 'a2') throw new Error('bank down');
        },
      },
      interleaved(),
      options(),
    );
    expect([...failures.keys()]).toEqual([2]);
    expect(seen).toEqual(['a1', 'a2', 'b1', 'b2', 'c1']);
  });

  test('a failure that does not park (dead-lettered) lets the key go on', async () => {
    const seen: string[] = [];
    const failures = await invokeHandler(
      {
        handleRecord: async (entry) => {
          seen.push(label(entry));
          if (label(entry) === 'a1') throw Object.assign(new Error('closed'), { retriable: false });
        },
      },
      interleaved(),
      options({ parksKey: (error) => (error as { retriable?: boolean }).retriable !== false }),
    );
    expect([...failures.keys()]).toEqual([0]);
    expect(seen.filter((entry) => entry.startsWith('a'))).toEqual(['a1', 'a2', 'a3']);
  });

  test('records without a key are independent of each other', async () => {
    const seen: number[] = [];
    const failures = await invokeHandler(
      {
        handleRecord: async (entry) => {
          seen.push(entry.value);
          if (entry.value === 1) throw new Error('x');
        },
      },
      [record('', 1, 0), record('', 2, 1), record('', 3, 2)],
      options(),
    );
    expect([...failures.keys()]).toEqual([0]);
    expect(seen).toEqual([1, 2, 3]);
  });

  test('a lost heartbeat (rebalance) stops handing out records and surfaces the error', async () => {
    const seen: string[] = [];
    const rebalance = new Error('The group is rebalancing');
    await expect(
      invokeHandler(
        { handleRecord: async (entry) => void seen.push(label(entry)) },
        interleaved(),
        options({
          heartbeat: async () => {
            if (seen.length === 2) throw rebalance;
          },
        }),
      ),
    ).rejects.toBe(rebalance);
    expect(seen).toEqual(['a1', 'a2']);
  });

  test('an abort stops handing out records', async () => {
    let aborted = false;
    const seen: string[] = [];
    await invokeHandler(
      {
        handleRecord: async (entry) => {
          seen.push(label(entry));
          aborted = true;
        },
      },
      interleaved(),
      options({ isAborted: () => aborted }),
    );
    expect(seen).toEqual(['a1']);
  });
});

describe('invokeHandler, batch mode', () => {
  test('collects failures reported with fail()', async () => {
    const failures = await invokeHandler(
      {
        handleBatch: async (records, context) => {
          for (const entry of records)
            if (entry.key === 'b') context.fail(entry, new Error(`no ${label(entry)}`));
        },
      },
      interleaved(),
      options(),
    );
    expect([...failures.keys()]).toEqual([1, 4]);
    expect((failures.get(4) as Error).message).toBe('no b2');
  });

  test('fail() with a record from elsewhere is a programming error', async () => {
    const stranger = record('z', 9, 99).record;
    const failures = await invokeHandler(
      {
        handleBatch: async (_records, context) => {
          context.fail(stranger, new Error('x'));
        },
      },
      interleaved().slice(0, 1),
      options(),
    );
    expect((failures.get(0) as Error).message).toMatch(/not in this batch/);
  });

  test('a batch that throws is re-run record by record to isolate the bad one', async () => {
    const calls: string[][] = [];
    let threw: number | undefined;
    const failures = await invokeHandler(
      {
        handleBatch: async (records) => {
          calls.push(records.map(label));
          if (records.some((entry) => label(entry) === 'b1')) throw new Error('b1 is broken');
        },
      },
      interleaved(),
      options({ onBatchThrew: (_error, count) => (threw = count) }),
    );
    expect(threw).toBe(6);
    expect([...failures.keys()]).toEqual([1]);
    expect(calls[0]).toHaveLength(6);
    // After b1 failed its key is parked: b2 is not run again.
    expect(calls.slice(1).flat()).toEqual(['a1', 'a2', 'a3', 'b1', 'c1']);
  });
});
