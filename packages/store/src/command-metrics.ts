import { type Metrics, roundTripBuckets } from '@rp/runtime';
import type { CommandFailedEvent, CommandSucceededEvent, MongoClient } from 'mongodb';
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
  return (event) => {
    commands.inc({ command: event.commandName, outcome: event.ok ? 'ok' : 'failed' });
    duration.observe({ command: event.commandName }, event.durationMs / 1000);
  };
}

/**
 * Feeds a client's completed commands to `onCommand` (the client needs `monitorCommands`, which
 * `storeClientOptions` turns on when the options carry an `onCommand`).
 */
export function watchCommands(client: MongoClient, onCommand: (event: StoreCommandEvent) => void): void {
  const report = (event: CommandSucceededEvent | CommandFailedEvent, ok: boolean) =>
    onCommand({
      commandName: event.commandName,
      databaseName: event.databaseName,
      durationMs: event.duration,
      ok,
    });
  client.on('commandSucceeded', (event) => report(event, true));
  client.on('commandFailed', (event) => report(event, false));
}
