import { reconciliationRows } from '@rp/contracts';
import { describe, expect, test } from 'vitest';
import { reconciliationRowFor, reconciliationRuleOfState, unresolvedStates } from './reconciliation-rows.ts';

describe('state at the reconciliation close to spec section 7 row', () => {
  test.each([
    ['DEBIT_RECEIVED', false, 4],
    ['DEBIT_ACCEPTED', false, 4],
    ['DEBIT_REJECTED', false, 4],
    ['DEBIT_ACCEPTANCE_DELIVERY_PENDING', false, 5],
    ['DEBIT_REJECTION_DELIVERY_PENDING', true, 5],
    ['DEBIT_STATUS_DELIVERY_FAILED', true, 3],
    ['DEBIT_ACCEPTANCE_DELIVERED', false, 7],
    ['DEBIT_QUEUED', false, 7],
    ['DEBIT_DELIVERY_PENDING', false, 7],
    ['DEBIT_DELIVERY_PENDING', true, 8],
    ['DEBIT_DELIVERY_FAILED', true, 3],
    ['DEBIT_DELIVERED', false, 9],
    ['DEBIT_RESPONSE_ACCEPTED', false, 9],
    ['CREDIT_AUTH_DELIVERY_PENDING', true, 8],
  ])('%s (bank answered: %s) is row %i', (state, answered, row) => {
    const choice = reconciliationRowFor(state, answered);
    expect(choice?.row).toBe(row);
    expect(choice?.text).toBe(reconciliationRows[choice?.code ?? 'UNRECOVERABLE_ERROR'].condition);
  });

  test('every state that is not final has a row', () => {
    for (const state of unresolvedStates) expect(reconciliationRuleOfState[state], state).toBeDefined();
  });

  test.each([
    'DEBIT_COMPLETED',
    'DEBIT_UNPAID',
    'DEBIT_REJECTION_DELIVERED',
    'RECONCILIATION_REQUIRED',
    'NOPE',
  ])('%s is not reconciled', (state) => {
    expect(reconciliationRowFor(state, false)).toBeUndefined();
    expect(unresolvedStates).not.toContain(state);
  });
});
