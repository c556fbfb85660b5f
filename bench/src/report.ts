import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Machine } from './machine.ts';

/** One measured figure. */
export interface Row {
  /**
   * `limit` (the yardstick), `pipeline` (the product measured beside it), `profile` (where its CPU or its allocations went)
   * or `codec` (what one message costs to encode and decode).
   */
  readonly group: 'limit' | 'pipeline' | 'profile' | 'codec';
  readonly name: string;
  readonly value: number;
  readonly unit: string;
  readonly detail?: string;
}

export interface Report {
  readonly startedAt: string;
  readonly finishedAt: string;
  readonly machine: Machine;
  /** Where Kafka came from, and the MongoDB server that answered (and where it came from). */
  readonly infrastructure?: { readonly kafka: string; readonly mongodb: string };
  readonly settings: Readonly<Record<string, unknown>>;
  readonly rows: readonly Row[];
}

export function formatTable(rows: readonly Row[]): string {
  const header = ['group', 'figure', 'value', 'unit', 'detail'];
  const cells = rows.map((row) => [
    row.group,
    row.name,
    row.value.toLocaleString('en-US'),
    row.unit,
    row.detail ?? '',
  ]);
  const widths = header.map((title, column) =>
    Math.max(title.length, ...cells.map((line) => (line[column] ?? '').length)),
  );
  const line = (values: readonly string[]) =>
    values
      .map((value, column) =>
        column === 2 ? value.padStart(widths[column] ?? 0) : value.padEnd(widths[column] ?? 0),
      )
      .join('  ')
      .trimEnd();
  return [line(header), line(widths.map((width) => '-'.repeat(width))), ...cells.map(line)].join('\n');
}

/**
 * Writes the report as `<dir>/<timestamp>.json`, and as `<dir>/latest.json` when `latest` (a full run);
 * returns the first path.
 */
export function writeReport(dir: string, report: Report, latest = true): string {
  mkdirSync(dir, { recursive: true });
  const stamp = report.startedAt.replace(/[:.]/g, '-');
  const path = join(dir, `${stamp}.json`);
  const text = `${JSON.stringify(report, null, 2)}\n`;
  writeFileSync(path, text);
  if (latest) writeFileSync(join(dir, 'latest.json'), text);
  return path;
}
