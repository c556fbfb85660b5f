/**
 * A small Dockerfile reader for static checks: instructions (continuations joined, comments dropped),
 * build stages, COPY and exec-form arguments, and .dockerignore matching. No Docker engine needed.
 */

export interface Instruction {
  /** Upper-case keyword: FROM, RUN, COPY, ... */
  readonly keyword: string;
  /** Everything after the keyword, continuation lines joined with a space. */
  readonly args: string;
  /** 1-based line of the keyword. */
  readonly line: number;
}

export interface Stage {
  /** The image as written (ARGs not substituted). */
  readonly from: string;
  readonly name: string | undefined;
  readonly instructions: readonly Instruction[];
}

export interface Dockerfile {
  /** ARG instructions before the first FROM (the only ones FROM lines may use). */
  readonly globalArgs: Readonly<Record<string, string | undefined>>;
  readonly stages: readonly Stage[];
  readonly instructions: readonly Instruction[];
}

/** Splits a Dockerfile into instructions: `\` continues a line, `#` lines are comments (also inside one). */
export function parseInstructions(text: string): Instruction[] {
  const lines = text.split(/\r?\n/);
  const instructions: Instruction[] = [];
  let current: { keyword: string; parts: string[]; line: number } | undefined;
  lines.forEach((raw, index) => {
    const trimmed = raw.trim();
    if (trimmed.startsWith('#')) return;
    if (current === undefined) {
      if (trimmed === '') return;
      const match = /^(\S+)\s*(.*)$/.exec(trimmed);
      if (!match) return;
      current = { keyword: (match[1] as string).toUpperCase(), parts: [], line: index + 1 };
      const rest = match[2] as string;
      if (!rest.endsWith('\\')) {
        instructions.push({ keyword: current.keyword, args: rest, line: current.line });
        current = undefined;
      } else current.parts.push(rest.slice(0, -1).trim());
      return;
    }
    if (trimmed === '') return;
    if (trimmed.endsWith('\\')) current.parts.push(trimmed.slice(0, -1).trim());
    else {
      current.parts.push(trimmed);
      instructions.push({
        keyword: current.keyword,
        args: current.parts.join(' ').trim(),
        line: current.line,
      });
      current = undefined;
    }
  });
  if (current !== undefined)
    throw new Error(`line ${current.line}: the file ends inside a continued instruction`);
  return instructions;
}

export function parseDockerfile(text: string): Dockerfile {
  const instructions = parseInstructions(text);
  const globalArgs: Record<string, string | undefined> = {};
  const stages: { from: string; name: string | undefined; instructions: Instruction[] }[] = [];
  for (const instruction of instructions) {
    if (instruction.keyword === 'FROM') {
      const words = instruction.args.split(/\s+/).filter((word) => !word.startsWith('--'));
      const [from, as, name] = words;
      if (!from) throw new Error(`line ${instruction.line}: FROM without an image`);
      if (as !== undefined && (as.toUpperCase() !== 'AS' || !name)) {
        throw new Error(`line ${instruction.line}: expected FROM <image> [AS <name>]`);
      }
      stages.push({ from, name, instructions: [] });
    } else if (stages.length === 0) {
      if (instruction.keyword !== 'ARG')
        throw new Error(`line ${instruction.line}: ${instruction.keyword} before FROM`);
      const [name, value] = instruction.args.split('=', 2) as [string, string | undefined];
      globalArgs[name.trim()] = value?.trim();
    } else stages.at(-1)?.instructions.push(instruction);
  }
  return { globalArgs, stages, instructions };
}

/** `${NAME}` and `$NAME` replaced from `args`; an unknown name is an error. */
export function substitute(value: string, args: Readonly<Record<string, string | undefined>>): string {
  return value.replace(/\$\{(\w+)\}|\$(\w+)/g, (_, braced: string | undefined, bare: string | undefined) => {
    const name = (braced ?? bare) as string;
    const replacement = args[name];
    if (replacement === undefined) throw new Error(`\${${name}} has no value`);
    return replacement;
  });
}

export interface Copy {
  readonly from: string | undefined;
  readonly flags: Readonly<Record<string, string>>;
  readonly sources: readonly string[];
  readonly destination: string;
}

/** The flags, sources and destination of a COPY (shell or JSON form). */
export function parseCopy(instruction: Instruction): Copy {
  const flags: Record<string, string> = {};
  let rest = instruction.args;
  for (;;) {
    const match = /^--([\w-]+)(?:=(\S+))?\s+/.exec(rest);
    if (!match) break;
    flags[match[1] as string] = match[2] ?? 'true';
    rest = rest.slice(match[0].length);
  }
  const paths = rest.trimStart().startsWith('[')
    ? (JSON.parse(rest) as string[])
    : rest.split(/\s+/).filter(Boolean);
  if (paths.length < 2) throw new Error(`line ${instruction.line}: COPY needs a source and a destination`);
  return {
    from: flags.from,
    flags,
    sources: paths.slice(0, -1),
    destination: paths.at(-1) as string,
  };
}

/** The argument list of an exec-form (JSON array) ENTRYPOINT or CMD; undefined for the shell form. */
export function execForm(instruction: Instruction): string[] | undefined {
  if (!instruction.args.trimStart().startsWith('[')) return undefined;
  const value: unknown = JSON.parse(instruction.args);
  if (!Array.isArray(value) || !value.every((item) => typeof item === 'string')) {
    throw new Error(`line ${instruction.line}: not a JSON array of strings`);
  }
  return value;
}

interface IgnoreRule {
  readonly negate: boolean;
  readonly pattern: RegExp;
}

function globToRegExp(glob: string): RegExp {
  let source = '';
  for (let i = 0; i < glob.length; i++) {
    const char = glob[i] as string;
    if (char === '*') {
      if (glob[i + 1] === '*') {
        // `**/` matches any number of folders (also none); a trailing `**` anything.
        if (glob[i + 2] === '/') {
          source += '(?:.*/)?';
          i += 2;
        } else {
          source += '.*';
          i += 1;
        }
      } else source += '[^/]*';
    } else if (char === '?') source += '[^/]';
    else if (char === '[') {
      const end = glob.indexOf(']', i + 1);
      if (end === -1) source += '\\[';
      else {
        source += `[${glob
          .slice(i + 1, end)
          .replace(/^!/, '^')
          .replace(/\\/g, '\\\\')}]`;
        i = end;
      }
    } else source += char.replace(/[.+^${}()|\\]/g, '\\$&');
  }
  return new RegExp(`^${source}$`);
}

/** The rules of a .dockerignore file. */
export function parseDockerignore(text: string): IgnoreRule[] {
  return text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      const negate = line.startsWith('!');
      const pattern = (negate ? line.slice(1) : line).trim().replace(/^\/+/, '').replace(/\/+$/, '');
      return { negate, pattern: globToRegExp(pattern) };
    });
}

/**
 * Whether a path (relative to the context, `/`-separated) is left out of the build context: the last rule
 * matching the path or one of its parent folders decides, as in Docker.
 */
export function isIgnored(path: string, rules: readonly IgnoreRule[]): boolean {
  const parts = path.replace(/^\.\//, '').split('/').filter(Boolean);
  const prefixes = parts.map((_, index) => parts.slice(0, index + 1).join('/'));
  let ignored = false;
  for (const rule of rules) {
    if (prefixes.some((prefix) => rule.pattern.test(prefix))) ignored = !rule.negate;
  }
  return ignored;
}
