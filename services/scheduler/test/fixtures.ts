import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { type DirectDebit, type TransactionState, toJson } from '@rp/contracts';
import type { Store, TransactionDeliveryAttempt } from '@rp/store';

const example = JSON.parse(
  readFileSync(new URL('../../../avro/examples/DirectDebit.za-eft-on-us.json', import.meta.url), 'utf8'),
  (name, value) => (name === 'value' && typeof value === 'number' ? String(value) : value),
) as DirectDebit;

/** An accepted on-us debit with its own UETR and message identification (amounts as decimal strings). */
export function debit(options: { creditorAgent?: string; collectionDate?: string } = {}): DirectDebit {
  const value = structuredClone(example);
  const uetr = randomUUID();
  value.messageIdentifiers = {
    messageIdentification: `S${uetr.replaceAll('-', '').slice(0, 24)}`,
    creationDateTime: new Date().toISOString(),
  };
  value.transactionIdentifiers = { ...value.transactionIdentifiers, uetr };
  if (options.creditorAgent)
    value.creditorAgent = { ...value.creditorAgent, memberId: options.creditorAgent };
  if (options.collectionDate) {
    value.requestedCollectionDate = options.collectionDate;
    value.settlementDate = options.collectionDate;
  }
  return value;
}

export const uetrOf = (value: DirectDebit) => value.transactionIdentifiers.uetr;

/**
 * A snapshot as the tracker writes it: the DirectDebit with the first change, then one change per state
 * of the path, all at `at`; delivery attempts recorded after.
 */
export async function recordSnapshot(
  store: Pick<Store, 'transactions'>,
  value: DirectDebit,
  path: readonly TransactionState[],
  at: Date,
  attempts: readonly Omit<TransactionDeliveryAttempt, 'at' | 'messageIdentification'>[] = [],
): Promise<void> {
  const uetr = uetrOf(value);
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
      ...(index === 0
        ? {
            message: {
              kind: 'DirectDebit',
              messageIdentification: value.messageIdentifiers.messageIdentification,
              at,
              bodyJson: toJson('DirectDebit', value),
            },
          }
        : {}),
    })),
  );
  for (const attempt of attempts) {
    await store.transactions.recordDeliveryAttempt(uetr, {
      ...attempt,
      at,
      messageIdentification: value.messageIdentifiers.messageIdentification,
    });
  }
}
