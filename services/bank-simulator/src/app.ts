import { createHash } from 'node:crypto';
import {
  bankPaths,
  type CreditTransfer,
  type DirectDebit,
  deliveryHeaders,
  type EventPosting,
  type MessageName,
  type Messages,
  maxRequestBodyBytes,
  type PaymentStatusReport,
  type ProblemDetails,
  parseJsonExact,
  problem,
  problemContentType,
  validate,
  validationProblem,
} from '@rp/contracts';
import { type AppEnv, AppError, type Clock, type Logger, transactionLogger } from '@rp/runtime';
import type { Context, Hono } from 'hono';
import { type FaultAction, type FaultRoute, type FaultTable, parseFaultRule } from './faults.ts';
import type { SimulatorMetrics } from './metrics.ts';
import {
  type MessageKind,
  type MessageRoute,
  messageKinds,
  messageRoutes,
  type SimulatorRecords,
} from './records.ts';
import type { InboundResponder } from './responder.ts';
import { verifySignature } from './signature.ts';

export interface SimulatorRouteDeps {
  readonly records: SimulatorRecords;
  readonly faults: FaultTable;
  readonly responder: InboundResponder;
  /** Signing secrets per bank; a bank without any receives postings and credits unsigned. */
  readonly signingSecrets: ReadonlyMap<string, readonly string[]>;
  readonly signatureToleranceSeconds: number | undefined;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly metrics: SimulatorMetrics;
  /** Aborted when the simulator stops: hanging requests and long polls end. */
  readonly stopping: AbortSignal;
  /** Upper bound of a long poll. */
  readonly maxWaitMs: number;
}

/** Headers of a posting worth keeping for inspection (never the signature). */
const keptHeaders = [
  deliveryHeaders.id,
  deliveryHeaders.timestamp,
  deliveryHeaders.traceparent,
  deliveryHeaders.tracestate,
];

