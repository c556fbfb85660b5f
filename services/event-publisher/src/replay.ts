import { AppError, type Clock, type FieldError, type Logger, parseInstant } from '@rp/runtime';
import type { DeliveryLogRepository } from '@rp/store';
import type { DeliveryStore, LaneEntry, StoredPosting } from './delivery-store.ts';
import type { PublisherMetrics } from './metrics.ts';
import type { Parking } from './parking.ts';
import type { PostingReader } from './posting-reader.ts';
import { laneId } from './postings.ts';
import type { Subscriptions } from './subscribers.ts';

/** A replay request: one transaction's postings, or a time range of a bank's postings. */
export type ReplayRequest =
  | { readonly memberId: string; readonly uetr: string }
  | { readonly memberId: string; readonly from: Date; readonly to: Date };

export interface ReplayResult {
  readonly memberId: string;
  /** Postings queued for the bank again. */
  readonly queued: number;
  /** Postings the bank was sent that the topic no longer holds (past its retention): not queued. */
  readonly unavailable: number;
  readonly transactions: number;
  /** The first event ids queued, in order (at most 100). */
  readonly eventIds: readonly string[];
  /** More postings matched than one replay takes; replay again from `resumeFrom`. */
  readonly truncated: boolean;
  readonly resumeFrom?: string;
}

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Validates a replay body: `{ memberId, uetr }` or `{ memberId, from, to }` (RFC 3339, from < to). */
export function parseReplayRequest(body: unknown): ReplayRequest {
  const errors: FieldError[] = [];
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new AppError('VALIDATION_FAILED', 'expected a JSON object', {
      details: [{ pointer: '', detail: 'expected { memberId, uetr } or { memberId, from, to }' }],
    });
  }
  const value = body as Record<string, unknown>;
  for (const name of Object.keys(value)) {
    if (!['memberId', 'uetr', 'from', 'to'].includes(name))
      errors.push({ pointer: `/${name}`, detail: 'unknown member' });
  }
  const memberId = value.memberId;
  if (typeof memberId !== 'string' || memberId.length === 0) {
    errors.push({ pointer: '/memberId', detail: 'required: the member id of the bank to replay to' });
  }
  const { uetr, from, to } = value;
  let request: ReplayRequest | undefined;
  if (uetr !== undefined) {
    if (from !== undefined || to !== undefined) {
      errors.push({ pointer: '/uetr', detail: 'give either uetr or from and to, not both' });
    } else if (typeof uetr !== 'string' || !uuidPattern.test(uetr)) {
      errors.push({ pointer: '/uetr', detail: 'must be a UUID' });
    } else if (typeof memberId === 'string') {
      request = { memberId, uetr: uetr.toLowerCase() };
    }
  } else {
    const instant = (field: 'from' | 'to', raw: unknown): Date | undefined => {
      const at = typeof raw === 'string' ? parseInstant(raw) : undefined;
      if (at === undefined) {
        errors.push({
          pointer: `/${field}`,
          detail: 'required without uetr: an RFC 3339 date-time with offset, of a day that exists',
        });
      }
      return at;
    };
    const start = instant('from', from);
    const end = instant('to', to);
    if (start && end && start.getTime() >= end.getTime()) {
      errors.push({ pointer: '/to', detail: 'must be later than from' });
    } else if (start && end && typeof memberId === 'string') {
      request = { memberId, from: start, to: end };
    }
  }
  if (errors.length > 0 || !request) {
    throw new AppError('VALIDATION_FAILED', 'invalid replay request', { details: errors });
  }
  return request;
}

export interface ReplayDeps {
  /** Which postings a bank was sent, and where each was read from. */
  readonly deliveryLog: Pick<DeliveryLogRepository, 'listForReplay'>;
  /** Reads them again from there. */
  readonly reader: PostingReader;
  readonly store: Pick<DeliveryStore, 'savePostings'>;
  readonly parking: Parking;
  readonly subscriptions: Subscriptions;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly metrics: PublisherMetrics;
  /** Most postings one replay queues. */
  readonly maxPostings: number;
}

/** Refuses (404) a bank that receives no events: nothing of it to replay. */
export function assertReceivesEvents(subscriptions: Subscriptions, memberId: string): void {
  if (!subscriptions.subscriber(memberId)) {
    throw new AppError('NOT_FOUND', `bank ${memberId} is not a participant that receives events`);
  }
}

/**
 * Queues postings a bank was sent for it again, at the end of their (bank, transaction) lanes, with their
 * original event ids: the bank deduplicates on webhook-id, so a replay only fills its gaps. The delivery
 * log says which postings the bank was sent and where each was read from; the postings are read again
 * from `rp.events.v1` (so a replay reaches back as far as the topic's retention: a posting no longer
 * there is counted as unavailable), stored with their bodies, and delivered in topic order through the
 * worker, with the same retries, pauses and delivery log as any other posting. A replay of a transaction
 * that is still being delivered lines up behind its queued postings; postings the consumer sends
 * directly while the replay waits may arrive before the replayed ones (a bank orders by stageVersion).
 */
export async function replay(deps: ReplayDeps, request: ReplayRequest): Promise<ReplayResult> {
  const { memberId } = request;
  assertReceivesEvents(deps.subscriptions, memberId);
  const found = await deps.deliveryLog.listForReplay(
    memberId,
    'uetr' in request ? { uetr: request.uetr } : { from: request.from, to: request.to },
    deps.maxPostings + 1,
  );
  const truncated = found.length > deps.maxPostings;
  const sources = (truncated ? found.slice(0, deps.maxPostings) : found).flatMap((entry) =>
    entry.source ? [entry.source] : [],
  );
  const read = await deps.reader.read(sources);
  const postings: StoredPosting[] = sources.flatMap((source) => {
    const posting = read.get(source.postingId);
    return posting ? [{ ...posting, memberIds: [memberId] }] : [];
  });
  await deps.store.savePostings(postings);
  const byTransaction = new Map<string, StoredPosting[]>();
  for (const posting of postings) {
    const list = byTransaction.get(posting.uetr);
    if (list) list.push(posting);
    else byTransaction.set(posting.uetr, [posting]);
  }
  const queuedAt = deps.clock.now();
  for (const [uetr, list] of byTransaction) {
    list.sort((a, b) => a.offset - b.offset);
    const head = list[0] as StoredPosting;
    const entries: LaneEntry[] = list.map((posting) => ({
      eventId: posting.eventId,
      eventName: posting.eventName,
      queuedAt,
      replay: true,
    }));
    await deps.parking.park(
      { laneId: laneId(memberId, uetr), memberId, uetr, topic: head.topic, partition: head.partition },
      entries,
      { waitForRoom: false },
    );
  }
  deps.metrics.replayed(memberId, postings.length);
  const next = truncated ? found[deps.maxPostings]?.source : undefined;
  const unavailable = sources.length - postings.length;
  deps.logger.info(
    {
      memberId,
      ...('uetr' in request ? { uetr: request.uetr } : { from: request.from, to: request.to }),
      queued: postings.length,
      unavailable,
      truncated,
    },
    'postings queued for replay',
  );
  return {
    memberId,
    queued: postings.length,
    unavailable,
    transactions: byTransaction.size,
    eventIds: postings.slice(0, 100).map((posting) => posting.eventId),
    truncated,
    ...(next ? { resumeFrom: next.producedAt.toISOString() } : {}),
  };
}
