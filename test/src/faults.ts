import type { ExchangedMessage, ReceivedPosting } from '@rp/bank-simulator';
import { completedDebitJourney } from '@rp/contracts';
import { sampleCredit, sampleOnUsDebit } from '@rp/launcher';
import { creditJourney, type EndToEnd, root, transactionStateTypes } from './pipeline.ts';

/**
 * The fault suite's load and books: a bank that sends on-us debits, and a clearing house that sends
 * credit transfer authorisations, the way they do (resending the same message after a refusal or a lost
 * connection until it is answered 202), and the check that every transaction answered 202 ended
 * complete, once, in order.
 */

/** What the fault suite sends: an on-us debit (from the bank) or a credit (from the clearing house). */
export type TransactionKind = 'debit' | 'credit';

/** Each kind's TRANSACTION_STATE journey, as the bank receives it, in state order. */
export const journeys: Readonly<Record<TransactionKind, readonly string[]>> = {
  debit: completedDebitJourney,
  credit: creditJourney,
};

/** The posting (by its full name) that says a transaction of the kind is complete. */
export function completedPosting(kind: TransactionKind): string {
  return `TRANSACTION_STATE_${journeys[kind].at(-1)}`;
}

/** What the sender saw of one transaction. */
export interface SendOutcome {
  readonly kind: TransactionKind;
  readonly uetr: string;
  readonly messageIdentification: string;
  /** Every answer, in order; 0 for a request that got no HTTP answer (connection refused or reset). */
  readonly statuses: readonly number[];
  /** Refusals (429, 503) that came without a Retry-After header. */
  readonly refusalsWithoutRetryAfter: number;
  /** When the last answer was a 202. */
  readonly acceptedAt?: number;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Sends one transaction until the ingress answers 202 or something other than a refusal: an on-us
 * debit as its bank, a credit as the clearing house (with its bearer token). A refusal (429, 503) is
 * waited out for its Retry-After (at most 2 s, at least 100 ms); no answer at all (the ingress is down)
 * is tried again after 250 ms; `giveUpAt` (or `abandoned()`) ends the attempts.
 */
export async function sendUntilAccepted(
  e2e: EndToEnd,
  giveUpAt: number,
  abandoned: () => boolean = () => false,
  kind: TransactionKind = 'debit',
): Promise<SendOutcome> {
  const sample = kind === 'credit' ? sampleCredit(root) : sampleOnUsDebit(root);
  const send = () =>
    kind === 'credit'
      ? e2e.post('inbound/credit-transfer-authorization', sample.body, {
          authorization: `Bearer ${e2e.pipeline.scheme.token}`,
        })
      : e2e.post('outbound/direct-debit', sample.body);
  const statuses: number[] = [];
  let refusalsWithoutRetryAfter = 0;
  while (Date.now() < giveUpAt && !abandoned()) {
    let response: Response;
    try {
      response = await send();
      await response.arrayBuffer();
    } catch {
      statuses.push(0);
      await pause(250);
      continue;
    }
    statuses.push(response.status);
    if (response.status === 202) {
      return {
        kind,
        uetr: sample.uetr,
        messageIdentification: sample.messageIdentification,
        statuses,
        refusalsWithoutRetryAfter,
        acceptedAt: Date.now(),
      };
    }
    if (response.status !== 429 && response.status !== 503) break;
    const retryAfter = Number(response.headers.get('retry-after'));
    if (!Number.isFinite(retryAfter) || response.headers.get('retry-after') === null) {
      refusalsWithoutRetryAfter += 1;
    }
    await pause(Math.min(2_000, Math.max(100, (Number.isFinite(retryAfter) ? retryAfter : 0) * 1000)));
  }
  return {
    kind,
    uetr: sample.uetr,
    messageIdentification: sample.messageIdentification,
    statuses,
    refusalsWithoutRetryAfter,
  };
}

/** The books of one transaction, from what the banks received. */
export interface TransactionBooks {
  readonly uetr: string;
  readonly kind: TransactionKind;
  readonly completed: boolean;
  /** A stage posted under more than one event id, or more than one message id for one message. */
  readonly duplicatedEffects: readonly string[];
  /** The TRANSACTION_STATE postings did not arrive in the journey's order. */
  readonly outOfOrder: boolean;
  /** Repeats of an id the bank already had (allowed: the bank recognises them). */
  readonly redeliveries: number;
  /** The last stage posted (none: undefined), to tell where a transaction not complete stopped. */
  readonly reached: string | undefined;
  /** The kinds of message the banks exchanged for it, in the order first seen. */
  readonly messages: readonly string[];
}

/**
 * Checks one transaction's postings (the initiating bank's for a debit, the creditor bank's for a
 * credit) and messages (every bank's) against its kind's journey.
 */
export function booksOf(
  uetr: string,
  postings: readonly ReceivedPosting[],
  messages: readonly ExchangedMessage[],
  kind: TransactionKind = 'debit',
): TransactionBooks {
  const journey = journeys[kind];
  const states = postings.filter((entry) => entry.posting.class === 'TRANSACTION_STATE');
  const types = transactionStateTypes(states);
  const duplicatedEffects: string[] = [];
  const idsByType = new Map<string, Set<string>>();
  for (const entry of states) {
    if (entry.posting.class !== 'TRANSACTION_STATE') continue;
    const type = entry.posting.type as string;
    const ids = idsByType.get(type) ?? new Set<string>();
    ids.add(entry.eventId);
    idsByType.set(type, ids);
  }
  for (const [type, ids] of idsByType) {
    if (ids.size > 1) duplicatedEffects.push(`${type} posted under ${ids.size} event ids`);
  }
  const idsByKind = new Map<string, Set<string>>();
  let redeliveries = 0;
  for (const message of messages) {
    const ids = idsByKind.get(message.kind) ?? new Set<string>();
    ids.add(message.messageIdentification);
    idsByKind.set(message.kind, ids);
    redeliveries += message.duplicates;
  }
  for (const [kind, ids] of idsByKind) {
    if (ids.size > 1) duplicatedEffects.push(`${kind} sent under ${ids.size} message ids`);
  }
  // In order: the distinct types, in arrival order, are a prefix of the journey and never go back.
  const distinct = types.filter((type, index) => types.indexOf(type) === index);
  const outOfOrder = distinct.some((type, index) => journey[index] !== type);
  return {
    uetr,
    kind,
    completed: types.includes(journey.at(-1) as string),
    duplicatedEffects,
    outOfOrder,
    redeliveries,
    reached: types.at(-1),
    messages: [...idsByKind.keys()],
  };
}

/** One row of the fault table. */
export interface FaultRow {
  readonly fault: string;
  readonly accepted: number;
  /** Of those accepted, the credits (the rest are on-us debits). */
  readonly credits: number;
  /** Answered 202 and not yet complete when the fault was injected (sampled twice a second). */
  readonly inFlightAtFault: number;
  readonly peakInFlight: number;
  readonly lost: number;
  readonly duplicated: number;
  readonly outOfOrder: number;
  readonly redeliveries: number;
  /** From the end of the fault and of the load until every transaction of the round was complete. */
  readonly recoveryMs: number;
  readonly answers: string;
}

export function formatFaultTable(rows: readonly FaultRow[]): string {
  const header = [
    'fault',
    'accepted',
    'credits',
    'in flight at fault',
    'peak in flight',
    'lost',
    'duplicated',
    'out of order',
    'redeliveries',
    'recovery s',
    'ingress answers',
  ];
  const lines = rows.map((row) => [
    row.fault,
    String(row.accepted),
    String(row.credits),
    String(row.inFlightAtFault),
    String(row.peakInFlight),
    String(row.lost),
    String(row.duplicated),
    String(row.outOfOrder),
    String(row.redeliveries),
    (row.recoveryMs / 1000).toFixed(1),
    row.answers,
  ]);
  const widths = header.map((title, column) =>
    Math.max(title.length, ...lines.map((line) => (line[column] as string).length)),
  );
  const render = (cells: readonly string[]) =>
    `| ${cells.map((cell, column) => cell.padEnd(widths[column] as number)).join(' | ')} |`;
  return [
    render(header),
    `|${widths.map((width) => '-'.repeat(width + 2)).join('|')}|`,
    ...lines.map(render),
  ].join('\n');
}

/** "202×950 503×12 none×4": how many of each answer the sending bank got. */
export function summariseAnswers(outcomes: readonly SendOutcome[]): string {
  const counts = new Map<number, number>();
  for (const outcome of outcomes) {
    for (const status of outcome.statuses) counts.set(status, (counts.get(status) ?? 0) + 1);
  }
  return [...counts.entries()]
    .sort(([a], [b]) => a - b)
    .map(([status, count]) => `${status === 0 ? 'none' : status}×${count}`)
    .join(' ');
}
