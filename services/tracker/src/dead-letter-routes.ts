import type { DeadLetterAdmin, DeadLetterRecord } from '@rp/kafka';
import {
  type AppEnv,
  AppError,
  type Clock,
  createProblemJsonErrorHandler,
  type Logger,
  notFoundHandler,
  operatorOf,
  unauthenticatedOperator,
  wholeNumberQuery,
} from '@rp/runtime';
import type { AuditRepository, RecordedAuditEntry } from '@rp/store';
import { Hono } from 'hono';

/** Records read from a dead-letter topic to find the ones a redrive names. */
const maxRedriveScan = 10_000;
const maxList = 1_000;
const redriveAction = 'dead-letter.redrive';

export interface DeadLetterRoutesDeps {
  readonly deadLetters: DeadLetterAdmin;
  readonly audit: AuditRepository;
  /** Decodes a record's value with the writer schema it names, for display; absent: values are base64. */
  readonly decode?: (value: Buffer) => Promise<unknown>;
  readonly clock: Clock;
  readonly logger: Logger;
}

/**
 * The operator's view of the dead-letter topics of every consumer group on the cluster:
 * - `GET /admin/dead-letters`: each dead-letter topic with its group and record count;
 * - `GET /admin/dead-letters/:topic?limit=`: its records, oldest first, with reason, origin, error, the
 *   record's headers and value, and who redrove it when;
 * - `POST /admin/dead-letters/:topic/redrive` `{ records: [id...] }` or `{ all: true }`: hands the records
 *   back to their group (its first retry tier, due now); each record once, audited under the operator's
 *   token subject (with `ADMIN_AUTH=none`, under the `operator` name the body must give);
 * - `GET /admin/audit?action=&limit=`: the operator audit trail, newest first.
 */
export function createDeadLetterRoutes(deps: DeadLetterRoutesDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.onError(createProblemJsonErrorHandler({ logger: deps.logger }));
  app.notFound(notFoundHandler);

  async function requireTopic(topic: string): Promise<void> {
    const known = await deps.deadLetters.topics();
    if (!known.some((entry) => entry.topic === topic)) {
      throw new AppError('NOT_FOUND', `no dead-letter topic ${topic}`);
    }
  }

  /** Takes back a failed redrive's claims; one that cannot be is logged, since its record then reads as redriven. */
  async function withdrawClaims(topic: string, claimed: readonly DeadLetterRecord[]): Promise<void> {
    const results = await Promise.allSettled(
      claimed.map((record) => deps.audit.withdraw(auditId(topic, record.id))),
    );
    const kept = claimed
      .filter((_, index) => results[index]?.status === 'rejected')
      .map((record) => record.id);
    if (kept.length > 0) {
      deps.logger.error(
        { topic, records: kept, audit: kept.map((id) => auditId(topic, id)) },
        'a failed redrive could not take back its claims: these records read as redriven, and are not; delete their audit entries to redrive them',
      );
    }
  }

  async function redriveStatus(
    topic: string,
    records: readonly DeadLetterRecord[],
  ): Promise<Map<string, RecordedAuditEntry>> {
    const entries = await Promise.all(records.map((record) => deps.audit.get(auditId(topic, record.id))));
    const found = new Map<string, RecordedAuditEntry>();
    records.forEach((record, index) => {
      const entry = entries[index];
      if (entry) found.set(record.id, entry);
    });
    return found;
  }

  app.get('/admin/dead-letters', async (c) => c.json({ topics: await deps.deadLetters.topics() }));

  app.get('/admin/dead-letters/:topic', async (c) => {
    const topic = c.req.param('topic');
    const limit = wholeNumberQuery(c.req.query('limit'), { name: 'limit', fallback: 100, max: maxList });
    await requireTopic(topic);
    const records = await deps.deadLetters.read(topic, { limit });
    const redriven = await redriveStatus(topic, records);
    return c.json({
      topic,
      records: await Promise.all(records.map((record) => view(record, redriven.get(record.id), deps.decode))),
    });
  });

  app.post('/admin/dead-letters/:topic/redrive', async (c) => {
    const topic = c.req.param('topic');
    const authenticated = operatorOf(c);
    const request = parseRedriveRequest(
      await jsonBody(c.req.raw),
      authenticated === unauthenticatedOperator ? undefined : authenticated.id,
    );
    await requireTopic(topic);
    const records = await deps.deadLetters.read(topic, { limit: maxRedriveScan });
    const byId = new Map(records.map((record) => [record.id, record]));
    const named = request.all ? records.map((record) => record.id) : request.records;
    const notFound = named.filter((id) => !byId.has(id));
    const refused = named
      .filter((id) => byId.get(id)?.redrivable === false)
      .map((id) => ({ id, detail: 'its origin is a retry tier, not a source topic' }));
    const candidates = named.flatMap((id) => {
      const record = byId.get(id);
      return record?.redrivable ? [record] : [];
    });
    const at = deps.clock.now();
    const claimed: DeadLetterRecord[] = [];
    const alreadyRedriven: { id: string; actor: string; at: Date }[] = [];
    try {
      for (const record of candidates) {
        const outcome = await deps.audit.record({
          id: auditId(topic, record.id),
          actor: request.operator,
          action: redriveAction,
          target: `${topic} ${record.id}`,
          detail: {
            reason: record.reason,
            originTopic: record.origin.topic,
            originOffset: record.origin.offset,
            key: record.key,
          },
          at,
        });
        if (outcome.outcome === 'recorded') claimed.push(record);
        else alreadyRedriven.push({ id: record.id, actor: outcome.entry.actor, at: outcome.entry.at });
      }
      await deps.deadLetters.redrive(claimed);
    } catch (error) {
      // Nothing was handed back (a claim that could not be written, or the hand-over refused): take back
      // the claims made, so that the redrive can be asked for again.
      await withdrawClaims(topic, claimed);
      throw error;
    }
    deps.logger.info(
      {
        topic,
        operator: request.operator,
        redriven: claimed.length,
        alreadyRedriven: alreadyRedriven.length,
      },
      'dead letters redriven',
    );
    return c.json({
      topic,
      redriven: claimed.map((record) => record.id),
      alreadyRedriven,
      refused,
      notFound,
    });
  });

  app.get('/admin/audit', async (c) => {
    const limit = wholeNumberQuery(c.req.query('limit'), { name: 'limit', fallback: 100, max: 500 });
    const action = c.req.query('action') || undefined;
    return c.json({ entries: await deps.audit.list({ ...(action ? { action } : {}), limit }) });
  });

  return app;
}

