import type { TestProject } from 'vitest/node';
import { chromiumVersion, ensureChromium } from './chromium.ts';

/**
 * vitest globalSetup: finds the Chromium the end-to-end test drives (CHROMIUM_PATH, else the PATH), or
 * installs Debian's package when there is none, once per test run, and hands its path to the tests.
 */
export default function setup(project: TestProject): void {
  const started = Date.now();
  const path = ensureChromium();
  console.info(`chromium: ${path} (${chromiumVersion(path)}), ready in ${Date.now() - started} ms`);
  project.provide('chromiumPath', path);
}
