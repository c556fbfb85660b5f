import { describe, expect, test } from 'vitest';
import { branchCodeOf, cdvAccountType } from './accounts.ts';

describe('account details for CDV', () => {
  test.each([
    [{ schema: 'CODE', value: 'CACC' }, '1'],
    [{ schema: 'CODE', value: 'SVGS' }, '2'],
    [{ schema: 'CODE', value: 'TRAN' }, '3'],
    [{ schema: 'CODE', value: 'LOAN' }, undefined],
    [{ schema: 'PROPRIETARY', value: '4' }, '4'],
    [{ schema: 'PROPRIETARY', value: 'bond' }, undefined],
    [undefined, undefined],
  ])('account type %j is CDV type %s', (type, expected) => {
    expect(cdvAccountType(type)).toBe(expected);
  });

  test('the branch is the agent branch, else its clearing member id, else its member id', () => {
    expect(branchCodeOf({ memberId: '250655', branch: { identification: '250737' } })).toBe('250737');
    expect(branchCodeOf({ memberId: 'FNB', clearingSystemMemberId: { memberId: '250655' } })).toBe('250655');
    expect(branchCodeOf({ memberId: '632005' })).toBe('632005');
    expect(branchCodeOf({ name: 'No identifiers' })).toBeUndefined();
  });
});
