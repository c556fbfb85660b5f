import { AppError } from '@rp/runtime';
import type { TableProblem } from './csv.ts';

/**
 * A parameter or branch file failed validation (or could not be read). `problems` lists every problem
 * found, each with its file and line, so an operator can fix a file in one pass.
 */
export class CdvTableError extends AppError {
  readonly problems: readonly TableProblem[];

  constructor(problems: readonly TableProblem[], dropped = 0, cause?: unknown) {
    const lines = problems.map((p) => `  ${p.file}${p.line > 0 ? `:${p.line}` : ''}: ${p.message}`);
    if (dropped > 0) lines.push(`  ... and ${dropped} more`);
    const total = problems.length + dropped;
    super(
      'CONFIG_INVALID',
      `CDV tables rejected (${total} problem${total === 1 ? '' : 's'}):\n${lines.join('\n')}`,
      cause === undefined ? {} : { cause },
    );
    this.problems = problems;
  }
}
