import { readFileSync } from 'node:fs';
import { AppError } from './errors.ts';

const escapes: Readonly<Record<string, string>> = { n: '\n', r: '\r', t: '\t', '"': '"', '\\': '\\' };

/**
 * Parses dotenv text: `KEY=VALUE` lines, optional `export ` prefix, `#` comments (whole-line, or after
 * whitespace in an unquoted value), single quotes (literal) and double quotes (with \n, \t, \" and \\
 * escapes, may span lines). A line that is not an assignment is an error naming the line number only,
 * since the line may hold a secret.
 */
export function parseDotenv(text: string, source = 'dotenv'): Record<string, string> {
  const result: Record<string, string> = {};
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  for (let index = 0; index < lines.length; index++) {
    const lineNumber = index + 1;
    const line = lines[index]!.trim();
    if (line === '' || line.startsWith('#')) continue;
    const match = /^(?:export\s+)?([A-Za-z_][A-Za-z0-9_.-]*)\s*=\s*(.*)$/.exec(line);
    if (!match) {
      throw new AppError('CONFIG_INVALID', `${source}:${lineNumber}: expected KEY=VALUE`);
    }
    const key = match[1]!;
    let rest = match[2]!;
    const quote = rest[0];
    if (quote === "'") {
      const end = rest.indexOf("'", 1);
      if (end < 0) throw new AppError('CONFIG_INVALID', `${source}:${lineNumber}: unterminated quote`);
      result[key] = rest.slice(1, end);
    } else if (quote === '"') {
      let value = '';
      let position = 1;
      let closed = false;
      while (!closed) {
        if (position >= rest.length) {
          // A double-quoted value continues on the next line (PEM keys, for example).
          index++;
          if (index >= lines.length) {
            throw new AppError('CONFIG_INVALID', `${source}:${lineNumber}: unterminated quote`);
          }
          value += '\n';
          rest = lines[index]!;
          position = 0;
          continue;
        }
        const char = rest[position]!;
        if (char === '\\' && position + 1 < rest.length) {
          const next = rest[position + 1]!;
          value += escapes[next] ?? `\\${next}`;
          position += 2;
        } else if (char === '"') {
          closed = true;
        } else {
          value += char;
          position++;
        }
      }
      result[key] = value;
    } else {
      result[key] = rest.replace(/\s+#.*$/, '').trim();
    }
  }
  return result;
}

/** Reads a dotenv file; a missing file gives an empty record (the local stack may not be running). */
export function loadDotenv(path: string): Record<string, string> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw new AppError('CONFIG_INVALID', `Cannot read ${path}`, { cause: err });
  }
  return parseDotenv(text, path);
}

/**
 * Copies variables from a dotenv file into `env` where they are not already set, so the real
 * environment always wins. Returns the names that were filled in.
 */
export function applyDotenv(path: string, env: Record<string, string | undefined> = process.env): string[] {
  const applied: string[] = [];
  for (const [key, value] of Object.entries(loadDotenv(path))) {
    if (env[key] === undefined) {
      env[key] = value;
      applied.push(key);
    }
  }
  return applied;
}
