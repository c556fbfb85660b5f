import { spawnSync } from 'node:child_process';
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The Chromium the end-to-end test drives (found or installed by the global setup). */
    chromiumPath: string;
  }
}

/** Names of a Chromium-family browser on the PATH, Debian's first. */
const browserNames = ['chromium', 'chromium-browser', 'google-chrome-stable', 'google-chrome'];
/** Debian's package, and a font so that the screenshots have readable text. */
export const chromiumPackages = ['chromium', 'fonts-dejavu-core'];

function isExecutableFile(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/**
 * The Chromium to drive: `CHROMIUM_PATH` when set (it must be an executable file), else the first of
 * chromium, chromium-browser, google-chrome-stable, google-chrome on the PATH; undefined when none.
 */
export function findChromium(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const override = env.CHROMIUM_PATH?.trim();
  if (override) {
    if (!isExecutableFile(override)) throw new Error(`CHROMIUM_PATH=${override} is not an executable file`);
    return override;
  }
  const dirs = [...(env.PATH ?? '').split(delimiter).filter(Boolean), '/usr/bin', '/usr/local/bin'];
  for (const name of browserNames) {
    for (const dir of dirs) {
      const candidate = join(dir, name);
      if (isExecutableFile(candidate)) return candidate;
    }
  }
  return undefined;
}

function apt(args: string[], timeoutMs: number): { ok: boolean; output: string } {
  const result = spawnSync('apt-get', ['-o', 'DPkg::Lock::Timeout=600', ...args], {
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    encoding: 'utf8',
    timeout: timeoutMs,
    maxBuffer: 64 * 1024 * 1024,
  });
  const output = `${result.stdout ?? ''}${result.stderr ?? ''}${result.error ? String(result.error) : ''}`;
  return { ok: result.status === 0, output };
}

/**
 * Installs Debian's Chromium with apt (as root, as CI runs): `apt-get install -y chromium`, and when that
 * fails (no or stale package lists on a fresh machine) `apt-get update` and the install again. Does
 * nothing when a Chromium is already there, so it can run on every test run.
 */
export function ensureChromium(log: (line: string) => void = console.info): string {
  const found = findChromium();
  if (found) return found;
  if (process.getuid?.() !== 0) {
    throw new Error(
      'No Chromium found. Install one (Debian: sudo apt-get install -y chromium) or set CHROMIUM_PATH to its executable.',
    );
  }
  const started = Date.now();
  log(
    `chromium: not found; installing Debian's ${chromiumPackages.join(' ')} with apt-get (once per machine)`,
  );
  let install = apt(['install', '-y', '--no-install-recommends', ...chromiumPackages], 15 * 60_000);
  if (!install.ok) {
    log('chromium: apt-get install failed; updating the package lists and trying again');
    const update = apt(['update'], 10 * 60_000);
    if (!update.ok) throw new Error(`apt-get update failed:\n${update.output.slice(-4_000)}`);
    install = apt(['install', '-y', '--no-install-recommends', ...chromiumPackages], 15 * 60_000);
  }
  if (!install.ok)
    throw new Error(`apt-get install ${chromiumPackages.join(' ')} failed:\n${install.output.slice(-4_000)}`);
  const installed = findChromium();
  if (!installed) throw new Error('apt-get installed chromium, but no chromium executable is on the PATH');
  log(`chromium: installed ${installed} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return installed;
}

/** `Chromium 156.0.8078.79 built on Debian ...`, or why it cannot say. */
export function chromiumVersion(path: string): string {
  const result = spawnSync(path, ['--version'], { encoding: 'utf8', timeout: 30_000 });
  return (result.stdout || result.stderr || String(result.error ?? '')).trim();
}
