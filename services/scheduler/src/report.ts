import type { RecordedReconciliationItem } from '@rp/store';

/** Columns of the daily reconciliation report, in order. */
export const reportColumns = [
  'windowId',
  'uetr',
  'row',
  'code',
  'stateAtClose',
  'status',
  'createdAt',
  'resolvedAt',
  'resolution',
  'text',
] as const;

/** One field as RFC 4180 wants it: quoted when it holds a comma, a quote or a line break. */
export function csvField(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}

export function csvHeader(): string {
  return `${reportColumns.join(',')}\r\n`;
}

export function csvLine(item: RecordedReconciliationItem): string {
  const fields: Record<(typeof reportColumns)[number], string> = {
    windowId: item.windowId,
    uetr: item.uetr,
    row: String(item.row),
    code: item.code,
    stateAtClose: item.stateAtClose ?? '',
    status: item.status,
    createdAt: item.createdAt.toISOString(),
    resolvedAt: item.resolvedAt?.toISOString() ?? '',
    resolution: item.resolution ?? '',
    text: item.text,
  };
  return `${reportColumns.map((column) => csvField(fields[column])).join(',')}\r\n`;
}

/** An item as the JSON report shows it. */
export function reportItem(item: RecordedReconciliationItem): Record<string, unknown> {
  return {
    windowId: item.windowId,
    uetr: item.uetr,
    row: item.row,
    code: item.code,
    text: item.text,
    stateAtClose: item.stateAtClose,
    status: item.status,
    createdAt: item.createdAt.toISOString(),
    ...(item.resolvedAt ? { resolvedAt: item.resolvedAt.toISOString() } : {}),
    ...(item.resolution ? { resolution: item.resolution } : {}),
  };
}
