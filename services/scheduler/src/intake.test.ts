import { describe, expect, test } from 'vitest';
import { type IntakeEntry, isComplete } from './intake.ts';

const at = new Date('2026-11-23T05:00:00.000Z');
const accepted: IntakeEntry = {
  uetr: '2f1c7f4e-1f51-4f44-9a43-3f1a3c1e9a11',
  status: 'awaiting',
  debitJson: '{}',
  acceptedAt: at,
  updatedAt: at,
};

describe('when an intake entry makes its debit ready', () => {
  test('an on-us debit waits for the acknowledgement of its ACCP report', () => {
    expect(isComplete(accepted)).toBe(false);
    expect(isComplete({ ...accepted, statusReportAcknowledgedAt: at, statusReportId: 'RPV1' })).toBe(true);
  });

  test('an acknowledgement alone is not a debit', () => {
    expect(
      isComplete({ uetr: accepted.uetr, status: 'awaiting', statusReportAcknowledgedAt: at, updatedAt: at }),
    ).toBe(false);
  });

  test('a debit from a clearing house is ready once accepted: no report goes back', () => {
    expect(isComplete({ ...accepted, fromScheme: true })).toBe(true);
  });

  test.each(['ready', 'withdrawn'] as const)('a %s entry never makes its debit ready again', (status) => {
    expect(isComplete({ ...accepted, status, fromScheme: true })).toBe(false);
    expect(isComplete({ ...accepted, status, statusReportAcknowledgedAt: at })).toBe(false);
  });
});
