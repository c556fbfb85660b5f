import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root: the nearest folder up from here whose package.json declares workspaces. */
export function repoRoot(from: string = dirname(fileURLToPath(import.meta.url))): string {
  let dir = from;
  for (;;) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest) && 'workspaces' in JSON.parse(readFileSync(manifest, 'utf8'))) return dir;
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`no workspace root above ${from}`);
    dir = parent;
  }
}

/** Folders of every workspace package, expanding the `dir/*` patterns of the root manifest. */
export function workspaceDirs(root: string): string[] {
  const { workspaces } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
    workspaces: string[];
  };
  return workspaces.flatMap((pattern) => {
    if (!pattern.endsWith('/*'))
      return existsSync(join(root, pattern, 'package.json')) ? [join(root, pattern)] : [];
    const parent = join(root, pattern.slice(0, -2));
    if (!existsSync(parent)) return [];
    return readdirSync(parent, { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && existsSync(join(parent, entry.name, 'package.json')))
      .map((entry) => join(parent, entry.name));
  });
}
