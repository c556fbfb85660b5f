import { describe, expect, it } from 'vitest';
import { ownedByRun } from './launch.ts';

describe('ownedByRun', () => {
  const run = 'pl-mx6ypff6b83788';
  const database = 'pl_mx6ypff6b83788';

  it("takes the run's topics, its consumers' retry and dead-letter topics, and its database", () => {
    for (const name of [
      `${run}.rp.events.v1`,
      `${run}.rp.directdebit.received.v1`,
      `event-publisher.${run}.rp.events.v1.retry.3`,
      `tracker.${run}.rp.delivery.outcome.v1.dlq`,
      database,
    ])
      expect(ownedByRun(name, run, database), name).toBe(true);
  });

  it("leaves another run's, the pipeline's own and Kafka's", () => {
    for (const name of [
      'pl-mx6ypff6b83789.rp.events.v1',
      `${run}x.rp.events.v1`,
      `event-publisher.${run}x.rp.events.v1.retry.3`,
      'rp.events.v1',
      '__consumer_offsets',
      `${database}_2`,
      'rp',
    ])
      expect(ownedByRun(name, run, database), name).toBe(false);
  });
});
