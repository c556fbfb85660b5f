import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { DirectDebit, EventPosting } from '@rp/contracts';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describePosting } from '../src/postings.ts';
import { eventsHandler, type Receipt, SeenEvents } from '../src/receiver.ts';
import {
  bankA,
  eventually,
  expectedIds,
  interleavedJourneys,
  newDebit,
  secretsA,
  startEnvironment,
  type TestEnvironment,
  uetrOfDebit,
} from './fixtures.ts';

/** A bank built on the receiver example alone: its node:http endpoint, its secrets, an in-memory store. */
const stored: { id: string; posting: unknown }[] = [];
const receipts: Receipt[] = [];
const seen = new SeenEvents();
const waiters = new Set<() => void>();
let server: Server;
let environment: TestEnvironment;

beforeAll(async () => {
  // During a rotation the bank accepts its new secret only; the engine signs with both.
  server = createServer(
    eventsHandler({
      secrets: [secretsA[1] as string],
      seen,
      store: (posting, id) => stored.push({ id, posting }),
      onReceipt: (receipt) => {
        receipts.push(receipt);
        for (const wake of [...waiters]) wake();
      },
    }),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  environment = await startEnvironment({
    eventsUrlA: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
  });
}, 180_000);

afterAll(async () => {
  await environment?.dispose();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

function until(ready: () => boolean, what: string, timeoutMs = 60_000): Promise<void> {
  return new Promise((resolve, reject) => {
    const check = () => {
      if (!ready()) return;
      waiters.delete(check);
      clearTimeout(timer);
      resolve();
    };
    const timer = setTimeout(() => reject(new Error(`${what}: not within ${timeoutMs} ms`)), timeoutMs);
    waiters.add(check);
    check();
  });
}

it('verifies real deliveries with the receiver example and keeps a replayed posting once', async () => {
  const debits = Array.from({ length: 5 }, () => newDebit(bankA, bankA));
  for (const postings of interleavedJourneys(debits)) await environment.produce(postings);
  const idOf = (posting: EventPosting) => describePosting(posting, '').eventId;
  const expected = debits.flatMap((debit) => expectedIds(debit, ['TRANSACTION_STATE', 'ESM_STATE'], idOf));
  await until(() => stored.length === expected.length, 'every posting stored');
  expect(stored.map((entry) => entry.id).sort()).toEqual([...expected].sort());
  expect(receipts.every((receipt) => receipt.status === 202 && !receipt.duplicate)).toBe(true);
  const first = stored[0]?.posting as { apiVersion?: string } | undefined;
  expect(first?.apiVersion).toBe('1.0.0');

  const replayed = debits[0] as DirectDebit;
  // A replay takes what the delivery log holds; it is written behind the deliveries.
  const ofReplayed = expectedIds(replayed, ['TRANSACTION_STATE', 'ESM_STATE'], idOf);
  await eventually(async () => {
    const logged = await environment.store.deliveryLog.listByUetr(uetrOfDebit(replayed));
    return logged.length === ofReplayed.length ? true : undefined;
  }, 'the replayed transaction fully logged');
  const response = await environment.publisher.app.request('/admin/events/replay', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ memberId: bankA, uetr: uetrOfDebit(replayed) }),
  });
  const { queued } = (await response.json()) as { queued: number };
  expect(queued).toBe(ofReplayed.length);
  await until(() => receipts.filter((receipt) => receipt.duplicate).length === queued, 'the replay answered');
  expect(stored).toHaveLength(expected.length);
});
