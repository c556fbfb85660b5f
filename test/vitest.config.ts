import { mergeConfig } from 'vitest/config';
import { packageTestConfig } from '../vitest.shared.ts';

// Each file runs a whole pipeline (seven processes): one file at a time, so they never starve each other.
export default mergeConfig(packageTestConfig({ infra: true, timeoutMs: 300_000 }), {
  // On a failure, the setup file prints the services' last warnings and errors.
  test: { fileParallelism: false, setupFiles: ['src/failure-report.ts'] },
});
