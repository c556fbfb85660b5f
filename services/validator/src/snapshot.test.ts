import { readFileSync } from 'node:fs';
import { type PaymentStatusReport, toJson } from '@rp/contracts';
import type { TransactionSnapshot } from '@rp/store';
import { describe, expect, test } from 'vitest';
import { statusReportOfSnapshot } from './snapshot.ts';

const exampleText = readFileSync(
  new URL('../../../avro/examples/PaymentStatusReport.rjct.json', import.meta.url),
  'utf8',
);
const report = JSON.parse(exampleText.replaceAll('1500.0', '"1500.25"')) as PaymentStatusReport;
const reportId = report.messageIdentifiers.messageIdentification;

function snapshotWith(messages: TransactionSnapshot['messages']): TransactionSnapshot {
  const at = new Date('2025-03-14T07:30:00Z');
  return {
    uetr: report.transactionIdentifiers.uetr,
    state: 'DEBIT_REJECTION_DELIVERY_PENDING',
    version: 3,
    lastSeq: 3,
    history: [],
    messages,
    deliveryAttempts: [],
    deliveryAttemptCount: 0,
    createdAt: at,
    updatedAt: at,
  };
}

const message = (bodyJson: string, kind = 'PaymentStatusReport', messageIdentification = reportId) => ({
  kind,
  messageIdentification,
  at: new Date(),
  bodyJson,
});

describe('a status report of a snapshot', () => {
  test('reads a body written with exact JSON numbers, reasons and all', () => {
    const found = statusReportOfSnapshot(
      snapshotWith([message(toJson('PaymentStatusReport', report))]),
      reportId,
    );
    expect(found?.originalTransactionData?.amounts?.bankSettlementAmount.value).toBe('1500.25');
    expect(found?.status.reasonInfo?.[0]?.reason.code).toBe('AC01');
  });

  test('reads a body written by JSON.stringify, amounts as decimal strings', () => {
    const found = statusReportOfSnapshot(snapshotWith([message(JSON.stringify(report))]), reportId);
    expect(found?.originalTransactionData?.amounts?.instructedAmount?.value).toBe('1500.25');
  });

  test('is the report with that id only: not another report, not another kind of message', () => {
    const body = JSON.stringify(report);
    expect(
      statusReportOfSnapshot(snapshotWith([message(body, 'PaymentStatusReport', 'OTHER1')]), reportId),
    ).toBeUndefined();
    expect(statusReportOfSnapshot(snapshotWith([message(body, 'DirectDebit')]), reportId)).toBeUndefined();
    expect(statusReportOfSnapshot(snapshotWith([]), reportId)).toBeUndefined();
  });

  test('is undefined for a body that is not a report', () => {
    expect(statusReportOfSnapshot(snapshotWith([message('not json')]), reportId)).toBeUndefined();
  });
});
