import { type Metrics, roundTripBuckets } from '@rp/runtime';
import type { CommandFailedEvent, CommandStartedEvent, CommandSucceededEvent, MongoClient } from 'mongodb';
import type { StoreCommandEvent } from './store.ts';

/**
 * A service's MongoDB commands, counted and timed by command name (`insert`, `update`, `find`, ...):
 * the `onCommand` of `connectStore`. What a service writes per message is the rate of its write
 * commands over the rate of its messages; the round trips say how the server is doing.
 */
export function storeCommandMetrics(metrics: Metrics): (event: StoreCommandEvent) => void {
  const commands = metrics.counter(
    'rp_mongodb_commands_total',
    'MongoDB commands completed, by command name and outcome',
    ['command', 'outcome'],
  );
  const duration = metrics.histogram(
    'rp_mongodb_command_duration_seconds',
    'Round trip of a MongoDB command, by command name',
    ['command'],
    { buckets: roundTripBuckets },
  );
  const statements = metrics.counter(
    'rp_mongodb_write_statements_total',
    "Statements of the write commands MongoDB completed (an insert's documents, an update's or a delete's statements, a findAndModify), by collection and command",
    ['collection', 'command'],
  );
  return (event) => {
    commands.inc({ command: event.commandName, outcome: event.ok ? 'ok' : 'failed' });
    duration.observe({ command: event.commandName }, event.durationMs / 1000);
    if (event.ok && event.collection !== undefined && event.statements !== undefined)
      statements.inc({ collection: event.collection, command: event.commandName }, event.statements);
  };
}

/** Where a write command keeps its statements, by command name. */
const statementFields: Readonly<Record<string, string | undefined>> = {
  insert: 'documents',
  update: 'updates',
  delete: 'deletes',
  findAndModify: undefined,
};

/** A started write command's collection and statements; undefined for any other command. */
export function writeStatementsOf(
  commandName: string,
  command: Readonly<Record<string, unknown>>,
): { collection: string; statements: number } | undefined {
  if (!Object.hasOwn(statementFields, commandName)) return undefined;
  const collection = command[commandName];
  if (typeof collection !== 'string') return undefined;
  const field = statementFields[commandName];
  if (field === undefined) return { collection, statements: 1 };
  const list = command[field];
  return { collection, statements: Array.isArray(list) ? list.length : 0 };
}

/** Write commands started and not completed yet, past which the oldest are forgotten. */
const startedWritesKept = 10_000;

/**
 * Feeds a client's completed commands to `onCommand` (the client needs `monitorCommands`, which
 * `storeClientOptions` turns on when the options carry an `onCommand`).
 */
export function watchCommands(client: MongoClient, onCommand: (event: StoreCommandEvent) => void): void {
  // A write's collection and statements are in the command, which only its start carries.
  const writes = new Map<number, { collection: string; statements: number }>();
  client.on('commandStarted', (event: CommandStartedEvent) => {
    const write = writeStatementsOf(event.commandName, event.command);
    if (write === undefined) return;
    if (writes.size >= startedWritesKept) writes.delete(writes.keys().next().value as number);
    writes.set(event.requestId, write);
  });
  const report = (event: CommandSucceededEvent | CommandFailedEvent, ok: boolean) => {
    const write = writes.get(event.requestId);
    if (write !== undefined) writes.delete(event.requestId);
    onCommand({
      commandName: event.commandName,
      databaseName: event.databaseName,
      durationMs: event.duration,
      ok,
      ...write,
    });
  };
  client.on('commandSucceeded', (event) => report(event, true));
  client.on('commandFailed', (event) => report(event, false));
}
