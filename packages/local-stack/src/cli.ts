#!/usr/bin/env node
import { stackCli } from './stack-cli.ts';

// kafkajs 2.2.4 arms a timer with a negative delay on every request and Node 24 warns about it. The
// warning is harmless and would clutter every command's output; other warnings still print.
const printWarning = process.listeners('warning');
process.removeAllListeners('warning');
process.on('warning', (warning) => {
  if (warning.name === 'TimeoutNegativeWarning') return;
  for (const listener of printWarning) listener(warning);
});

process.exitCode = await stackCli(process.argv.slice(2));