/** Registers the bank routes (`/banks/:memberId/...`) and the inspection and fault routes (`/sim/...`). */
export function registerSimulatorRoutes(app: Hono<AppEnv>, deps: SimulatorRouteDeps): void {
  const { records, faults, metrics } = deps;

  const bankRoute = (
    route: FaultRoute,
    path: string,
    handle: (
      c: Context<AppEnv>,
      memberId: string,
      body: string,
      options: { report: boolean },
    ) => Promise<Response>,
  ) => {
    app.post(`/banks/:memberId${path}`, async (c) => {
      const memberId = c.req.param('memberId');
      records.count(route, memberId, 'received');
      metrics.received(route, memberId);
      const length = Number(c.req.header('content-length') ?? '0');
      if (length > maxRequestBodyBytes) return problemJson(c, problem('payloadTooLarge'));
      // The body is read before any fault, so a fault can target a transaction and the log can name it.
      const body = await c.req.text();
      const webhookId = c.req.header(deliveryHeaders.id);
      const logged =
        route === 'events'
          ? undefined
          : records.addRequest({
              route,
              memberId,
              at: deps.clock.now().toISOString(),
              ...messageIdentifiersOf(body),
              ...(webhookId === undefined ? {} : { webhookId }),
            });
      const uetr =
        logged !== undefined ? logged.uetr : faults.targetsUetr() ? postingUetrOf(body) : undefined;
      const action = faults.decide(memberId, route, uetr);
      if (action.kind !== 'pass') {
        records.count(route, memberId, 'faultsInjected');
        metrics.fault(route, action.kind);
        if (logged) logged.fault = action.kind === 'hang' ? 'no-response' : action.kind;
      }
      if (action.kind !== 'pass' && action.kind !== 'no-report') {
        if (logged && (action.kind === 'drop' || action.kind === 'hang')) {
          logged.answer = action.kind === 'drop' ? 'dropped' : 'no-response';
        }
        const early = await injectFault(c, action, deps);
        if (early) {
          if (logged && action.kind === 'error') logged.answer = early.status;
          return early;
        }
      }
      let response: Response;
      try {
        response = await handle(c, memberId, body, { report: action.kind !== 'no-report' });
      } catch (error) {
        // A refused call (a bad signature) is answered by the error handler: log what it will answer.
        if (logged) logged.answer = error instanceof AppError ? error.status : 500;
        throw error;
      }
      if (logged) logged.answer = response.status;
      return response;
    });
  };

  /**
   * Checks the engine's signature when the bank has secrets (a bank without any takes the call unsigned)
   * and refuses the call with 401 when it does not match; true when it was checked and matched.
   */
  const checkSignature = (c: Context<AppEnv>, route: FaultRoute, memberId: string, body: string): boolean => {
    const secrets = deps.signingSecrets.get(memberId) ?? [];
    if (secrets.length === 0) return false;
    const id = c.req.header(deliveryHeaders.id);
    const check = verifySignature({
      secrets,
      id,
      timestamp: c.req.header(deliveryHeaders.timestamp),
      signature: c.req.header(deliveryHeaders.signature),
      body,
      ...(deps.signatureToleranceSeconds === undefined
        ? {}
        : { toleranceSeconds: deps.signatureToleranceSeconds }),
      now: deps.clock.now(),
    });
    if (!check.ok) {
      records.count(route, memberId, 'signatureFailures');
      metrics.signatureFailure(memberId);
      deps.logger.warn({ memberId, route, webhookId: id, reason: check.reason }, 'signature refused');
      throw new AppError('UNAUTHORIZED', `signature refused: ${check.reason}`);
    }
    return true;
  };

  bankRoute('events', bankPaths.eventPosting, async (c, memberId, body) => {
    const signatureVerified = checkSignature(c, 'events', memberId, body);
    const id = c.req.header(deliveryHeaders.id);
    const parsed = parseBody(c, 'EventPosting', body);
    if (!parsed.ok) {
      records.count('events', memberId, 'invalid');
      return parsed.response;
    }
    const posting = parsed.value;
    const uetr = uetrOfPosting(posting);
    const eventId = id ?? postingIdentification(posting, body);
    const headers: Record<string, string> = {};
    for (const name of keptHeaders) {
      const value = c.req.header(name);
      if (value !== undefined) headers[name] = value;
    }
    const outcome = records.addPosting({
      memberId,
      uetr,
      eventId,
      receivedAt: deps.clock.now().toISOString(),
      signatureVerified,
      headers,
      posting,
      text: body,
    });
    const created = outcome !== 'duplicate';
    if (created) {
      records.count('events', memberId, 'accepted');
      metrics.accepted('events', memberId);
      if (outcome === 'out-of-order') {
        metrics.outOfOrder(memberId);
        deps.logger.warn({ memberId, uetr, eventId }, 'event posting out of order');
      }
    } else {
      records.count('events', memberId, 'duplicates');
      metrics.duplicate('events', memberId);
      deps.logger.info({ memberId, uetr, eventId }, 'duplicate event posting');
    }
    return c.json({ eventId, duplicate: !created }, 202);
  });

  bankRoute('outbound', bankPaths.outboundDirectDebitResponse, async (c, memberId, body) => {
    const parsed = parseBody(c, 'PaymentStatusReport', body);
    if (!parsed.ok) {
      records.count('outbound', memberId, 'invalid');
      return parsed.response;
    }
    const report = parsed.value;
    storeMessage('outbound', 'outboundDirectDebitResponse', memberId, report, body);
    return c.json({ messageIdentification: report.messageIdentifiers.messageIdentification }, 202);
  });

  bankRoute('inbound', bankPaths.inboundDirectDebit, async (c, memberId, body, options) => {
    const parsed = parseBody(c, 'DirectDebit', body);
    if (!parsed.ok) {
      records.count('inbound', memberId, 'invalid');
      return parsed.response;
    }
    const debit = parsed.value;
    // A resent debit (same messageIdentification) is acknowledged again but answered once; under a
    // 'no-report' fault it is acknowledged and never answered.
    if (storeMessage('inbound', 'inboundDirectDebit', memberId, debit, body)) {
      if (options.report) deps.responder.respond(memberId, { kind: 'inboundDirectDebit', message: debit });
      else
        transactionLogger(deps.logger, {
          uetr: debit.transactionIdentifiers.uetr,
          messageIdentification: debit.messageIdentifiers.messageIdentification,
        }).info({ memberId }, 'no-report fault: the inbound debit will not be answered');
    }
    return c.json({ messageIdentification: debit.messageIdentifiers.messageIdentification }, 202);
  });

  bankRoute('credit', bankPaths.inboundCreditTransferAuthorization, async (c, memberId, body, options) => {
    const signatureVerified = checkSignature(c, 'credit', memberId, body);
    const parsed = parseBody(c, 'CreditTransfer', body);
    if (!parsed.ok) {
      records.count('credit', memberId, 'invalid');
      return parsed.response;
    }
    const credit = parsed.value;
    // The engine redelivers a credit it got no 202 for (same webhook-id, same messageIdentification): the
    // bank acknowledges it again but credits, and reports, once.
    if (
      storeMessage('credit', 'inboundCreditTransferAuthorization', memberId, credit, body, signatureVerified)
    ) {
      if (options.report)
        deps.responder.respond(memberId, { kind: 'inboundCreditTransferAuthorization', message: credit });
      else
        transactionLogger(deps.logger, {
          uetr: credit.transactionIdentifiers.uetr,
          messageIdentification: credit.messageIdentifiers.messageIdentification,
        }).info({ memberId }, 'no-report fault: the credit transfer authorisation will not be answered');
    }
    return c.json({ messageIdentification: credit.messageIdentifiers.messageIdentification }, 202);
  });

  function storeMessage(
    route: FaultRoute,
    kind: MessageKind,
    memberId: string,
    message: DirectDebit | CreditTransfer | PaymentStatusReport,
    text: string,
    signatureVerified?: boolean,
  ): boolean {
    const uetr = message.transactionIdentifiers.uetr;
    const messageIdentification = message.messageIdentifiers.messageIdentification;
    const { created } = records.addMessage({
      kind,
      memberId,
      uetr,
      messageIdentification,
      at: deps.clock.now().toISOString(),
      ...(signatureVerified === undefined ? {} : { signatureVerified }),
      text,
    });
    const log = transactionLogger(deps.logger, { uetr, messageIdentification });
    if (created) {
      records.count(route, memberId, 'accepted');
      metrics.accepted(route, memberId);
      log.info({ memberId, kind }, 'message received');
    } else {
      records.count(route, memberId, 'duplicates');
      metrics.duplicate(route, memberId);
      log.info({ memberId, kind }, 'duplicate message');
    }
    return created;
  }

  app.get('/sim/faults', (c) => c.json({ faults: faults.list() }));
  app.post('/sim/faults', async (c) => {
    const rule = parseFaultRule(await readJson(c));
    faults.add(rule);
    deps.logger.info({ rule }, 'fault injected');
    return c.json({ faults: faults.list() }, 201);
  });
  app.delete('/sim/faults', (c) => {
    faults.clear();
    return c.json({ faults: [] });
  });

  app.get('/sim/postings', (c) => {
    const filter = optionalFilter(c, ['uetr', 'memberId']);
    return c.json({ postings: records.postings(filter) });
  });

  app.get('/sim/postings/wait', async (c) => {
    const uetr = c.req.query('uetr');
    if (!uetr) throw queryError('uetr', 'is required');
    const count = positiveInt(c, 'count', 1);
    const timeoutMs = Math.min(positiveInt(c, 'timeoutMs', 10_000), deps.maxWaitMs);
    const memberId = c.req.query('memberId');
    const filter = { uetr, ...(memberId ? { memberId } : {}) };
    const signal = AbortSignal.any([deps.stopping, c.req.raw.signal]);
    // Counted on every change, decoded once: a kept posting is its text until it is read.
    const found = await records.waitFor(
      () => (records.postingCount(filter) >= count ? true : undefined),
      timeoutMs,
      signal,
    );
    const postings = records.postings(filter);
    return c.json({ complete: found !== undefined, count: postings.length, postings });
  });

  app.get('/sim/messages', (c) => {
    const kind = c.req.query('kind');
    if (kind !== undefined && !messageKinds.includes(kind as MessageKind)) {
      throw queryError('kind', `must be one of ${messageKinds.join(', ')}`);
    }
    const filter = optionalFilter(c, ['uetr', 'memberId']);
    return c.json({
      messages: records.messages({ ...filter, ...(kind ? { kind: kind as MessageKind } : {}) }),
    });
  });

  app.get('/sim/requests', (c) => {
    const route = c.req.query('route');
    if (route !== undefined && !messageRoutes.includes(route as MessageRoute)) {
      throw queryError('route', `must be one of ${messageRoutes.join(', ')}`);
    }
    const filter = optionalFilter(c, ['uetr', 'memberId']);
    return c.json({
      requests: records.requests({ ...filter, ...(route ? { route: route as MessageRoute } : {}) }),
    });
  });

  app.get('/sim/stats', (c) => c.json(records.stats()));

  app.post('/sim/reset', (c) => {
    records.reset();
    faults.clear();
    deps.logger.info('simulator reset');
    return c.json({ reset: true });
  });
}

