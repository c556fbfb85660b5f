import { describe, expect, it } from 'vitest';
import { MonitorWatch } from './monitor-watch.ts';

describe('MonitorWatch', () => {
  it('names a server whose check has been in progress longer than the limit, and for how long', () => {
    const watch = new MonitorWatch(30_000);
    watch.started('db-1:27017', 1_000);
    watch.started('db-2:27017', 20_000);
    expect(watch.stalled(31_000)).toEqual([]);
    expect(watch.stalled(31_001)).toEqual([{ address: 'db-1:27017', forMs: 30_001 }]);
  });

  it('forgets a check once it ended, well or badly', () => {
    const watch = new MonitorWatch(30_000);
    watch.started('db-1:27017', 0);
    watch.ended('db-1:27017');
    expect(watch.stalled(60_000)).toEqual([]);
  });

  it('counts from the newest start (a streaming monitor starts its next check as one ends)', () => {
    const watch = new MonitorWatch(30_000);
    watch.started('db-1:27017', 0);
    watch.started('db-1:27017', 25_000);
    expect(watch.stalled(50_000)).toEqual([]);
    expect(watch.stalled(55_001)).toEqual([{ address: 'db-1:27017', forMs: 30_001 }]);
  });

  it('starts afresh after a reconnect', () => {
    const watch = new MonitorWatch(30_000);
    watch.started('db-1:27017', 0);
    watch.reset();
    expect(watch.stalled(60_000)).toEqual([]);
  });
});
