import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { lastLines } from '@rp/local-stack';
import { beforeEach } from 'vitest';

/**
 * When an end-to-end test fails, what the processes said last: the warnings and errors at the end of
 * each service's log and of the local stack's MongoDB-compatible server. A failure seen only in CI then
 * carries its own evidence.
 */

/** Log directories of the pipelines running now (registered by `startEndToEnd`). */
export const runningLogDirs = new Set<string>();

const stackLogs = join(import.meta.dirname, '..', '..', '.local', 'stack', 'logs');

/** How much of each log's end is searched for warnings and errors. */
const tailBytes = 256 * 1024;

const serious = /"level":"(warn|error|fatal)"|\tERROR\t|\tWARN\t|\bFATAL\b|\bPANIC\b/;
const clip = (line: string) => (line.length > 400 ? `${line.slice(0, 400)}…` : line);

export function reportFailureContext(): void {
  const sections: string[] = [];
  for (const dir of runningLogDirs) {
    if (!existsSync(dir)) continue;
    for (const name of readdirSync(dir)
      .filter((file) => file.endsWith('.log'))
      .sort()) {
      const lines = lastLines(join(dir, name), tailBytes)
        .filter((line) => serious.test(line))
        .slice(-8);
      if (lines.length > 0)
        sections.push(`-- ${name}, last warnings and errors:\n${lines.map(clip).join('\n')}`);
    }
  }
  const ferretdb = join(stackLogs, 'ferretdb.log');
  if (existsSync(ferretdb)) {
    const lines = lastLines(ferretdb, tailBytes)
      .filter((line) => serious.test(line) && !line.includes('duplicate key'))
      .slice(-8);
    if (lines.length > 0) sections.push(`-- local stack ferretdb.log:\n${lines.map(clip).join('\n')}`);
  }
  if (sections.length > 0) console.error(`what the processes said last:\n${sections.join('\n')}`);
}

beforeEach(({ onTestFailed }) => {
  onTestFailed(() => reportFailureContext());
});
