import { describe, expect, it } from 'vitest';
import { formatTable, megabytes } from './report.ts';

describe('formatTable', () => {
  it('pads text left-aligned and numbers right-aligned under their headers', () => {
    const table = formatTable(
      ['component', 'port', 'RSS MB'],
      [
        ['kafka', '19092', '405'],
        ['ferretdb', '27018', '28'],
      ],
    );
    expect(table.split('\n')).toEqual([
      'component  port   RSS MB',
      'kafka      19092     405',
      'ferretdb   27018      28',
    ]);
  });

  it('shows memory in whole megabytes, or a dash when unknown', () => {
    expect(megabytes(414_720)).toBe('405');
    expect(megabytes(undefined)).toBe('-');
  });
});
