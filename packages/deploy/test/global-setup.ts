import { ensureTools } from '../src/tools.ts';

/**
 * Fetches and builds the offline toolchain once per run, before the test files start in parallel: the
 * first run on a fresh machine builds kustomize, kubeconform and promtool with Go and generates the schemas
 * (three to six minutes, mostly promtool's modules); later runs find everything in
 * ~/.cache/regulated-payments/deploy.
 */
export default async function setup(): Promise<void> {
  const started = Date.now();
  let fetched = false;
  await ensureTools((line) => {
    fetched = true;
    console.log(`deploy: ${line}`);
  });
  if (fetched) console.log(`deploy: toolchain ready in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}
