import { fileURLToPath } from 'node:url';
import { mergeConfig } from 'vitest/config';
import { packageTestConfig } from '../../vitest.shared.ts';

// The end-to-end test drives the page in a real headless Chromium: the global setup finds one (or
// installs Debian's package) once per run. Unit-only runs (RP_TEST_INFRA=none) need neither.
const withInfra = process.env.RP_TEST_INFRA !== 'none';
const chromiumSetup = fileURLToPath(new URL('./test/chromium-setup.ts', import.meta.url));

export default mergeConfig(packageTestConfig({ infra: true, timeoutMs: 300_000 }), {
  test: { globalSetup: withInfra ? [chromiumSetup] : [] },
});
