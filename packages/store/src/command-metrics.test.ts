import { createMetrics } from '@rp/runtime';
import { metricSample } from '@rp/testkit';
import { describe, expect, it } from 'vitest';
import { storeCommandMetrics, writeStatementsOf } from './command-metrics.ts';

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

  it("counts a write's statements by collection and command, only when it succeeded", async () => {
    const metrics = createMetrics({ service: 'store-test', defaultMetrics: false });
    const onCommand = storeCommandMetrics(metrics);
    const write = { databaseName: 'rp', durationMs: 1 };
    onCommand({ ...write, commandName: 'update', ok: true, collection: 'transactions', statements: 8 });
    onCommand({ ...write, commandName: 'update', ok: true, collection: 'transactions', statements: 3 });
    onCommand({ ...write, commandName: 'insert', ok: true, collection: 'transactions', statements: 2 });
    onCommand({ ...write, commandName: 'insert', ok: false, collection: 'debit_queue', statements: 5 });
    onCommand({ ...write, commandName: 'find', ok: true });

    const { body } = await metrics.render();
    const value = (labels: Record<string, string>) =>
      metricSample(body, 'rp_mongodb_write_statements_total', labels);
    expect(value({ collection: 'transactions', command: 'update' })).toBe(11);
    expect(value({ collection: 'transactions', command: 'insert' })).toBe(2);
    expect(value({ collection: 'debit_queue', command: 'insert' })).toBeUndefined();
  });
});

describe('writeStatementsOf', () => {
  it("reads a write command's collection and statements, and nothing of another command", () => {
    expect(writeStatementsOf('insert', { insert: 'debit_queue', documents: [{}, {}, {}] })).toEqual({
      collection: 'debit_queue',
      statements: 3,
    });
    expect(writeStatementsOf('update', { update: 'transactions', updates: [{}, {}], ordered: true })).toEqual(
      {
        collection: 'transactions',
        statements: 2,
      },
    );
    expect(writeStatementsOf('delete', { delete: 'idempotency_keys', deletes: [{}] })).toEqual({
      collection: 'idempotency_keys',
      statements: 1,
    });
    expect(writeStatementsOf('findAndModify', { findAndModify: 'event_lanes', query: {} })).toEqual({
      collection: 'event_lanes',
      statements: 1,
    });
    expect(writeStatementsOf('find', { find: 'transactions', filter: {} })).toBeUndefined();
    expect(writeStatementsOf('insert', { insert: 42, documents: [] })).toBeUndefined();
    expect(writeStatementsOf('toString', { toString: 'x' })).toBeUndefined();
  });
});
