import { accessSync, constants, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { StackError } from './errors.ts';

export interface JdkCandidate {
  home: string;
  /** Contents of `<home>/release`, where a JDK states its JAVA_VERSION. */
  release: string;
}

/** The major version in a JDK's release file: `JAVA_VERSION="25.0.3"` gives 25, `"1.8.0_402"` gives 8. */
export function javaMajorVersion(release: string): number | undefined {
  const match = /^JAVA_VERSION="?([\d._]+)/m.exec(release);
  if (!match?.[1]) return undefined;
  const parts = match[1].split('.');
  const first = Number(parts[0]);
  if (first === 1 && parts[1] !== undefined) return Number(parts[1]);
  return Number.isFinite(first) ? first : undefined;
}

/** The newest candidate at `minimum` or above; on a tie, the later name (a newer update) wins. */
export function pickNewestJdk(candidates: readonly JdkCandidate[], minimum: number): string | undefined {
  let best: { home: string; major: number } | undefined;
  for (const candidate of candidates) {
    const major = javaMajorVersion(candidate.release);
    if (major === undefined || major < minimum) continue;
    if (!best || major > best.major || (major === best.major && candidate.home > best.home)) {
      best = { home: candidate.home, major };
    }
  }
  return best?.home;
}

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * The registry needs Java 21 or newer while the machine's default `java` may be older. RP_JAVA21_HOME
 * wins; otherwise the newest JDK in the system's JVM folder that is new enough.
 */
export function findJavaHome(minimum: number, env: NodeJS.ProcessEnv, jvmDir = '/usr/lib/jvm'): string {
  const explicit = env.RP_JAVA21_HOME?.trim();
  if (explicit) {
    if (!executable(join(explicit, 'bin', 'java'))) {
      throw new StackError('tool_missing', `RP_JAVA21_HOME=${explicit} has no bin/java`);
    }
    return explicit;
  }
  let names: string[] = [];
  try {
    names = readdirSync(jvmDir);
  } catch {
    // No JVM folder: reported below with the same message as an empty one.
  }
  const candidates: JdkCandidate[] = [];
  for (const name of names) {
    const home = join(jvmDir, name);
    if (!executable(join(home, 'bin', 'java'))) continue;
    try {
      candidates.push({ home, release: readFileSync(join(home, 'release'), 'utf8') });
    } catch {
      // A JVM folder without a release file cannot tell its version; skip it.
    }
  }
  const home = pickNewestJdk(candidates, minimum);
  if (!home) {
    throw new StackError(
      'tool_missing',
      `no JDK ${minimum} or newer in ${jvmDir}; install one (e.g. Temurin 21+) or set RP_JAVA21_HOME`,
    );
  }
  return home;
}
