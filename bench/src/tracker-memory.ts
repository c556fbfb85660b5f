import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import {
  completedDebitJourney,
  decodeAvro,
  encodeAvro,
  nextState,
  parseJsonExact,
  type TransactionState,
  type TransactionStateChanged,
  validate,
} from '@rp/contracts';
import { decide, newTransaction, type TrackedTransaction, withMessage } from '@rp/tracker';
import type { Row } from './report.ts';

/** The changes that carry a status report. */
const reportsAt: readonly string[] = ['DEBIT_REQUEST_ACCEPTED', 'DEBIT_RESPONSE_ACCEPTED'];

/** A full, compacting collection: `gc` taken from a fresh context once the flag that exposes it is set. */
export function collector(): () => void {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}

/**
 * `count` completed on-us debits, each its nine state changes as the emitters make them (its own UETR and
 * message ids, the example's payload on every change, the two status reports on the changes that carry
 * them, each change's states from the one before), journey by journey.
 */
export function debitJourneys(root: string, count: number): TransactionStateChanged[][] {
  const text = readFileSync(join(root, 'avro', 'examples', 'TransactionStateChanged.json'), 'utf8');
  const checked = validate('TransactionStateChanged', parseJsonExact(text));
  if (!checked.ok) throw new Error('TransactionStateChanged.json is not a valid TransactionStateChanged');
  const example = checked.value as TransactionStateChanged;
  const payload = example.transaction;
  if (payload === undefined) throw new Error('TransactionStateChanged.json carries no transaction');
  const { fromState: _from, statusReport, ...rest } = example;
  return Array.from({ length: count }, () => {
    const uetr = randomUUID();
    const messageIdentification = `RP${randomUUID().replaceAll('-', '').slice(0, 22)}`;
    const transaction = {
      ...payload,
      messageIdentifiers: { ...payload.messageIdentifiers, messageIdentification },
      transactionIdentifiers: { ...payload.transactionIdentifiers, uetr },
    } as NonNullable<TransactionStateChanged['transaction']>;
    let state: TransactionState | undefined;
    return completedDebitJourney.map((eventType) => {
      // The two reports of a journey: the validator's to the bank that sent it, the actioning bank's.
      const report =
        statusReport !== undefined && reportsAt.includes(eventType)
          ? {
              statusReport: {
                ...statusReport,
                messageIdentifiers: {
                  ...statusReport.messageIdentifiers,
                  messageIdentification: `RP${randomUUID().replaceAll('-', '').slice(0, 22)}`,
                },
              },
            }
          : {};
      const toState = nextState(state, eventType);
      const value: TransactionStateChanged = {
        ...rest,
        ...report,
        uetr,
        eventType,
        toState,
        transaction,
        ...(state === undefined ? {} : { fromState: state }),
      };
      state = toState;
      return value;
    });
  });
}

/**
 * The journeys as their records carry them, made in a frame of their own so that nothing in the caller's
 * holds the values they were encoded from when the heap is first read.
 */
function encodedJourneys(root: string, count: number): Buffer[][] {
  return debitJourneys(root, count).map((journey) =>
    journey.map((value) => encodeAvro('TransactionStateChanged', value)),
  );
}

/**
 * What one completed debit keeps of the tracker's heap while its cache holds it (up to
 * `TRACKER_CACHE_SIZE` of them, 100,000 by default): `count` debits, each with its own UETR and message
 * ids, are sequenced through their nine changes as the tracker does it (each change decoded from Avro, so
 * that its strings are the ones a consumed record gives), with the messages their snapshot holds; the
 * heap in use after a full collection, less the heap before, over the count. And what its payload keeps
 * while the payload cache holds it (the latest 10,000 transactions'), measured the same way.
 */
export function trackerCacheBench(options: { root: string; count: number }): Row[] {
  const gc = collector();
  const kept: TrackedTransaction[] = [];
  // The records are made before the first reading, so that only what the transactions keep is counted.
  const journeys = encodedJourneys(options.root, options.count);
  gc();
  const before = process.memoryUsage().heapUsed;
  for (const journey of journeys) {
    let tracked: TrackedTransaction | undefined;
    for (const bytes of journey) {
      const value = decodeAvro('TransactionStateChanged', bytes);
      tracked ??= newTransaction(value.uetr, 0);
      const decision = decide(tracked, value);
      if (decision.kind !== 'apply')
        throw new Error(`${value.eventType} was not applied: ${decision.kind} (${JSON.stringify(decision)})`);
      tracked = decision.next;
      const message = value.transaction?.messageIdentifiers.messageIdentification;
      if (message !== undefined) tracked = withMessage(tracked, value.transaction?.schema ?? '', message);
      const report = value.statusReport?.messageIdentifiers.messageIdentification;
      if (report !== undefined) tracked = withMessage(tracked, 'PaymentStatusReport', report);
    }
    if (tracked !== undefined) kept.push(tracked);
  }
  gc();
  const after = process.memoryUsage().heapUsed;
  const bytes = Math.round((after - before) / kept.length);
  // Read after the reading, so that the records stay alive through it and only the transactions count.
  if (journeys.length !== kept.length) throw new Error('a journey was lost');
  const sample = kept[kept.length - 1];
  // The payload cache: the transaction a debit's latest change carried, as decoded, a debit each.
  gc();
  const payloadsBefore = process.memoryUsage().heapUsed;
  const payloads = journeys.map((journey) => {
    const last = journey[journey.length - 1];
    return last === undefined ? undefined : decodeAvro('TransactionStateChanged', last).transaction;
  });
  gc();
  const payloadBytes = Math.round((process.memoryUsage().heapUsed - payloadsBefore) / payloads.length);
  if (payloads.some((payload) => payload === undefined)) throw new Error('a change carried no payload');
  const cacheRow: Row = {
    group: 'codec',
    name: "tracker: heap a completed debit keeps in the tracker's cache",
    value: bytes,
    unit: 'bytes',
    detail: `${kept.length} debits sequenced through their ${sample?.sequence ?? 0} changes, each decoded from Avro, with the ${(sample?.messages.length ?? 0) / 2} messages their snapshot holds; the heap after a full collection, less the heap before, a debit: ${Math.round((bytes * 100_000) / 1e6)} MB at the default TRACKER_CACHE_SIZE of 100,000`,
  };
  return [
    cacheRow,
    {
      group: 'codec',
      name: "tracker: heap a debit's payload keeps in the tracker's payload cache",
      value: payloadBytes,
      unit: 'bytes',
      detail: `the DirectDebit of each of ${payloads.length} debits' last change, decoded from Avro as the tracker holds it for the changes emitted without one; the heap after a full collection, less the heap before, a debit: ${Math.round((payloadBytes * 10_000) / 1e6)} MB at the payload cache's 10,000`,
    },
  ];
}
