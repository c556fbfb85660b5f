import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { collectTestTotals, formatFailures, formatTotals } from './test-report.ts';
import { repoRoot, workspaceDirs } from './workspace.ts';

function workspaceWithReport(report: object): string {
  const dir = mkdtempSync(join(tmpdir(), 'rp-report-'));
  mkdirSync(join(dir, '.test-results'));
  writeFileSync(join(dir, '.test-results', 'vitest.json'), JSON.stringify(report));
  return dir;
}

/** A file whose tests did not run: its hook failed. */
const hookTimedOut = {
  name: '/repo/services/b/src/b.test.ts',
  status: 'failed',
  message: 'Hook timed out',
  assertionResults: [],
};

describe('collectTestTotals', () => {
  test('adds up every package and counts suites that failed to load as failures', () => {
    const a = workspaceWithReport({ numPassedTests: 10, numFailedTests: 1, numPendingTests: 0 });
    const b = workspaceWithReport({ numPassedTests: 5, numFailedTests: 0, numFailedTestSuites: 1 });
    const none = mkdtempSync(join(tmpdir(), 'rp-report-'));
    const totals = collectTestTotals([a, b, none]);
    expect(totals).toMatchObject({ passed: 15, failed: 2, skipped: 0 });
    expect(totals.suites).toEqual([a, b]);
    expect(formatTotals(totals)).toBe('15 passed, 2 failed');
  });

  test('counts a failed test once, not again for its file and the describe around it', () => {
    const a = workspaceWithReport({
      numPassedTests: 5,
      numFailedTests: 1,
      numFailedTestSuites: 2,
      testResults: [
        {
          name: '/repo/services/a/test/a.int.test.ts',
          status: 'failed',
          message: '',
          assertionResults: [{ fullName: 'a > delivers', status: 'failed', failureMessages: ['expected'] }],
        },
      ],
    });
    const b = workspaceWithReport({
      numPassedTests: 2,
      numFailedTests: 0,
      numFailedTestSuites: 1,
      testResults: [hookTimedOut],
    });
    const totals = collectTestTotals([a, b], '/repo');
    expect(formatTotals(totals)).toBe('7 passed, 2 failed');
    expect(totals.failures.map((failure) => failure.test)).toEqual(['a > delivers', undefined]);
  });

  test('names each failed test and each file that failed to load, with the first lines of its message', () => {
    const a = workspaceWithReport({
      numPassedTests: 1,
      numFailedTests: 1,
      testResults: [
        {
          name: '/repo/services/a/test/a.int.test.ts',
          status: 'failed',
          message: '',
          assertionResults: [
            { fullName: 'a passes', status: 'passed', failureMessages: [] },
            {
              fullName: 'a > delivers in order',
              status: 'failed',
              failureMessages: [
                '\u001b[31mAssertionError\u001b[39m: expected 1 to be 2\n\n    at one\n    at two\n    at three\n    at four',
              ],
            },
          ],
        },
      ],
    });
    const b = workspaceWithReport({
      numFailedTestSuites: 1,
      testResults: [
        hookTimedOut,
        { name: '/repo/services/b/src/c.test.ts', status: 'passed', message: '', assertionResults: [] },
      ],
    });
    const { failures } = collectTestTotals([a, b], '/repo');
    expect(failures).toEqual([
      {
        file: 'services/a/test/a.int.test.ts',
        test: 'a > delivers in order',
        message: 'AssertionError: expected 1 to be 2\n    at one\n    at two\n    at three',
      },
      { file: 'services/b/src/b.test.ts', test: undefined, message: 'Hook timed out' },
    ]);
    expect(formatFailures(failures)).toBe(
      [
        '  services/a/test/a.int.test.ts > a > delivers in order',
        '    AssertionError: expected 1 to be 2',
        '        at one',
        '        at two',
        '        at three',
        '  services/b/src/b.test.ts (the file failed)',
        '    Hook timed out',
      ].join('\n'),
    );
  });

  test('mentions skipped tests only when there are some', () => {
    expect(formatTotals({ passed: 1, failed: 0, skipped: 2, suites: [], failures: [] })).toBe(
      '1 passed, 0 failed, 2 skipped',
    );
  });
});

describe('workspace', () => {
  test('finds the root and every workspace package, this one included', () => {
    const root = repoRoot();
    const dirs = workspaceDirs(root);
    expect(dirs).toContain(join(root, 'packages', 'cli'));
    expect(dirs).toContain(join(root, 'packages', 'testkit'));
  });
});
