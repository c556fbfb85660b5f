import { describe, expect, it } from 'vitest';
import { serviceSpecs, servicesEnvironment, servicesEnvironmentRow } from './service-env.ts';

const specs = [
  { EVENTS_BANK_CONCURRENCY: { secret: false }, SIGNING_SECRETS: { secret: true } },
  { MONGODB_URI: { secret: false }, LOG_LEVEL: { secret: false } },
];

describe("the services' settings from the environment", () => {
  it('names what a service reads, secrets redacted and passwords in URLs masked', () => {
    const described = servicesEnvironment(
      {
        PATH: '/usr/bin',
        HOME: '/root',
        EVENTS_BANK_CONCURRENCY: '64',
        SIGNING_SECRETS: '{"*":["whsec_abc"]}',
        SIGNING_SECRETS_FILE: '/run/secrets/signing',
        MONGODB_URI: 'mongodb://rp:hunter2@db.example:27017/rp',
        NODE_OPTIONS: '--max-semi-space-size=32',
      },
      specs,
    );
    expect(described).toEqual({
      EVENTS_BANK_CONCURRENCY: '64',
      MONGODB_URI: 'mongodb://rp:redacted@db.example:27017/rp',
      NODE_OPTIONS: '--max-semi-space-size=32',
      SIGNING_SECRETS: '[redacted]',
      SIGNING_SECRETS_FILE: '[redacted]',
    });
    expect(JSON.stringify(described)).not.toContain('hunter2');
    expect(JSON.stringify(described)).not.toContain('whsec_abc');
  });

  it('knows the variables of every service the pipeline runs', () => {
    const described = servicesEnvironment({
      EVENTS_BANK_CONCURRENCY: '64',
      TRACKER_SNAPSHOT_INTERVAL: '1s',
      KAFKA_COMMIT_INTERVAL: '500ms',
    });
    expect(Object.keys(described)).toEqual([
      'EVENTS_BANK_CONCURRENCY',
      'KAFKA_COMMIT_INTERVAL',
      'TRACKER_SNAPSHOT_INTERVAL',
    ]);
    expect(serviceSpecs).toHaveLength(7);
  });

  it('says when there is none', () => {
    expect(servicesEnvironmentRow({})).toMatchObject({ value: 0, detail: expect.stringMatching(/^none/) });
    expect(servicesEnvironmentRow({ A: '1', B: '2' })).toMatchObject({ value: 2, detail: 'A=1, B=2' });
  });
});
