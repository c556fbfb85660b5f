import { randomBytes } from 'node:crypto';

let counter = 0;
const runId = `${process.pid.toString(36)}${Date.now().toString(36).slice(-4)}`;

/**
 * A name no other test (in this run or a parallel one) uses: for topics, consumer groups and databases.
 * Only [a-z0-9-] so it is valid everywhere (MongoDB database names forbid '.', and stay under 64 bytes).
 */
export function uniqueName(prefix: string): string {
  counter += 1;
  const clean = prefix
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .slice(0, 30);
  return `${clean}-${runId}-${counter.toString(36)}${randomBytes(2).toString('hex')}`;
}
