import { type BankSimulator, BankSimulatorClient, createBankSimulator } from '@rp/bank-simulator';
import { completedDebitJourney, type EventPosting } from '@rp/contracts';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describePosting } from '../src/postings.ts';
import {
  bankA,
  expectedIds,
  interleavedJourneys,
  newDebit,
  secretsA,
  startEnvironment,
  type TestEnvironment,
  uetrOfDebit,
} from './fixtures.ts';

let simulator: BankSimulator;
let environment: TestEnvironment;

beforeAll(async () => {
  // The project's bank simulator stands in for bank A: it validates every posting against the
  // contract (422 otherwise), checks the signature with the bank's secrets and deduplicates by id.
  simulator = createBankSimulator({
    port: 0,
    host: '127.0.0.1',
    signingSecrets: { [bankA]: [secretsA[0] as string] },
  });
  await simulator.start();
  environment = await startEnvironment({ eventsUrlA: simulator.bankUrl(bankA) });
}, 180_000);

afterAll(async () => {
  await environment?.dispose();
  await simulator?.stop();
});

it('delivers postings the bank simulator accepts as valid and signed, in order, through its injected 503s', async () => {
  const client = new BankSimulatorClient(simulator.url);
  await client.setFault({ memberId: bankA, route: 'events', mode: 'error', status: 503, count: 6 });
  const debits = Array.from({ length: 6 }, () => newDebit(bankA, bankA));
  for (const postings of interleavedJourneys(debits)) await environment.produce(postings);
  const idOf = (posting: EventPosting) => describePosting(posting, '').eventId;
  for (const debit of debits) {
    const expected = expectedIds(debit, ['TRANSACTION_STATE', 'ESM_STATE'], idOf);
    const received = await client.waitForPostings(uetrOfDebit(debit), expected.length, 60_000, {
      memberId: bankA,
    });
    expect(received.map((posting) => posting.eventId)).toEqual(expected);
    expect(received.every((posting) => posting.signatureVerified)).toBe(true);
  }
  const stats = await client.stats();
  expect(stats.routes.events).toMatchObject({
    accepted: debits.length * 2 * completedDebitJourney.length,
    invalid: 0,
    signatureFailures: 0,
    faultsInjected: 6,
  });
});
