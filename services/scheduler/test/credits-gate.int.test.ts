import { randomUUID } from 'node:crypto';
import type { TransactionState } from '@rp/contracts';
import { connectStore, type Store } from '@rp/store';
import { infra, uniqueName } from '@rp/testkit';
import { MongoClient } from 'mongodb';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  anyCreditsGate,
  CreditFlowGate,
  DeclaredCreditsGate,
  scheduledCreditsGate,
  WindowController,
} from '../src/window-state.ts';
import { defaultWindowSettings, WindowCalendar } from '../src/windows.ts';

// The credits gate on the real store: the debit window waits while a credit of the cycle is in flight.

const sast = (local: string) => new Date(`${local}+02:00`);
const friday = '2026-11-20';
const monday = '2026-11-23';

let store: Store;
let databaseName: string;
let mongodbUri: string;

/** A credit's snapshot as the tracker writes it: one change per state of the path, the first at `at`. */
async function recordCredit(path: readonly TransactionState[], at: Date, uetr = randomUUID()) {
  await store.transactions.applyChanges(
    path.map((to, index) => ({
      uetr,
      eventId: `${uetr}:${index + 1}`,
      seq: index + 1,
      from: index === 0 ? null : (path[index - 1] as string),
      to,
      eventType: to,
      at,
      service: 'test',
    })),
  );
  return uetr;
}

/** The credit's next state, as the tracker appends it. */
async function advance(uetr: string, from: TransactionState, to: TransactionState, seq: number, at: Date) {
  await store.transactions.applyChanges([
    { uetr, eventId: `${uetr}:${seq}`, seq, from, to, eventType: to, at, service: 'test' },
  ]);
}

function controller(creditsFinalisedAt?: string) {
  const calendar = new WindowCalendar({
    ...defaultWindowSettings,
    ...(creditsFinalisedAt ? { creditsFinalisedAt } : {}),
  });
  const declared = new DeclaredCreditsGate();
  const windows = new WindowController(
    calendar,
    anyCreditsGate(
      declared,
      new CreditFlowGate(store.transactions, calendar),
      scheduledCreditsGate(calendar),
    ),
  );
  return { windows, declared };
}

beforeAll(async () => {
  const endpoints = await infra();
  mongodbUri = endpoints.mongodbUri;
  databaseName = uniqueName('credits_gate').replace(/-/g, '_');
  store = await connectStore({ uri: mongodbUri, database: databaseName, appName: 'credits-gate-test' });
  await store.ensureIndexes();
});

afterAll(async () => {
  await store?.close();
  const client = new MongoClient(mongodbUri);
  await client.db(databaseName).dropDatabase();
  await client.close();
});

describe('the credits gate', () => {
  test('the debit window waits while a credit of the cycle is in flight and opens once it is final', async () => {
    const { windows } = controller();
    // Friday's cycle ended at Friday's reconciliation close: a credit stuck since then is not Monday's.
    await recordCredit(['CREDIT_AUTH_RECEIVED', 'CREDIT_AUTH_ACCEPTED'], sast(`${friday}T12:00:00`));
    const pending = await recordCredit(
      [
        'CREDIT_AUTH_RECEIVED',
        'CREDIT_AUTH_ACCEPTED',
        'CREDIT_AUTH_DELIVERY_PENDING',
        'CREDIT_AUTH_DELIVERED',
      ],
      sast(`${monday}T07:00:00`),
    );
    await recordCredit(
      ['CREDIT_AUTH_RECEIVED', 'CREDIT_AUTH_ACCEPTED', 'CREDIT_AUTH_DELIVERY_PENDING'],
      sast(`${monday}T07:10:00`),
    ).then((uetr) =>
      advance(
        uetr,
        'CREDIT_AUTH_DELIVERY_PENDING',
        'CREDIT_AUTH_RESPONSE_ACCEPTED',
        4,
        sast(`${monday}T07:20:00`),
      ),
    );
    await recordCredit(['CREDIT_AUTH_RECEIVED', 'CREDIT_AUTH_REJECTED'], sast(`${monday}T07:30:00`));

    const before = await windows.status(sast(`${monday}T08:30:00`));
    expect(before.debitWindow).toMatchObject({
      state: 'awaiting-credits',
      creditsFinalised: false,
      creditsInFlight: 1,
    });
    expect(before.debitWindow.creditsFinalisedBy).toBeUndefined();

    await advance(
      pending,
      'CREDIT_AUTH_DELIVERED',
      'CREDIT_AUTH_RESPONSE_ACCEPTED',
      5,
      sast(`${monday}T08:40:00`),
    );
    const after = await windows.status(sast(`${monday}T08:45:00`));
    expect(after.debitWindow).toMatchObject({
      state: 'open',
      creditsFinalised: true,
      creditsFinalisedBy: 'credits',
      creditsInFlight: 0,
    });

    // Open for the day: a credit arriving later does not shut it.
    await recordCredit(['CREDIT_AUTH_RECEIVED'], sast(`${monday}T09:00:00`));
    expect(await windows.debitWindowState(monday, sast(`${monday}T09:05:00`))).toBe('open');
  });

  test('the cut-off opens it with credits still in flight, and says so; an operator wins over both', async () => {
    const { windows, declared } = controller('10:00');
    // Tuesday's cycle starts at Monday's reconciliation close.
    const tuesday = '2026-11-24';
    await recordCredit(['CREDIT_AUTH_RECEIVED', 'CREDIT_AUTH_ACCEPTED'], sast(`${tuesday}T06:00:00`));
    expect((await windows.status(sast(`${tuesday}T09:59:00`))).debitWindow).toMatchObject({
      state: 'awaiting-credits',
      creditsInFlight: 1,
    });
    expect((await windows.status(sast(`${tuesday}T10:00:00`))).debitWindow).toMatchObject({
      state: 'open',
      creditsFinalisedBy: 'cut-off',
    });

    declared.declare(tuesday);
    expect((await windows.status(sast(`${tuesday}T10:01:00`))).debitWindow).toMatchObject({
      state: 'open',
      creditsFinalisedBy: 'operator',
    });
  });
});
