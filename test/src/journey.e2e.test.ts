import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EndToEnd, startEndToEnd } from './pipeline.ts';

let e2e: EndToEnd;
beforeAll(async () => {
  e2e = await startEndToEnd();
});
afterAll(async () => {
  await e2e?.stop();
});

describe('the on-us direct debit exchange, end to end', () => {
  it('takes a debit through all ten steps of the successful path', async () => {
    const { uetr, response } = await e2e.sendDebit();
    expect(response.status).toBe(202);
    const queued = await e2e.bank.waitForPostings(uetr, 5, 60_000, { memberId: '250655' });
    expect(queued.length).toBeGreaterThanOrEqual(5);
    await e2e.openDebitWindow();
    const all = await e2e.bank.waitForPostings(uetr, 18, 60_000);
    const types = all
      .filter((entry) => entry.posting.class === 'TRANSACTION_STATE')
      .map((entry) => ('type' in entry.posting ? entry.posting.type : undefined));
    expect(types).toEqual([
      'DEBIT_REQUEST_RECEIVED',
      'DEBIT_REQUEST_ACCEPTED',
      'DEBIT_STATUS_DELIVERY_PENDING',
      'DEBIT_STATUS_DELIVERED',
      'DEBIT_QUEUED',
      'DEBIT_DELIVERY_PENDING',
      'DEBIT_DELIVERED',
      'DEBIT_RESPONSE_ACCEPTED',
      'DEBIT_COMPLETED',
    ]);
  });
});