type Parsed<N extends MessageName> = { ok: true; value: Messages[N] } | { ok: false; response: Response };

function parseBody<N extends MessageName>(c: Context<AppEnv>, name: N, body: string): Parsed<N> {
  let json: unknown;
  try {
    json = parseJsonExact(body);
  } catch {
    return { ok: false, response: problemJson(c, problem('malformedJson', undefined, c.req.path)) };
  }
  const result = validate(name, json);
  if (!result.ok)
    return { ok: false, response: problemJson(c, validationProblem(result.errors, c.req.path)) };
  return { ok: true, value: result.value };
}

function problemJson(c: Context<AppEnv>, body: ProblemDetails): Response {
  return c.body(JSON.stringify(body), body.status as 400, { 'content-type': problemContentType });
}

async function readJson(c: Context<AppEnv>): Promise<unknown> {
  try {
    return await c.req.json();
  } catch (error) {
    throw new AppError('MALFORMED_JSON', 'the body is not JSON', { cause: error });
  }
}

/** The UETR and messageIdentification a message body carries, read leniently (any of them may be absent). */
function messageIdentifiersOf(body: string): { uetr?: string; messageIdentification?: string } {
  const json = parseLeniently(body);
  const uetr = stringAt(json, 'transactionIdentifiers', 'uetr');
  const messageIdentification = stringAt(json, 'messageIdentifiers', 'messageIdentification');
  return {
    ...(uetr === undefined ? {} : { uetr }),
    ...(messageIdentification === undefined ? {} : { messageIdentification }),
  };
}

