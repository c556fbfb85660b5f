import { describe, expect, test } from 'vitest';
import { assignCoPartitioned } from './assigner.ts';

describe('assignCoPartitioned', () => {
  test('partition p of every topic goes to the same member', () => {
    const assignment = assignCoPartitioned(
      ['m-b', 'm-a'],
      new Map([
        ['source', [0, 1, 2, 3]],
        ['g.retry.1', [3, 2, 1, 0]],
      ]),
    );
    expect(assignment.get('m-a')).toEqual({ source: [0, 2], 'g.retry.1': [0, 2] });
    expect(assignment.get('m-b')).toEqual({ source: [1, 3], 'g.retry.1': [1, 3] });
  });

  test('covers every partition exactly once, whatever the member order', () => {
    const topics = new Map([
      ['a', [0, 1, 2, 3, 4, 5]],
      ['b', [0, 1, 2]],
    ]);
    const one = assignCoPartitioned(['x', 'y', 'z', 'w'], topics);
    const other = assignCoPartitioned(['w', 'z', 'y', 'x'], topics);
    expect(one).toEqual(other);
    const seen = [...one.values()].flatMap((byTopic) =>
      Object.entries(byTopic).flatMap(([topic, partitions]) => partitions.map((p) => `${topic}:${p}`)),
    );
    expect(seen.sort()).toEqual(['a:0', 'a:1', 'a:2', 'a:3', 'a:4', 'a:5', 'b:0', 'b:1', 'b:2']);
  });

  test('no members, no assignment', () => {
    expect(assignCoPartitioned([], new Map([['a', [0]]])).size).toBe(0);
  });
});
