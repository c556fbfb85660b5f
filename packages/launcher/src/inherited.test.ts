import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { defaultServiceNodeFlags, inheritedEnvironment, serviceNodeFlags } from './launch.ts';

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

describe('serviceNodeFlags', () => {
  it("gives the young generation's flags unless RP_NODE_FLAGS replaces them, and none for an empty one", () => {
    expect(serviceNodeFlags({})).toEqual(['--min-semi-space-size=16', '--max-semi-space-size=16']);
    expect(serviceNodeFlags({})).toEqual(defaultServiceNodeFlags);
    expect(serviceNodeFlags({ RP_NODE_FLAGS: ' --max-semi-space-size=32   --single-threaded-gc ' })).toEqual([
      '--max-semi-space-size=32',
      '--single-threaded-gc',
    ]);
    expect(serviceNodeFlags({ RP_NODE_FLAGS: '' })).toEqual([]);
  });

  it("are the image entry point's defaults as well", () => {
    const script = readFileSync(new URL('../../../infra/docker/rp-service.sh', import.meta.url), 'utf8');
    const defaults = /^flags=\$\{RP_NODE_FLAGS-'([^']*)'\}$/m.exec(script)?.[1];
    expect(defaults?.split(' ')).toEqual(defaultServiceNodeFlags);
  });
});
