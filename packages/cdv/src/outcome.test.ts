import { describe, expect, it } from 'vitest';
import { type CdvOutcome, cdvRejectionReason, isoReasonFor } from './outcome.ts';

const bank = { code: 'ALOE', name: 'Aloe Bank (synthetic)' };

describe('cdvRejectionReason', () => {
  const failed: CdvOutcome = {
    status: 'FAILED',
    reason: 'CHECK_DIGIT_FAILED',
    bank,
    accountType: '1',
    detail: 'check digit failed',
  };

  it('maps a failed debtor account to AC01 and a failed creditor account to AC03', () => {
    expect(cdvRejectionReason(failed, 'debtor')).toEqual({
      code: 'AC01',
      additionalInfo: 'CDV CHECK_DIGIT_FAILED (ALOE)',
    });
    expect(cdvRejectionReason(failed, 'creditor')).toEqual({
      code: 'AC03',
      additionalInfo: 'CDV CHECK_DIGIT_FAILED (ALOE)',
    });
  });

  it('has no bank to name for an invalid branch', () => {
    const invalidBranch: CdvOutcome = {
      status: 'FAILED',
      reason: 'INVALID_BRANCH',
      bank: undefined,
      accountType: undefined,
      detail: 'branch code is not in the branch file',
    };
    expect(cdvRejectionReason(invalidBranch, 'debtor')).toEqual({
      code: 'AC01',
      additionalInfo: 'CDV INVALID_BRANCH',
    });
  });

  it('gives no reason for PASSED or SKIPPED', () => {
    expect(cdvRejectionReason({ status: 'PASSED', bank, accountType: '1' }, 'creditor')).toBeUndefined();
    expect(cdvRejectionReason({ status: 'SKIPPED', bank, accountType: '3' }, 'debtor')).toBeUndefined();
  });
});

describe('isoReasonFor', () => {
  const failed: CdvOutcome = {
    status: 'FAILED',
    reason: 'ACCOUNT_NOT_VALID_FOR_BRANCH',
    bank,
    accountType: undefined,
    detail: 'no parameter row',
  };

  it('gives AC01 for the debtor account and AC03 for the creditor account', () => {
    expect(isoReasonFor(failed, 'debtor')).toBe('AC01');
    expect(isoReasonFor(failed, 'creditor')).toBe('AC03');
  });

  it('gives nothing when the account passed or was not verifiable', () => {
    expect(isoReasonFor({ status: 'PASSED', bank, accountType: '1' }, 'debtor')).toBeUndefined();
    expect(isoReasonFor({ status: 'SKIPPED', bank, accountType: '3' }, 'creditor')).toBeUndefined();
  });
});
