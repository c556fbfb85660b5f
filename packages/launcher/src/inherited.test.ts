import { describe, expect, it } from 'vitest';
import { inheritedEnvironment } from './launch.ts';

describe('inheritedEnvironment', () => {
  it('keeps what no setting of the launcher, the caller or a service replaces', () => {
    const parent = {
      EVENTS_BANK_CONCURRENCY: '64',
      LOG_LEVEL: 'debug',
      KAFKA_BROKERS: 'elsewhere:9092',
      NODE_OPTIONS: '--max-old-space-size=512',
      UNSET: undefined,
    };
    const inherited = inheritedEnvironment(parent, [
      { KAFKA_BROKERS: '127.0.0.1:19092', LOG_LEVEL: 'warn' },
      { NODE_OPTIONS: '--cpu-prof' },
    ]);
    expect(inherited).toEqual({ EVENTS_BANK_CONCURRENCY: '64' });
  });

  it('keeps everything when nothing is set over it', () => {
    expect(inheritedEnvironment({ A: '1', B: '' }, [])).toEqual({ A: '1', B: '' });
  });
});
