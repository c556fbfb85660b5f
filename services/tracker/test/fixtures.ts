import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import {
  type DirectDebit,
  type KnownEventType,
  type PaymentStatusReport,
  parseJsonExact,
  type TransactionState,
  type TransactionStateChanged,
  validate,
} from '@rp/contracts';
import { buildStateChange } from '@rp/pipeline';

const examples = new URL('../../../avro/examples/', import.meta.url);

function example<N extends 'DirectDebit' | 'PaymentStatusReport'>(name: N, file: string) {
  const result = validate(name, parseJsonExact(readFileSync(new URL(file, examples), 'utf8')));
  if (!result.ok) throw new Error(`${file}: ${JSON.stringify(result.errors)}`);
  return result.value;
}

export const exampleDebit = example('DirectDebit', 'DirectDebit.za-eft-on-us.json') as DirectDebit;
export const exampleAccp = example(
  'PaymentStatusReport',
  'PaymentStatusReport.accp.json',
) as PaymentStatusReport;
export const exampleAcsc = example(
  'PaymentStatusReport',
  'PaymentStatusReport.acsc.json',
) as PaymentStatusReport;

/** The happy path of an on-us debit, in order. */
export const debitJourney: readonly KnownEventType[] = [
  'DEBIT_REQUEST_RECEIVED',
  'DEBIT_REQUEST_ACCEPTED',
  'DEBIT_STATUS_DELIVERY_PENDING',
  'DEBIT_STATUS_DELIVERED',
  'DEBIT_QUEUED',
  'DEBIT_DELIVERY_PENDING',
  'DEBIT_DELIVERED',
  'DEBIT_RESPONSE_ACCEPTED',
  'DEBIT_COMPLETED',
];

/** The example debit as a new transaction (own UETR and message identification). */
export function newDebit(overrides: Partial<DirectDebit> = {}): DirectDebit {
  const uetr = randomUUID();
  return {
    ...exampleDebit,
    messageIdentifiers: {
      ...exampleDebit.messageIdentifiers,
      messageIdentification: `T${uetr.replace(/-/g, '').slice(0, 30)}`,
    },
    transactionIdentifiers: {
      ...exampleDebit.transactionIdentifiers,
      uetr,
      endToEndIdentification: `E2E-${uetr.slice(0, 8)}`,
    },
    ...overrides,
  };
}

/** The report a change of this type carries (the engine's ACCP, the bank's ACSC), for the debit. */
export function reportFor(debit: DirectDebit, eventType: KnownEventType): PaymentStatusReport | undefined {
  const uetr = debit.transactionIdentifiers.uetr;
  const reportOf = (report: PaymentStatusReport, id: string): PaymentStatusReport => ({
    ...report,
    messageIdentifiers: { ...report.messageIdentifiers, messageIdentification: id },
    transactionIdentifiers: debit.transactionIdentifiers,
  });
  const index = debitJourney.indexOf(eventType);
  if (index >= debitJourney.indexOf('DEBIT_RESPONSE_ACCEPTED'))
    return reportOf(exampleAcsc, `B${uetr.replace(/-/g, '').slice(0, 30)}`);
  if (index >= debitJourney.indexOf('DEBIT_REQUEST_ACCEPTED'))
    return reportOf(exampleAccp, `R${uetr.replace(/-/g, '').slice(0, 30)}`);
  return undefined;
}

const emitters: Record<string, string> = {
  DEBIT_REQUEST_RECEIVED: 'ingress',
  DEBIT_RESPONSE_ACCEPTED: 'ingress',
  DEBIT_REQUEST_ACCEPTED: 'validator',
  DEBIT_COMPLETED: 'validator',
  DEBIT_QUEUED: 'scheduler',
};

/** A state change as an emitter builds it (the emitter's fromState given explicitly). */
export function change(
  debit: DirectDebit,
  eventType: KnownEventType,
  fromState: TransactionState | undefined,
  at = new Date('2025-03-14T07:30:00.000Z'),
): TransactionStateChanged {
  const statusReport = reportFor(debit, eventType);
  return buildStateChange(
    emitters[eventType] ?? 'dispatcher',
    {
      ...(fromState ? { fromState } : {}),
      eventType,
      transaction: debit,
      ...(statusReport ? { statusReport } : {}),
      causedBy: {
        messageType: 'DirectDebit',
        messageIdentification: debit.messageIdentifiers.messageIdentification,
      },
      occurredAt: at,
    },
    at,
  );
}

/** The whole journey as emitters would produce it, each change from the state the previous one reached. */
export function journeyChanges(
  debit: DirectDebit,
  types: readonly KnownEventType[] = debitJourney,
): TransactionStateChanged[] {
  const changes: TransactionStateChanged[] = [];
  let state: TransactionState | undefined;
  types.forEach((eventType, index) => {
    const next = change(debit, eventType, state, new Date(Date.UTC(2025, 2, 14, 7, 30, index)));
    changes.push(next);
    state = next.toState;
  });
  return changes;
}
