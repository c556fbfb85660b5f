/** Columns padded to their widest cell; numbers read best right-aligned, so cells that look numeric are. */
export function formatTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const all = [header, ...rows];
  const widths = header.map((_, column) => Math.max(...all.map((row) => (row[column] ?? '').length)));
  const numeric = /^[\d.,]+( [a-zA-Z]+)?$/;
  return all
    .map((row) =>
      row
        .map((cell, column) => {
          const width = widths[column] ?? 0;
          return numeric.test(cell) ? cell.padStart(width) : cell.padEnd(width);
        })
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

export function seconds(ms: number): string {
  return (ms / 1000).toFixed(1);
}

export function megabytes(kb: number | undefined): string {
  return kb === undefined ? '-' : String(Math.round(kb / 1024));
}

export function clockTime(date: Date): string {
  return date.toTimeString().slice(0, 8);
}
