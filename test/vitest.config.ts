import { mergeConfig } from 'vitest/config';
import { packageTestConfig } from '../vitest.shared.ts';

// Each file runs a whole pipeline (seven processes): one file at a time, so they never starve each other.
export default mergeConfig(packageTestConfig({ infra: true, timeoutMs: 300_000 }), {
  // On a failure, the first setup file prints the services' last warnings and errors; the second starts
  // no test that midnight in Johannesburg (its reconciliation close) would cut short.
  test: { fileParallelism: false, setupFiles: ['src/failure-report.ts', 'src/day-end.ts'] },
});
