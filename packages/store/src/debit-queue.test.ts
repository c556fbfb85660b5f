import { describe, expect, test } from 'vitest';
import { type DebitEntry, isReadyToQueue } from './debit-queue.ts';

const at = new Date('2026-11-23T05:00:00.000Z');
const accepted: DebitEntry = {
  uetr: '2f1c7f4e-1f51-4f44-9a43-3f1a3c1e9a11',
  status: 'awaiting',
  messageJson: '{}',
  acceptedAt: at,
  updatedAt: at,
};

describe('when a debit is ready to be queued', () => {
  test('an on-us debit waits for the acknowledgement of its ACCP report', () => {
    expect(isReadyToQueue(accepted)).toBe(false);
    expect(isReadyToQueue({ ...accepted, statusReportAcknowledgedAt: at, statusReportId: 'RPV1' })).toBe(
      true,
    );
  });

  test('an acknowledgement alone is not a debit', () => {
    expect(
      isReadyToQueue({
        uetr: accepted.uetr,
        status: 'awaiting',
        statusReportAcknowledgedAt: at,
        updatedAt: at,
      }),
    ).toBe(false);
  });

  test('a debit from a clearing house is ready once accepted: no report goes back', () => {
    expect(isReadyToQueue({ ...accepted, fromScheme: true })).toBe(true);
  });

  test.each(['queued', 'dispatched', 'withdrawn'] as const)('a %s debit is never queued again', (status) => {
    expect(isReadyToQueue({ ...accepted, status, fromScheme: true })).toBe(false);
    expect(isReadyToQueue({ ...accepted, status, statusReportAcknowledgedAt: at })).toBe(false);
  });
});
