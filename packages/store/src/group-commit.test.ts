import { describe, expect, it } from 'vitest';
import { GroupCommit, type Settled } from './group-commit.ts';

/** A send that records its groups and answers when told to. */
function recorder() {
  const groups: number[][] = [];
  const answers: Array<(settled: Settled<string>[] | Error) => void> = [];
  const send = (requests: readonly number[]) =>
    new Promise<Settled<string>[]>((resolve, reject) => {
      groups.push([...requests]);
      answers.push((settled) => (settled instanceof Error ? reject(settled) : resolve(settled)));
    });
  const answerAll = (index: number) =>
    answers[index]?.((groups[index] ?? []).map((request) => ({ ok: true, value: `done-${request}` })));
  return { groups, answers, send, answerAll };
}

/** A few turns of the event loop: what the commit schedules after a send settles has happened. */
const turn = async () => {
  for (let index = 0; index < 4; index += 1) await new Promise((resolve) => setImmediate(resolve));
};

describe('GroupCommit', () => {
  it('sends what is asked for in one turn as one group, and each caller gets its own answer', async () => {
    const { groups, send, answerAll } = recorder();
    const commit = new GroupCommit(send, { maxBatch: 10, maxInFlight: 1 });
    const answers = Promise.all([1, 2, 3].map((request) => commit.submit(request)));
    await turn();
    expect(groups).toEqual([[1, 2, 3]]);
    answerAll(0);
    expect(await answers).toEqual(['done-1', 'done-2', 'done-3']);
  });

  it('gathers what comes while the commands in flight are out, up to the batch weight', async () => {
    const { groups, send, answerAll } = recorder();
    const commit = new GroupCommit(send, {
      maxBatch: 4,
      maxInFlight: 1,
      weight: (request: number) => request,
    });
    const first = commit.submit(1);
    await turn();
    const later = [2, 1, 3, 5].map((request) => commit.submit(request));
    await turn();
    expect(groups).toEqual([[1]]);
    expect(commit.waiting).toBe(4);
    answerAll(0);
    expect(await first).toBe('done-1');
    await turn();
    // 2 + 1 weigh 3; with 3 more it would weigh 6.
    expect(groups[1]).toEqual([2, 1]);
    answerAll(1);
    await turn();
    expect(groups[2]).toEqual([3]);
    answerAll(2);
    await turn();
    // Heavier than a batch on its own: sent alone.
    expect(groups[3]).toEqual([5]);
    answerAll(3);
    expect(await Promise.all(later)).toEqual(['done-2', 'done-1', 'done-3', 'done-5']);
  });

  it('fails only the requests settled as failed, and every request of a group whose send throws', async () => {
    const { send, answers, groups } = recorder();
    const commit = new GroupCommit(send, { maxBatch: 10, maxInFlight: 2 });
    const one = commit.submit(1);
    const two = commit.submit(2);
    await turn();
    answers[0]?.([
      { ok: true, value: 'stored' },
      { ok: false, error: new Error('refused alone') },
    ]);
    expect(await one).toBe('stored');
    await expect(two).rejects.toThrow('refused alone');

    const three = commit.submit(3);
    const four = commit.submit(4);
    await turn();
    expect(groups[1]).toEqual([3, 4]);
    answers[1]?.(new Error('connection closed'));
    await expect(three).rejects.toThrow('connection closed');
    await expect(four).rejects.toThrow('connection closed');
  });

  it('keeps at most maxInFlight commands out', async () => {
    const { groups, send, answerAll } = recorder();
    const commit = new GroupCommit(send, { maxBatch: 1, maxInFlight: 2 });
    const all = Promise.all([1, 2, 3, 4].map((request) => commit.submit(request)));
    await turn();
    expect(groups).toEqual([[1], [2]]);
    answerAll(0);
    await turn();
    expect(groups).toEqual([[1], [2], [3]]);
    answerAll(1);
    answerAll(2);
    await turn();
    answerAll(3);
    expect(await all).toEqual(['done-1', 'done-2', 'done-3', 'done-4']);
  });
});
