import { describe, expect, test } from 'vitest';
import { groupByTopic, isFull, messageBytes, takeBatch } from './batching.ts';

const send = (name: string, records: number, bytes = records * 100) => ({ name, records, bytes });

describe('takeBatch', () => {
  const limits = { maxRecords: 10, maxBytes: 10_000 };

  test('takes whole sends in order up to the record limit', () => {
    const queue = [send('a', 4), send('b', 4), send('c', 4)];
    expect(takeBatch(queue, limits).map((entry) => entry.name)).toEqual(['a', 'b']);
    expect(queue.map((entry) => entry.name)).toEqual(['c']);
  });

  test('stops at the byte limit', () => {
    const queue = [send('a', 1, 6_000), send('b', 1, 6_000)];
    expect(takeBatch(queue, limits).map((entry) => entry.name)).toEqual(['a']);
    expect(queue).toHaveLength(1);
  });

  test('sends an oversized send alone rather than never', () => {
    const queue = [send('huge', 50), send('b', 1)];
    expect(takeBatch(queue, limits).map((entry) => entry.name)).toEqual(['huge']);
    expect(takeBatch(queue, limits).map((entry) => entry.name)).toEqual(['b']);
    expect(takeBatch(queue, limits)).toEqual([]);
  });

  test('never reorders: a small send behind a big one waits its turn', () => {
    const queue = [send('a', 8), send('big', 5), send('small', 1)];
    expect(takeBatch(queue, limits).map((entry) => entry.name)).toEqual(['a']);
    expect(takeBatch(queue, limits).map((entry) => entry.name)).toEqual(['big', 'small']);
  });
});

describe('isFull', () => {
  test('is full at either limit', () => {
    const limits = { maxRecords: 10, maxBytes: 1_000 };
    expect(isFull({ records: 9, bytes: 999 }, limits)).toBe(false);
    expect(isFull({ records: 10, bytes: 0 }, limits)).toBe(true);
    expect(isFull({ records: 1, bytes: 1_000 }, limits)).toBe(true);
  });
});

describe('groupByTopic', () => {
  test('merges sends per topic and keeps each topic in call order', () => {
    const grouped = groupByTopic([
      { topic: 'a', messages: [1, 2] },
      { topic: 'b', messages: [10] },
      { topic: 'a', messages: [3] },
    ]);
    expect(grouped).toEqual([
      { topic: 'a', messages: [1, 2, 3] },
      { topic: 'b', messages: [10] },
    ]);
  });
});

describe('messageBytes', () => {
  test('counts key, value and headers', () => {
    const bare = messageBytes({ key: null, value: null });
    expect(messageBytes({ key: 'abcd', value: Buffer.alloc(100) })).toBe(bare + 104);
    expect(messageBytes({ key: null, value: null, headers: { ab: 'é' } })).toBe(bare + 2 + 2 + 4);
  });
});
