import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface TestTotals {
  passed: number;
  failed: number;
  skipped: number;
  suites: string[];
}

interface VitestJsonReport {
  numPassedTests?: number;
  numFailedTests?: number;
  numPendingTests?: number;
  numTodoTests?: number;
  numFailedTestSuites?: number;
}

/**
 * Adds up the vitest JSON reports that each workspace wrote, so the suite ends with one plain
 * "N passed, N failed" line. A suite that failed to load counts as a failure, never as silence.
 */
export function collectTestTotals(workspaceDirs: readonly string[]): TestTotals {
  const totals: TestTotals = { passed: 0, failed: 0, skipped: 0, suites: [] };
  for (const dir of workspaceDirs) {
    const file = join(dir, '.test-results', 'vitest.json');
    if (!existsSync(file)) continue;
    const report = JSON.parse(readFileSync(file, 'utf8')) as VitestJsonReport;
    totals.passed += report.numPassedTests ?? 0;
    totals.failed += (report.numFailedTests ?? 0) + (report.numFailedTestSuites ?? 0);
    totals.skipped += (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
    totals.suites.push(dir);
  }
  return totals;
}

export function formatTotals(totals: TestTotals): string {
  const skipped = totals.skipped > 0 ? `, ${totals.skipped} skipped` : '';
  return `${totals.passed} passed, ${totals.failed} failed${skipped}`;
}
