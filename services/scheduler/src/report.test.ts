import { expect, test } from 'vitest';
import { csvField, csvHeader, csvLine } from './report.ts';

test('CSV fields are quoted only when they need it', () => {
  expect(csvField('plain')).toBe('plain');
  expect(csvField('a,b')).toBe('"a,b"');
  expect(csvField('say "hi"')).toBe('"say ""hi"""');
  expect(csvField('two\nlines')).toBe('"two\nlines"');
});

test('a reconciliation item is one CSV line in the header order', () => {
  expect(csvHeader()).toBe(
    'windowId,uetr,row,code,stateAtClose,status,createdAt,resolvedAt,resolution,text\r\n',
  );
  const line = csvLine({
    windowId: '2026-11-23',
    uetr: '4f1c7f44-8a47-4c36-9b38-0e6f2f1d2c11',
    row: 5,
    code: 'STATUS_REPORT_NOT_ACKNOWLEDGED',
    text: "The initiating bank sent no HTTP response to the service's PaymentStatusReport, before close",
    stateAtClose: 'DEBIT_ACCEPTANCE_DELIVERY_PENDING',
    status: 'open',
    createdAt: new Date('2026-11-23T16:00:00Z'),
  });
  expect(line).toBe(
    '2026-11-23,4f1c7f44-8a47-4c36-9b38-0e6f2f1d2c11,5,STATUS_REPORT_NOT_ACKNOWLEDGED,DEBIT_ACCEPTANCE_DELIVERY_PENDING,open,2026-11-23T16:00:00.000Z,,,' +
      `"The initiating bank sent no HTTP response to the service's PaymentStatusReport, before close"\r\n`,
  );
});
