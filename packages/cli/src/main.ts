#!/usr/bin/env node
import { stackCli } from '@rp/local-stack';
import { demoCommand } from './commands/demo.ts';
import { deliveriesCommand, replayCommand } from './commands/events.ts';
import { deadLettersCommand, reconCommand, sendCommand } from './commands/ops.ts';
import { testCommand } from './commands/test.ts';
import { repoRoot } from './workspace.ts';

const usage = `rp: operate the regulated payments pipeline

  rp demo               bring up the local stack and the pipeline, send a debit, show its journey
  rp test [package...]  run the whole test suite (lint, generated files, types, unit and integration)
  rp stack <command>    local stack: up | down | reset | status | logs [component] | env
  rp send [--count <n>] [--concurrency <c>]
                        send sample on-us debits to the ingress, with a progress bar
  rp recon [--window <YYYY-MM-DD>] [--csv]
                        a debit window's reconciliation report (the scheduler's)
  rp dead-letters [<topic>] [--redrive <id,...> | --all] [--operator <name>]
                        the consumer groups' dead-letter topics, their records, and redrive (the tracker's)
  rp replay --bank <memberId> (--uetr <uuid> | --from <time> --to <time>) [--url <event-publisher>]
                        deliver a bank's event postings again, with their original event ids
  rp deliveries <eventId> [--url <event-publisher>]
                        an event posting's delivery log: per bank, its attempts, status codes and latency

  Each talks to one service: --url, else its variable (INGRESS_URL, SCHEDULER_URL, TRACKER_URL,
  EVENT_PUBLISHER_URL), else its local port; rp <command> --help for the details
`;

async function main(argv: readonly string[]): Promise<number> {
  const [command, ...rest] = argv;
  const root = repoRoot();
  switch (command) {
    case 'demo':
      return demoCommand(root);
    case 'test':
      return testCommand(root, rest);
    case 'stack':
      return stackCli(rest);
    case 'send':
      return sendCommand(root, rest);
    case 'recon':
      return reconCommand(rest);
    case 'dead-letters':
      return deadLettersCommand(rest);
    case 'replay':
      return replayCommand(rest);
    case 'deliveries':
      return deliveriesCommand(rest);
    case undefined:
    case 'help':
    case '--help':
      process.stdout.write(usage);
      return 0;
    default:
      process.stderr.write(`rp: unknown command "${command}"\n\n${usage}`);
      return 2;
  }
}

process.exitCode = await main(process.argv.slice(2));
