import { describe, expect, it } from 'vitest';
import { isCalendarDate, ProblemList, readCsvDocument, splitCsvLine } from './csv.ts';

describe('splitCsvLine', () => {
  it('splits, trims and keeps empty fields', () => {
    expect(splitCsvLine('a, b ,,c,')).toEqual(['a', 'b', '', 'c', '']);
    expect(splitCsvLine('')).toEqual(['']);
  });

  it('reads quoted fields with commas and doubled quotes', () => {
    expect(splitCsvLine('"a, b","say ""hi""", c')).toEqual(['a, b', 'say "hi"', 'c']);
  });

  it('reports broken quoting', () => {
    expect(splitCsvLine('"abc')).toBe('unterminated quoted field');
    expect(splitCsvLine('"abc"x,d')).toBe('unexpected text after a quoted field');
    expect(splitCsvLine('ab"c')).toBe('a quote may only start a quoted field');
  });
});

describe('readCsvDocument', () => {
  const expected = { format: 'test/1', header: ['a', 'b'] };

  it('reads metadata before the header, skips comments and blank lines, keeps line numbers', () => {
    const problems = new ProblemList('t.csv');
    const document = readCsvDocument(
      '\uFEFF# format: test/1\r\n# name: N\n# version: 7\n# effective: 2024-02-29\n# a free comment\na,b\n\n1,2\n# later: not metadata\n3,4\n',
      expected,
      problems,
    );
    expect(problems.problems).toEqual([]);
    expect([...document.metadata]).toEqual([
      ['format', 'test/1'],
      ['name', 'N'],
      ['version', '7'],
      ['effective', '2024-02-29'],
    ]);
    expect(document.records).toEqual([
      { line: 8, fields: ['1', '2'] },
      { line: 10, fields: ['3', '4'] },
    ]);
  });

  it('reports a file without a header', () => {
    const problems = new ProblemList('t.csv');
    readCsvDocument('# format: test/1\n', expected, problems);
    expect(problems.problems.map((p) => p.message)).toEqual([
      "metadata '# name: ...' is missing before the header row",
      "metadata '# version: ...' is missing before the header row",
      "metadata '# effective: ...' is missing before the header row",
      "no header row 'a,b' found",
    ]);
  });

  it('stops recording after the limit but keeps counting', () => {
    const problems = new ProblemList('t.csv', 2);
    readCsvDocument(
      '# format: test/1\n# name: N\n# version: 1\n# effective: 2024-01-01\na,b\n1\n2\n3\n',
      expected,
      problems,
    );
    expect(problems.problems).toHaveLength(2);
    expect(problems.count).toBe(3);
  });
});

describe('isCalendarDate', () => {
  it('accepts real dates only', () => {
    expect(isCalendarDate('2024-02-29')).toBe(true);
    expect(isCalendarDate('2025-02-29')).toBe(false);
    expect(isCalendarDate('2025-13-01')).toBe(false);
    expect(isCalendarDate('2025-7-1')).toBe(false);
  });
});
