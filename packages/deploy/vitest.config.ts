import { mergeConfig } from 'vitest/config';
import { packageTestConfig } from '../../vitest.shared.ts';

// The global setup fetches and builds the offline toolchain (kustomize, kubeconform, promtool, the schemas)
// once per run, before the test files start in parallel; it is cached under ~/.cache/regulated-payments/deploy.
export default mergeConfig(packageTestConfig({ timeoutMs: 120_000 }), {
  test: { globalSetup: ['./test/global-setup.ts'] },
});
