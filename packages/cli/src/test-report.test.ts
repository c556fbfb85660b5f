import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { collectTestTotals, formatTotals } from './test-report.ts';
import { repoRoot, workspaceDirs } from './workspace.ts';

function workspaceWithReport(report: object): string {
  const dir = mkdtempSync(join(tmpdir(), 'rp-report-'));
  mkdirSync(join(dir, '.test-results'));
  writeFileSync(join(dir, '.test-results', 'vitest.json'), JSON.stringify(report));
  return dir;
}

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

  test('mentions skipped tests only when there are some', () => {
    expect(formatTotals({ passed: 1, failed: 0, skipped: 2, suites: [] })).toBe(
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
