import { describe, expect, it } from 'vitest';
import { LaneIndex } from './lane-index.ts';

const key = (memberId: string, uetr: string) => ({
  laneId: `${memberId}:${uetr}`,
  memberId,
  uetr,
  topic: 'rp.events.v1',
  partition: 0,
});

describe('lane index', () => {
  it('hands out due lanes earliest first, once, and takes them back when rescheduled', () => {
    const index = new LaneIndex(10);
    index.add(key('A', '3'), 300, 0, 1);
    index.add(key('A', '1'), 100, 0, 1);
    index.add(key('B', '2'), 200, 0, 2);
    expect(index.nextDueAt()).toBe(100);
    expect(index.takeDue(250, 10).map((lane) => lane.uetr)).toEqual(['1', '2']);
    expect(index.takeDue(250, 10)).toEqual([]);
    index.schedule('A:1', 260, 0);
    expect(index.takeDue(1_000, 10).map((lane) => lane.uetr)).toEqual(['1', '3']);
    expect(index.parkedByBank().get('B')).toEqual({ lanes: 1, postings: 2 });
  });

  it('never postpones a known lane, but brings it forward', () => {
    const index = new LaneIndex(10);
    index.add(key('A', '1'), 500, 0, 1);
    index.add(key('A', '1'), 900, 0, 1);
    expect(index.takeDue(600, 10)).toHaveLength(1);
    index.schedule('A:1', 900, 0);
    index.add(key('A', '1'), 100, 0, 1);
    expect(index.takeDue(150, 10)).toHaveLength(1);
  });

  it("holds a paused bank's lanes until it recovers, then makes them due at once but not before Retry-After", () => {
    const index = new LaneIndex(10);
    index.add(key('A', '1'), 100, 0, 1);
    index.add(key('A', '2'), 100, 5_000, 1);
    const taken = index.takeDue(100, 10);
    for (const lane of taken) index.hold(lane.laneId);
    expect(index.heldCount('A')).toBe(2);
    expect(index.takeDue(10_000, 10)).toEqual([]);
    expect(index.releaseOne('A', 1_000)).toBe(true);
    expect(index.heldCount('A')).toBe(1);
    const probe = index.takeDue(5_000, 10);
    expect(probe).toHaveLength(1);
    index.hold(probe[0]!.laneId);
    expect(index.releaseHeld('A', 1_000)).toBe(2);
    const released = index.takeDue(1_000, 10);
    expect(released.map((lane) => [lane.uetr, lane.early])).toEqual([['1', true]]);
    expect(index.takeDue(5_000, 10).map((lane) => lane.uetr)).toEqual(['2']);
  });

  it("takes a paused bank's probe early, ahead of its head's step: one past its Retry-After first, else the soonest", () => {
    const index = new LaneIndex(10);
    index.add(key('A', 'later'), 0, 0, 1);
    index.add(key('A', 'free'), 0, 0, 1);
    index.add(key('A', 'gone'), 0, 0, 1);
    expect(index.takeDue(0, 10)).toHaveLength(3);
    // Heads that failed, minutes of schedule ahead; one under a Retry-After until 8 s.
    index.scheduleRetry('A:later', 600_000, 8_000);
    index.scheduleRetry('A:free', 600_000, 0);
    index.scheduleRetry('A:gone', 600_000, 0);
    for (const uetr of ['gone', 'later', 'free']) index.hold(`A:${uetr}`);
    index.remove('A:gone');
    expect(index.releaseOne('A', 1_000)).toBe(true);
    const [probe] = index.takeDue(1_000, 10);
    expect([probe?.uetr, probe?.early]).toEqual(['free', true]);
    index.hold('A:free');
    // Only lanes under a Retry-After left (the first paused again): the one whose Retry-After ends first.
    index.scheduleRetry('A:free', 600_000, 9_000);
    index.hold('A:free');
    expect(index.releaseOne('A', 2_000)).toBe(true);
    expect(index.takeDue(7_999, 10)).toEqual([]);
    expect(index.takeDue(8_000, 10).map((lane) => [lane.uetr, lane.early])).toEqual([['later', true]]);
    expect(index.heldCount('A')).toBe(1);
  });

  it("makes a recovered bank's lanes waiting out a failed attempt due too, not its other lanes nor another bank's", () => {
    const index = new LaneIndex(10);
    index.add(key('A', 'failed'), 0, 0, 1);
    index.add(key('A', 'leased'), 0, 0, 1);
    index.add(key('A', 'notBefore'), 0, 0, 1);
    index.add(key('B', 'failed'), 0, 0, 1);
    expect(index.takeDue(0, 10)).toHaveLength(4);
    // Heads that failed while the breaker stayed closed: minutes of schedule ahead.
    index.scheduleRetry('A:failed', 300_000, 0);
    index.scheduleRetry('A:notBefore', 300_000, 20_000);
    index.scheduleRetry('B:failed', 300_000, 0);
    // Another process's lease: not a failure.
    index.schedule('A:leased', 60_000, 0);
    expect(index.releaseHeld('A', 10_000)).toBe(2);
    const due = index.takeDue(10_000, 10);
    expect(due.map((lane) => [lane.uetr, lane.early])).toEqual([['failed', true]]);
    // Not before the bank's Retry-After; the other bank's lane keeps its schedule.
    expect(index.takeDue(20_000, 10).map((lane) => lane.uetr)).toEqual(['notBefore']);
    expect(index.takeDue(60_000, 10).map((lane) => lane.uetr)).toEqual(['leased']);
    expect(index.nextDueAt()).toBe(300_000);
    // Released once: it fails again and waits out its schedule until the next recovery.
    index.scheduleRetry('A:failed', 400_000, 0);
    index.schedule('A:notBefore', 400_000, 0);
    // A lane that failed and is gone since (another process emptied it) is not released.
    index.scheduleRetry('A:leased', 400_000, 0);
    index.remove('A:leased');
    expect(index.releaseHeld('A', 30_000)).toBe(1);
    expect(index.takeDue(30_000, 10).map((lane) => lane.uetr)).toEqual(['failed']);
  });

  it('remembers a recovery that came while a worker had a failed lane, until the worker gives it back', () => {
    const index = new LaneIndex(10);
    index.add(key('A', 'worked'), 0, 0, 1);
    expect(index.takeDue(0, 1)).toHaveLength(1);
    index.scheduleRetry('A:worked', 300_000, 0);
    // A probe releases it; a worker has it (to find its head not due yet) when the bank answers.
    index.add(key('A', 'worked'), 0, 0, 0);
    const [worked] = index.takeDue(1_000, 1);
    expect(worked?.laneId).toBe('A:worked');
    expect(index.releaseHeld('A', 2_000)).toBe(0);
    expect(index.get('A:worked')?.recoveredWhileWorking).toBe(true);
    // Given back unattempted, it is due at once, early, rather than at its own schedule.
    index.giveBackUnattempted('A:worked', 300_000, 0, 1, 3_000);
    const due = index.takeDue(3_000, 1);
    expect(due.map((lane) => [lane.laneId, lane.early])).toEqual([['A:worked', true]]);
    // Once: given back again with no recovery since, it waits out its schedule.
    index.giveBackUnattempted('A:worked', 300_000, 0, 1, 4_000);
    expect(index.get('A:worked')?.recoveredWhileWorking).toBe(false);
    expect(index.takeDue(4_000, 1)).toHaveLength(0);
  });

  it('keeps a lane a worker emptied when postings were queued meanwhile', () => {
    const index = new LaneIndex(10);
    index.add(key('A', '1'), 0, 0, 1);
    const [lane] = index.takeDue(0, 1);
    index.markEmptying(lane!.laneId);
    index.add(key('A', '1'), 0, 0, 1);
    index.removeEmptied('A:1', 50);
    expect(index.has('A:1')).toBe(true);
    expect(index.takeDue(50, 1)).toHaveLength(1);
    index.markEmptying('A:1');
    index.removeEmptied('A:1', 60);
    expect(index.has('A:1')).toBe(false);
  });

  it('makes a parker wait while it is full, until a lane goes', async () => {
    const index = new LaneIndex(1);
    index.add(key('A', '1'), 0, 0, 1);
    let roomy = false;
    const waiting = index.waitForRoom().then(() => {
      roomy = true;
    });
    await Promise.resolve();
    expect(roomy).toBe(false);
    index.remove('A:1');
    await waiting;
    expect(roomy).toBe(true);
  });

  it('stays correct over many reschedules (stale heap entries are dropped)', () => {
    const index = new LaneIndex(100);
    for (let lane = 0; lane < 50; lane += 1) index.add(key('A', String(lane)), lane, 0, 1);
    for (let round = 0; round < 200; round += 1) {
      const due = index.takeDue(Number.MAX_SAFE_INTEGER, 50);
      expect(due).toHaveLength(50);
      for (const lane of due) index.schedule(lane.laneId, round * 100 + Number(lane.uetr), 0);
    }
    const order = index.takeDue(Number.MAX_SAFE_INTEGER, 50).map((lane) => Number(lane.uetr));
    expect(order).toEqual([...order].sort((a, b) => a - b));
  });
});
