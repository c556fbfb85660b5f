import { describe, expect, test } from 'vitest';
import { metricSample } from './metrics.ts';

const body = [
  '# HELP rp_commands_total Commands',
  '# TYPE rp_commands_total counter',
  'rp_commands_total{command="update",outcome="ok",service="store"} 2',
  'rp_commands_total{command="update",outcome="error",service="store"} 1',
  'rp_commands_total_other{command="update"} 9',
  'rp_depth 7',
].join('\n');

describe('metricSample', () => {
  test('finds the series whose labels include the ones asked for, in any order', () => {
    expect(metricSample(body, 'rp_commands_total', { outcome: 'error', command: 'update' })).toBe(1);
    expect(metricSample(body, 'rp_commands_total', { command: 'update' })).toBe(2);
  });

  test('reads a series without labels, and tells a longer name apart', () => {
    expect(metricSample(body, 'rp_depth')).toBe(7);
    expect(metricSample(body, 'rp_commands_total_other')).toBe(9);
    expect(metricSample(body, 'rp_commands')).toBeUndefined();
  });

  test('is undefined when no series matches', () => {
    expect(metricSample(body, 'rp_commands_total', { command: 'insert' })).toBeUndefined();
    expect(metricSample(body, 'rp_missing')).toBeUndefined();
  });
});
