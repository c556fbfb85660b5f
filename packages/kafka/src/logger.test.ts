import { logLevel } from 'kafkajs';
import { describe, expect, test } from 'vitest';
import { filterTimeoutNegativeWarning, kafkaJsLogCreator, type Logger } from './logger.ts';

describe('kafkajs log bridge', () => {
  test('routes by level and keeps kafkajs fields as context', () => {
    const lines: [string, Record<string, unknown>, string | undefined][] = [];
    const record =
      (level: string) =>
      (context: Record<string, unknown>, message?: string): void => {
        lines.push([level, context, message]);
      };
    const logger: Logger = {
      debug: record('debug'),
      info: record('info'),
      warn: record('warn'),
      error: record('error'),
    };
    const log = kafkaJsLogCreator(logger)();
    log({
      namespace: 'Connection',
      level: logLevel.ERROR,
      label: 'ERROR',
      log: { timestamp: 'now', logger: 'kafkajs', message: 'Connection error', broker: '127.0.0.1:1' },
    });
    log({
      namespace: 'Runner',
      level: logLevel.WARN,
      label: 'WARN',
      log: { timestamp: 'now', logger: 'kafkajs', message: 'rejoin' },
    });
    expect(lines).toEqual([
      ['error', { component: 'kafkajs', namespace: 'Connection', broker: '127.0.0.1:1' }, 'Connection error'],
      ['warn', { component: 'kafkajs', namespace: 'Runner' }, 'rejoin'],
    ]);
  });
});

describe('TimeoutNegativeWarning filter', () => {
  test('drops exactly that warning and lets the others through', async () => {
    filterTimeoutNegativeWarning();
    const seen: string[] = [];
    const listener = (warning: Error) => seen.push(warning.name);
    process.on('warning', listener);
    try {
      process.emitWarning('-5 is a negative number.', 'TimeoutNegativeWarning');
      process.emitWarning('something else', 'RpTestWarning');
      await new Promise((resolve) => setImmediate(resolve));
      expect(seen).toEqual(['RpTestWarning']);
    } finally {
      process.off('warning', listener);
    }
  });
});