function auditId(topic: string, recordId: string): string {
  return `${redriveAction}:${topic}:${recordId}`;
}

async function view(
  record: DeadLetterRecord,
  redriven: RecordedAuditEntry | undefined,
  decode: DeadLetterRoutesDeps['decode'],
): Promise<Record<string, unknown>> {
  const { value, ...rest } = record;
  let shown: Record<string, unknown> = { value: null };
  if (value !== null) {
    shown = { valueBase64: value.toString('base64') };
    if (decode) {
      try {
        shown = { value: await decode(value) };
      } catch {
        // Not readable with any registered schema (a poison record): the bytes are what there is to show.
      }
    }
  }
  return {
    ...rest,
    ...shown,
    redriven: redriven ? { actor: redriven.actor, at: redriven.at } : null,
  };
}

async function jsonBody(request: Request): Promise<unknown> {
  try {
    return await request.json();
  } catch {
    throw new AppError('MALFORMED_JSON', 'the body is not JSON');
  }
}

const recordIdPattern = /^\d+:\d+$/;

/** `actor`: the authenticated operator; without one the body must name who asks (`operator`). */
function parseRedriveRequest(
  body: unknown,
  actor: string | undefined,
): { operator: string; all: boolean; records: string[] } {
  const problems: { pointer: string; detail: string }[] = [];
  const object =
    typeof body === 'object' && body !== null && !Array.isArray(body)
      ? (body as Record<string, unknown>)
      : {};
  if (object !== body) problems.push({ pointer: '', detail: 'must be a JSON object' });
  const operator = actor ?? object.operator;
  if (typeof operator !== 'string' || operator.trim().length === 0 || operator.length > 100) {
    problems.push({ pointer: '/operator', detail: 'who asks for the redrive: 1 to 100 characters' });
  }
  const all = object.all === true;
  if (object.all !== undefined && typeof object.all !== 'boolean') {
    problems.push({ pointer: '/all', detail: 'must be a boolean' });
  }
  const records = object.records;
  if (all && records !== undefined) {
    problems.push({ pointer: '/records', detail: 'give either records or all, not both' });
  } else if (!all) {
    if (!Array.isArray(records) || records.length === 0 || records.length > maxList) {
      problems.push({ pointer: '/records', detail: `1 to ${maxList} record ids (<partition>:<offset>)` });
    } else {
      records.forEach((id, index) => {
        if (typeof id !== 'string' || !recordIdPattern.test(id)) {
          problems.push({ pointer: `/records/${index}`, detail: 'must be <partition>:<offset>' });
        }
      });
    }
  }
  if (problems.length > 0) {
    throw new AppError('VALIDATION_FAILED', 'the redrive request is not valid', { details: problems });
  }
  return {
    operator: (operator as string).trim(),
    all,
    records: all ? [] : [...new Set(records as string[])],
  };
}
