#!/usr/bin/env node
import { stackCli } from './stack-cli.ts';

process.exitCode = await stackCli(process.argv.slice(2));
