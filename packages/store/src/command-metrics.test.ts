import { createMetrics } from '@rp/runtime';
import { metricSample } from '@rp/testkit';
import { describe, expect, it } from 'vitest';
import { storeCommandMetrics } from './command-metrics.ts';

describe('storeCommandMetrics', () => {
  it('counts commands by name and outcome and times them by name', async () => {
    const metrics = createMetrics({ service: 'store-test', defaultMetrics: false });
    const onCommand = storeCommandMetrics(metrics);
    onCommand({ commandName: 'update', databaseName: 'rp', durationMs: 3, ok: true });
    onCommand({ commandName: 'update', databaseName: 'rp', durationMs: 40, ok: true });
    onCommand({ commandName: 'insert', databaseName: 'rp', durationMs: 2, ok: false });

    const { body } = await metrics.render();
    const value = (name: string, labels: Record<string, string>) => metricSample(body, name, labels);
    expect(value('rp_mongodb_commands_total', { command: 'update', outcome: 'ok' })).toBe(2);
    expect(value('rp_mongodb_commands_total', { command: 'insert', outcome: 'failed' })).toBe(1);
    expect(value('rp_mongodb_commands_total', { command: 'insert', outcome: 'ok' })).toBeUndefined();
    expect(value('rp_mongodb_command_duration_seconds_count', { command: 'update' })).toBe(2);
    expect(value('rp_mongodb_command_duration_seconds_bucket', { command: 'update', le: '0.005' })).toBe(1);
    expect(value('rp_mongodb_command_duration_seconds_sum', { command: 'update' })).toBeCloseTo(0.043, 6);
  });
});