/** The UETR an event posting is about, read leniently. */
function postingUetrOf(body: string): string | undefined {
  const json = parseLeniently(body);
  return stringAt(json, 'tranInfo', 'tranUetr') ?? stringAt(json, 'identifiers', 'uetr');
}

function parseLeniently(body: string): unknown {
  try {
    return JSON.parse(body);
  } catch {
    return undefined;
  }
}

function stringAt(json: unknown, outer: string, inner: string): string | undefined {
  if (typeof json !== 'object' || json === null) return undefined;
  const parent = (json as Record<string, unknown>)[outer];
  if (typeof parent !== 'object' || parent === null) return undefined;
  const value = (parent as Record<string, unknown>)[inner];
  return typeof value === 'string' ? value : undefined;
}

export function uetrOfPosting(posting: EventPosting): string {
  return posting.class === 'TRANSACTION_STATE' ? posting.tranInfo.tranUetr : posting.identifiers.uetr;
}

/** A posting's own identity when the delivery carries no event id header. */
function postingIdentification(posting: EventPosting, body: string): string {
  if (posting.class === 'TRANSACTION_STATE') return posting.messageInfo.messageIdentification;
  return createHash('sha256').update(body).digest('hex');
}

function optionalFilter<K extends string>(
  c: Context<AppEnv>,
  keys: readonly K[],
): Partial<Record<K, string>> {
  const filter: Partial<Record<K, string>> = {};
  for (const key of keys) {
    const value = c.req.query(key);
    if (value) filter[key] = value;
  }
  return filter;
}

function positiveInt(c: Context<AppEnv>, name: string, fallback: number): number {
  const raw = c.req.query(name);
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value < 1) throw queryError(name, 'must be a positive integer');
  return value;
}

function queryError(name: string, detail: string): AppError {
  return new AppError('VALIDATION_FAILED', `query parameter ${name} ${detail}`, {
    details: [{ pointer: `/${name}`, detail }],
  });
}

interface NodeBindings {
  incoming?: {
    socket?: { destroy(): void; destroyed: boolean; once(event: 'close', listener: () => void): void };
  };
}

/**
 * Applies a fault. Returns the response that replaces the bank's answer, or undefined when the request
 * goes on (after a delay).
 */
async function injectFault(
  c: Context<AppEnv>,
  action: Exclude<FaultAction, { kind: 'pass' } | { kind: 'no-report' }>,
  deps: SimulatorRouteDeps,
): Promise<Response | undefined> {
  const socket = (c.env as NodeBindings | undefined)?.incoming?.socket;
  switch (action.kind) {
    case 'delay':
      await sleep(action.ms, deps.stopping);
      return undefined;
    case 'error': {
      const headers: Record<string, string> = { 'content-type': problemContentType };
      if (action.retryAfterSeconds !== undefined) headers['retry-after'] = String(action.retryAfterSeconds);
      const body: ProblemDetails = {
        type: '/problems/injected-fault',
        title: 'Injected fault',
        status: action.status,
        detail: 'The bank simulator was told to fail this request',
      };
      return c.body(JSON.stringify(body), action.status as 500, headers);
    }
    case 'drop':
      socket?.destroy();
      return c.body(null, 500);
    case 'hang':
      // Nothing is answered: the client times out (or the simulator stops and closes the connection).
      if (socket && !socket.destroyed) {
        await new Promise<void>((resolve) => {
          socket.once('close', resolve);
          deps.stopping.addEventListener('abort', () => resolve(), { once: true });
        });
      } else {
        await new Promise<void>((resolve) =>
          deps.stopping.addEventListener('abort', () => resolve(), { once: true }),
        );
      }
      socket?.destroy();
      return c.body(null, 500);
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}
