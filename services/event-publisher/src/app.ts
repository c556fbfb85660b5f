import {
  type AppEnv,
  AppError,
  type Clock,
  createProblemJsonErrorHandler,
  type Logger,
  notFoundHandler,
  type OperatorAuthenticator,
  operatorGuard,
  operatorOf,
  wholeNumberQuery,
} from '@rp/runtime';
import type { AuditRepository, DeliveryLogRepository, EventDeliveryLog } from '@rp/store';
import { Hono } from 'hono';
import type { DeliveryStore, Lane } from './delivery-store.ts';
import { deliveryId, laneId, normaliseEventId } from './postings.ts';
import { assertReceivesEvents, parseReplayRequest, type ReplayDeps, replay } from './replay.ts';

export interface AdminRoutesDeps {
  readonly store: Pick<DeliveryStore, 'getPosting' | 'getLane' | 'listLanes'>;
  readonly deliveryLog: Pick<DeliveryLogRepository, 'get'>;
  readonly replay: ReplayDeps;
  /** Where every replay is recorded (who, what, when) before it is queued. */
  readonly audit: Pick<AuditRepository, 'record'>;
  readonly clock: Clock;
  /**
   * Verifies operators' access tokens (`ADMIN_AUTH=oauth2`): reads need `operator.read`, a replay
   * `operator.replay`; unset: the routes are open (`ADMIN_AUTH=none`).
   */
  readonly operatorAuth?: OperatorAuthenticator;
  readonly logger: Logger;
}

/** One bank's side of an event: its delivery log entry, or where it waits in the bank's lane. */
export interface BankDelivery {
  readonly memberId: string;
  /** `queued`: waiting in its lane without an attempt yet. */
  readonly outcome: EventDeliveryLog['outcome'] | 'queued' | 'unknown';
  readonly attemptCount: number;
  readonly attempts: EventDeliveryLog['attempts'];
  readonly createdAt?: Date;
  readonly updatedAt?: Date;
  readonly completedAt?: Date;
  /** Postings ahead of it in the lane (0: it is the head), while it waits. */
  readonly queuePosition?: number;
  readonly nextAttemptAt?: Date;
}

const maxLaneList = 500;

/**
 * The operator's API:
 * - `POST /admin/events/replay` `{ memberId, uetr }` or `{ memberId, from, to }`: queue those postings for
 *   the bank again (202 with what was queued); audited under the operator's token subject first;
 * - `GET /admin/events/:eventId/deliveries`: the event and, per bank, its delivery log (attempts with
 *   time, HTTP status, latency and error; the outcome) and its place in the lane while it waits;
 * - `GET /admin/events/lanes?memberId=&limit=`: the parked lanes, oldest first.
 */
export function createAdminRoutes(deps: AdminRoutesDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.onError(createProblemJsonErrorHandler({ logger: deps.logger }));
  app.notFound(notFoundHandler);
  app.use('/admin/*', operatorGuard(deps.operatorAuth));

  app.post('/admin/events/replay', async (c) => {
    let body: unknown;
    try {
      body = await c.req.json();
    } catch {
      throw new AppError('MALFORMED_JSON', 'the body is not JSON');
    }
    const request = parseReplayRequest(body);
    // Refused before the audit: the trail holds replays that were tried, not requests for a bank that
    // receives no events.
    assertReceivesEvents(deps.replay.subscriptions, request.memberId);
    await deps.audit.record({
      actor: operatorOf(c).id,
      action: 'events.replay',
      target: `bank ${request.memberId} ${'uetr' in request ? `transaction ${request.uetr}` : `postings ${request.from.toISOString()} to ${request.to.toISOString()}`}`,
      at: deps.clock.now(),
    });
    const result = await replay(deps.replay, request);
    return c.json(result, 202);
  });

  app.get('/admin/events/lanes', async (c) => {
    const memberId = c.req.query('memberId') || undefined;
    const limit = wholeNumberQuery(c.req.query('limit'), { name: 'limit', fallback: 100, max: maxLaneList });
    const lanes = await deps.store.listLanes(memberId, limit);
    return c.json({ lanes: lanes.map(laneView) });
  });

  app.get('/admin/events/:eventId/deliveries', async (c) => {
    const eventId = normaliseEventId(c.req.param('eventId'));
    // A posting sent at once is known by its delivery log entries (one per bank, by `_id`); one that
    // waits, or waited, is stored too, with the banks it waits for.
    const receivers = deps.replay.subscriptions.receivers().map((participant) => participant.memberId);
    const [stored, logs] = await Promise.all([
      deps.store.getPosting(eventId),
      Promise.all(receivers.map((memberId) => deps.deliveryLog.get(deliveryId(eventId, memberId)))),
    ]);
    const logOf = new Map<string, EventDeliveryLog>();
    for (const log of logs) if (log) logOf.set(log.memberId, log);
    const memberIds = [...new Set([...(stored?.memberIds ?? []), ...logOf.keys()])];
    const described = logs.find((log) => log?.source) ?? logs.find((log) => log);
    if (memberIds.length === 0 || (!stored && !described)) {
      throw new AppError('NOT_FOUND', `no posting ${eventId} was sent to any bank`);
    }
    const uetr = stored?.uetr ?? (described as EventDeliveryLog).uetr;
    const deliveries: BankDelivery[] = await Promise.all(
      memberIds.map(async (memberId) => {
        const log = logOf.get(memberId);
        const lane = await deps.store.getLane(laneId(memberId, uetr));
        const position = lane?.pending.findIndex((entry) => entry.eventId === eventId) ?? -1;
        const waiting =
          position >= 0 ? { queuePosition: position, nextAttemptAt: (lane as Lane).nextAttemptAt } : {};
        if (!log)
          return {
            memberId,
            outcome: position >= 0 ? 'queued' : 'unknown',
            attemptCount: 0,
            attempts: [],
            ...waiting,
          };
        return {
          memberId,
          outcome: log.outcome,
          attemptCount: log.attemptCount,
          attempts: log.attempts,
          createdAt: log.createdAt,
          updatedAt: log.updatedAt,
          ...(log.completedAt ? { completedAt: log.completedAt } : {}),
          ...waiting,
        };
      }),
    );
    const source = stored ?? described?.source;
    const eventClass = stored?.eventClass ?? described?.source?.eventClass;
    return c.json({
      eventId,
      uetr,
      ...(eventClass ? { class: eventClass } : {}),
      eventName: stored?.eventName ?? (described as EventDeliveryLog).eventType,
      ...(source?.stageVersion === undefined ? {} : { stageVersion: source.stageVersion }),
      ...(source
        ? {
            producedAt: source.producedAt,
            source: { topic: source.topic, partition: source.partition, offset: source.offset },
          }
        : {}),
      deliveries,
    });
  });

  return app;
}

function laneView(lane: Lane) {
  return {
    memberId: lane.memberId,
    uetr: lane.uetr,
    queued: lane.count,
    head: lane.pending[0]?.eventId ?? null,
    headFailures: lane.headFailures,
    nextAttemptAt: lane.nextAttemptAt,
    parkedAt: lane.parkedAt,
    lastError: lane.lastError ?? null,
  };
}
