import { existsSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { stripVTControlCharacters } from 'node:util';

export interface TestTotals {
  passed: number;
  failed: number;
  skipped: number;
  suites: string[];
  /** Each failed test (or test file that failed to load), so the end of a long log names them. */
  failures: TestFailure[];
}

export interface TestFailure {
  /** The test file, relative to the workspace root. */
  file: string;
  /** The test's full name, or undefined when the file itself failed (a hook or an import). */
  test: string | undefined;
  /** The first lines of the failure message. */
  message: string;
}

interface VitestJsonReport {
  numPassedTests?: number;
  numFailedTests?: number;
  numPendingTests?: number;
  numTodoTests?: number;
  numFailedTestSuites?: number;
  testResults?: {
    name: string;
    status: string;
    message?: string;
    assertionResults?: { fullName: string; status: string; failureMessages?: string[] }[];
  }[];
}

/** Lines of a failure message kept in the summary: enough for the assertion and its first frame. */
const messageLines = 4;

function firstLines(message: string | undefined): string {
  return stripVTControlCharacters(message ?? '')
    .split('\n')
    .map((line) => line.trimEnd())
    .filter((line) => line.trim() !== '')
    .slice(0, messageLines)
    .join('\n');
}

/**
 * Adds up the vitest JSON reports that each workspace wrote, so the suite ends with one plain
 * "N passed, N failed" line. A suite that failed to load counts as a failure, never as silence.
 */
export function collectTestTotals(workspaceDirs: readonly string[], root?: string): TestTotals {
  const totals: TestTotals = { passed: 0, failed: 0, skipped: 0, suites: [], failures: [] };
  for (const dir of workspaceDirs) {
    const file = join(dir, '.test-results', 'vitest.json');
    if (!existsSync(file)) continue;
    const report = JSON.parse(readFileSync(file, 'utf8')) as VitestJsonReport;
    totals.passed += report.numPassedTests ?? 0;
    totals.skipped += (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
    totals.suites.push(dir);
    // A failed test also fails its file and each describe around it (vitest counts those as failed
    // suites): a suite counts on its own only when it failed without a failed test (it did not load, a
    // hook failed).
    const failuresBefore = totals.failures.length;
    for (const result of report.testResults ?? []) {
      const file = root === undefined ? result.name : relative(root, result.name);
      const failedTests = (result.assertionResults ?? []).filter((test) => test.status === 'failed');
      for (const test of failedTests) {
        totals.failures.push({ file, test: test.fullName, message: firstLines(test.failureMessages?.[0]) });
      }
      if (result.status === 'failed' && failedTests.length === 0) {
        totals.failures.push({ file, test: undefined, message: firstLines(result.message) });
      }
    }
    const failedFiles = totals.failures.slice(failuresBefore).filter((failure) => failure.test === undefined);
    // A report without per-file results has only its count of failed suites to go by.
    totals.failed += (report.numFailedTests ?? 0) + failedFiles.length || (report.numFailedTestSuites ?? 0);
  }
  return totals;
}

/** The failures as a block for the end of the log: the file, the test and its message, indented. */
export function formatFailures(failures: readonly TestFailure[]): string {
  return failures
    .map(({ file, test, message }) => {
      const indented = message === '' ? '' : `\n${message.replace(/^/gm, '    ')}`;
      return `  ${file}${test === undefined ? ' (the file failed)' : ` > ${test}`}${indented}`;
    })
    .join('\n');
}

export function formatTotals(totals: TestTotals): string {
  const skipped = totals.skipped > 0 ? `, ${totals.skipped} skipped` : '';
  return `${totals.passed} passed, ${totals.failed} failed${skipped}`;
}
