import { randomBytes } from 'node:crypto';

/** Where the test setup hands its run's mark to the workers. */
export const testRunVariable = 'RP_TEST_RUN';

/** A run's mark: five letters and digits, random. */
export function newRunMark(): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';
  return Array.from(randomBytes(5), (byte) => alphabet[byte % alphabet.length]).join('');
}

/**
 * Whether a topic, group or database name was made by `uniqueName` in the run of this mark (a database
 * name may have its dashes turned into underscores).
 */
export function madeInRun(name: string, runMark: string): boolean {
  return name.includes(`-${runMark}`) || name.includes(`_${runMark}`);
}

let counter = 0;
/**
 * The test run's mark (`RP_TEST_RUN`, which the test setup sets for its workers) and this process's id:
 * every name made here carries the mark, so that the setup drops what the run created once it ends.
 * Without a mark (a program outside a test run), the time in its place.
 */
const mark = process.env[testRunVariable];
const runId = `${mark ?? Date.now().toString(36).slice(-4)}${process.pid.toString(36)}`;

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
