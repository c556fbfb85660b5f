/** One problem found in a table file, located by its 1-based line number (0 when it concerns the file). */
export interface TableProblem {
  readonly file: string;
  readonly line: number;
  readonly message: string;
}

/** Collects problems for one file; stops recording after `limit` so a garbage file cannot flood a log. */
export class ProblemList {
  readonly file: string;
  readonly problems: TableProblem[] = [];
  readonly limit: number;
  dropped = 0;

  constructor(file: string, limit = 100) {
    this.file = file;
    this.limit = limit;
  }

  add(line: number, message: string): void {
    if (this.problems.length >= this.limit) {
      this.dropped++;
      return;
    }
    this.problems.push({ file: this.file, line, message });
  }

  get count(): number {
    return this.problems.length + this.dropped;
  }
}

export interface CsvRecord {
  readonly line: number;
  readonly fields: readonly string[];
}

export interface CsvDocument {
  readonly metadata: ReadonlyMap<string, string>;
  readonly records: readonly CsvRecord[];
}

const metadataPattern = /^#\s*([a-z][a-z0-9-]*)\s*:\s*(.*?)\s*$/;
const datePattern = /^(\d{4})-(\d{2})-(\d{2})$/;

/** Metadata every table file declares before its header row. */
export const requiredMetadata = ['format', 'name', 'version', 'effective'] as const;

/**
 * Reads the shared layout of both table files:
 *
 *     # format: rp-cdv-parameters/1
 *     # name: ...
 *     # version: ...
 *     # effective: 2025-07-01
 *     column_a,column_b,...
 *     value,value,...
 *
 * `# key: value` lines before the header are metadata; other lines starting with `#` and blank lines are
 * ignored anywhere. Fields are separated by commas, may be double-quoted (a doubled quote inside quotes is
 * a literal quote), and are trimmed. Problems go to `problems`; the result holds whatever could be read.
 */
export function readCsvDocument(
  text: string,
  expected: { readonly format: string; readonly header: readonly string[] },
  problems: ProblemList,
): CsvDocument {
  const metadata = new Map<string, string>();
  const records: CsvRecord[] = [];
  const lines = stripByteOrderMark(text).split(/\r?\n/);
  let headerSeen = false;
  let dataLines = 0;

  for (let index = 0; index < lines.length; index++) {
    const line = index + 1;
    const raw = lines[index]!;
    if (raw.trim() === '') continue;
    if (raw.startsWith('#')) {
      if (headerSeen) continue;
      const match = metadataPattern.exec(raw);
      if (match === null) continue;
      const key = match[1]!;
      if (metadata.has(key)) {
        problems.add(line, `metadata '${key}' is given twice`);
        continue;
      }
      metadata.set(key, match[2]!);
      continue;
    }
    if (headerSeen) dataLines++;
    const fields = splitCsvLine(raw);
    if (typeof fields === 'string') {
      problems.add(line, fields);
      continue;
    }
    if (!headerSeen) {
      headerSeen = true;
      checkMetadata(metadata, expected.format, line, problems);
      if (fields.join(',') !== expected.header.join(',')) {
        problems.add(line, `header must be '${expected.header.join(',')}', got '${fields.join(',')}'`);
      }
      continue;
    }
    if (fields.length !== expected.header.length) {
      problems.add(line, `expected ${expected.header.length} fields, got ${fields.length}`);
      continue;
    }
    records.push({ line, fields });
  }

  if (!headerSeen) {
    checkMetadata(metadata, expected.format, 1, problems);
    problems.add(0, `no header row '${expected.header.join(',')}' found`);
  } else if (dataLines === 0) {
    problems.add(0, 'file has no data rows');
  }
  return { metadata, records };
}

function checkMetadata(
  metadata: ReadonlyMap<string, string>,
  expectedFormat: string,
  headerLine: number,
  problems: ProblemList,
): void {
  for (const key of requiredMetadata) {
    const value = metadata.get(key);
    if (value === undefined || value === '') {
      problems.add(headerLine, `metadata '# ${key}: ...' is missing before the header row`);
    }
  }
  const format = metadata.get('format');
  if (format !== undefined && format !== '' && format !== expectedFormat) {
    problems.add(headerLine, `format must be '${expectedFormat}', got '${format}'`);
  }
  const effective = metadata.get('effective');
  if (effective !== undefined && effective !== '' && !isCalendarDate(effective)) {
    problems.add(headerLine, `effective must be a date YYYY-MM-DD, got '${effective}'`);
  }
}

export function isCalendarDate(text: string): boolean {
  const match = datePattern.exec(text);
  if (match === null) return false;
  const year = Number(match[1]);
  const month = Number(match[2]);
  const day = Number(match[3]);
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

/** Splits one CSV line; returns a problem message when quoting is broken. */
export function splitCsvLine(line: string): string[] | string {
  const fields: string[] = [];
  let index = 0;
  for (;;) {
    while (line[index] === ' ' || line[index] === '\t') index++;
    if (line[index] === '"') {
      let value = '';
      index++;
      for (;;) {
        if (index >= line.length) return 'unterminated quoted field';
        const character = line[index]!;
        if (character === '"') {
          if (line[index + 1] === '"') {
            value += '"';
            index += 2;
            continue;
          }
          index++;
          break;
        }
        value += character;
        index++;
      }
      while (line[index] === ' ' || line[index] === '\t') index++;
      if (index < line.length && line[index] !== ',') return 'unexpected text after a quoted field';
      fields.push(value);
    } else {
      const end = line.indexOf(',', index);
      const value = (end === -1 ? line.slice(index) : line.slice(index, end)).trim();
      if (value.includes('"')) return 'a quote may only start a quoted field';
      fields.push(value);
      index = end === -1 ? line.length : end;
    }
    if (index >= line.length) return fields;
    index++;
  }
}

function stripByteOrderMark(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}
