import { randomUUID } from 'node:crypto';
import { checkAdminAnswer, trackerAdmin } from '@rp/contracts';
import { type AvroCodec, consumerGroupName, deadLetterTopicName } from '@rp/kafka';
import { stateEventId } from '@rp/pipeline';
import {
  createHealth,
  createHttpApp,
  createLogger,
  createMetrics,
  type HttpServer,
  startHttpServer,
} from '@rp/runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postingMessageId } from '../src/postings.ts';
import {
  change,
  exampleOutcome,
  journeyChanges,
  newDebit,
  startTrackerStack,
  type TrackerStack,
} from './fixtures.ts';
import { eventually } from './topic-reader.ts';

const logger = createLogger({ service: 'tracker-admin-contract', level: 'warn' });

let stack: TrackerStack;
let server: HttpServer;

beforeAll(async () => {
  stack = await startTrackerStack(logger);
  // The admin routes as the service serves them: on the HTTP app with the probes, over a real socket.
  const app = createHttpApp({
    health: createHealth(),
    metrics: createMetrics({ service: 'tracker-admin-contract', defaultMetrics: false }),
    logger,
  });
  app.route('/', stack.tracker.app);
  server = await startHttpServer(app, { port: 0, host: '127.0.0.1' });
}, 180_000);

afterAll(async () => {
  await server?.close();
  await stack?.close();
});

/** `METHOD /path/{param}`: how the document and the comparison name an operation. */
const operationKey = (method: string, path: string) => `${method.toUpperCase()} ${path}`;
const documented = trackerAdmin.operations.map((operation) => ({
  key: operationKey(operation.method, operation.path),
}));

/** The documented operations each checked call was made to, and the statuses they answered. */
const called = new Map<string, Set<number>>();

interface Answer {
  status: number;
  body: unknown;
}

/**
 * Calls the running service, expects `status`, and checks the answer against the admin document
 * (operation, status, media type and body schema).
 */
async function call(method: 'GET' | 'POST', path: string, status: number, body?: unknown): Promise<Answer> {
  const response = await fetch(`${server.url}${path}`, {
    method,
    ...(body === undefined
      ? {}
      : {
          headers: { 'content-type': 'application/json' },
          body: typeof body === 'string' ? body : JSON.stringify(body),
        }),
  });
  const answer = await checkAdminAnswer('tracker', method, path, response);
  expect({ path, status: response.status, body: answer.body }).toMatchObject({ path, status });
  expect(answer.problems).toEqual([]);
  const { operation } = answer;
  expect(operation, `${method} ${path} is a documented operation`).toBeDefined();
  if (operation) called.set(operation, (called.get(operation) ?? new Set()).add(response.status));
  return { status: response.status, body: answer.body };
}

/** A GET outside the contract check, for waiting on a condition. */
async function peek(path: string): Promise<Answer> {
  const response = await fetch(`${server.url}${path}`);
  return { status: response.status, body: await response.json() };
}

const pointers = (body: unknown) =>
  ((body as { errors?: { pointer: string }[] }).errors ?? []).map((error) => error.pointer).sort();

describe('the tracker admin API against its OpenAPI description', () => {
  it('registers exactly the documented /admin routes', () => {
    const registered = stack.tracker.app.routes
      .filter((route) => route.method !== 'ALL' && route.path.startsWith('/admin'))
      .map((route) => operationKey(route.method, route.path.replace(/:([A-Za-z0-9_]+)/g, '{$1}')));
    expect([...new Set(registered)].sort()).toEqual(documented.map((operation) => operation.key).sort());
    // Each documented operation once, so the comparison above is between sets.
    expect(new Set(documented.map((operation) => operation.key)).size).toBe(documented.length);
  });

  it('answers every documented operation as documented, with real data behind it', async () => {
    // A debit's whole journey, then a change the final state refuses (dead-lettered), two delivery attempts
    // (one acknowledged, one without an answer) and a record that is not Avro at all (a poison record).
    const debit = newDebit();
    const uetr = debit.transactionIdentifiers.uetr;
    const endToEndId = debit.transactionIdentifiers.endToEndIdentification;
    await stack.sendStates(journeyChanges(debit));
    await eventually(async () => {
      const found = await stack.store.transactions.get(uetr);
      return found?.state === 'DEBIT_COMPLETED' ? found : undefined;
    });
    await stack.sendStates([
      change(debit, 'DEBIT_UNPAID', 'DEBIT_RESPONSE_ACCEPTED', new Date('2025-03-17T06:06:00Z')),
    ]);
    await stack.producer.send('rp.delivery.outcome.v1', [
      { key: uetr, value: exampleOutcome('acknowledged', uetr) },
      { key: uetr, value: exampleOutcome('retryable-timeout', uetr) },
    ]);
    const stateTopic = stack.names['rp.transaction.state.v1'];
    const raw: AvroCodec<Buffer> = {
      subject: 'raw',
      schemaId: 0,
      encode: (value) => value,
      decode: async (buffer) => buffer,
      decodeMany: async (buffers) =>
        buffers.map((buffer) => ({ ok: true, value: buffer ?? Buffer.alloc(0) })),
    };
    const rawProducer = stack.kafka.createProducer<Record<string, Buffer>>({ codecs: { [stateTopic]: raw } });
    const poisonKey = `poison-${randomUUID()}`;
    try {
      await rawProducer.send(stateTopic, [{ key: poisonKey, value: Buffer.from('not avro') }]);
    } finally {
      await rawProducer.disconnect();
    }
    // The event publisher's delivery log of two of its postings at the debtor's bank (same database).
    const memberId = '250655';
    const logged = (eventType: string) => ({
      eventId: `${postingMessageId(stateEventId(uetr, eventType))}:${memberId}`,
      uetr,
      memberId,
      eventType: `TRANSACTION_STATE_${eventType}`,
    });
    await stack.store.deliveryLog.recordAttempt(
      logged('DEBIT_REQUEST_RECEIVED'),
      { at: new Date('2025-03-14T07:30:01Z'), httpStatus: 200, latencyMs: 12.5 },
      'delivered',
    );
    await stack.store.deliveryLog.recordAttempt(
      logged('DEBIT_COMPLETED'),
      { at: new Date('2025-03-14T07:30:09Z'), httpStatus: null, latencyMs: 5000, error: 'timeout' },
      'pending',
    );

    const deadTopic = deadLetterTopicName(consumerGroupName('tracker', stateTopic));
    type Dead = { id: string; key: string; value?: { uetr?: string } | null; valueBase64?: string };
    const [illegal, poison] = await eventually(async () => {
      const listed = await peek(`/admin/dead-letters/${deadTopic}`);
      if (listed.status !== 200) return undefined;
      const records = (listed.body as { records: Dead[] }).records;
      const refused = records.find((record) => record.value?.uetr === uetr);
      const unreadable = records.find((record) => record.key === poisonKey);
      return refused && unreadable ? ([refused, unreadable] as const) : undefined;
    });
    await eventually(async () => {
      const found = await stack.store.transactions.get(uetr);
      return found && found.deliveryAttempts.length === 2 ? found : undefined;
    });

    // GET /admin/transactions/{uetr}
    const snapshot = (await call('GET', `/admin/transactions/${uetr}`, 200)).body;
    expect(snapshot).toMatchObject({ uetr, state: 'DEBIT_COMPLETED', lastSeq: 9 });
    expect((snapshot as { deliveryAttempts: { httpStatus: number | null }[] }).deliveryAttempts).toEqual([
      expect.objectContaining({ httpStatus: 202, outcome: 'accepted' }),
      expect.objectContaining({ httpStatus: null, outcome: 'retryable', error: expect.any(String) }),
    ]);
    expect((await call('GET', `/admin/transactions/${uetr.toUpperCase()}`, 200)).body).toMatchObject({
      uetr,
    });
    const unknown = randomUUID();
    expect((await call('GET', `/admin/transactions/${unknown}`, 404)).body).toMatchObject({
      detail: `no transaction ${unknown}`,
    });
    expect(pointers((await call('GET', '/admin/transactions/not-a-uuid', 422)).body)).toEqual(['/uetr']);

    // GET /admin/transactions/{uetr}/events
    const events = (await call('GET', `/admin/transactions/${uetr}/events`, 200)).body as {
      events: { eventId: string; outcome: string; completedAt?: string }[];
    };
    expect(events.events).toEqual([
      expect.objectContaining({
        eventId: postingMessageId(stateEventId(uetr, 'DEBIT_REQUEST_RECEIVED')),
        outcome: 'delivered',
        completedAt: '2025-03-14T07:30:01.000Z',
      }),
      expect.not.objectContaining({ completedAt: expect.anything() }),
    ]);
    const quiet = newDebit();
    await stack.sendStates(journeyChanges(quiet).slice(0, 1));
    await eventually(async () =>
      (await stack.store.transactions.get(quiet.transactionIdentifiers.uetr)) ? true : undefined,
    );
    expect(
      (await call('GET', `/admin/transactions/${quiet.transactionIdentifiers.uetr}/events`, 200)).body,
    ).toEqual({ uetr: quiet.transactionIdentifiers.uetr, events: [] });
    await call('GET', `/admin/transactions/${unknown}/events`, 404);
    expect(pointers((await call('GET', '/admin/transactions/12345/events', 422)).body)).toEqual(['/uetr']);

    // GET /admin/transactions
    const byEndToEnd = (
      await call(
        'GET',
        `/admin/transactions?endToEndId=${encodeURIComponent(endToEndId)}&state=DEBIT_COMPLETED`,
        200,
      )
    ).body as { transactions: Record<string, unknown>[] };
    expect(byEndToEnd.transactions.map((entry) => [entry.uetr, 'history' in entry])).toEqual([[uetr, false]]);
    // The filters are in the query: a state the transaction is not in finds nothing.
    expect(
      (
        await call(
          'GET',
          `/admin/transactions?endToEndId=${encodeURIComponent(endToEndId)}&state=DEBIT_RECEIVED`,
          200,
        )
      ).body,
    ).toEqual({ transactions: [] });
    const byTime = (
      await call(
        'GET',
        '/admin/transactions?state=DEBIT_COMPLETED&from=2025-03-14T09:30:00%2B02:00&to=2025-03-15&limit=10',
        200,
      )
    ).body as { transactions: Record<string, unknown>[] };
    expect(byTime.transactions.map((entry) => [entry.uetr, 'history' in entry])).toEqual([[uetr, false]]);
    const newest = (await call('GET', '/admin/transactions', 200)).body as {
      transactions: { uetr: string }[];
    };
    expect(newest.transactions.map((entry) => entry.uetr).sort()).toEqual(
      [uetr, quiet.transactionIdentifiers.uetr].sort(),
    );
    expect(pointers((await call('GET', '/admin/transactions?limit=0', 422)).body)).toEqual(['/limit']);
    expect(pointers((await call('GET', '/admin/transactions?state=FINISHED', 422)).body)).toEqual(['/state']);
    expect(pointers((await call('GET', '/admin/transactions?from=yesterday', 422)).body)).toEqual(['/from']);
    expect(pointers((await call('GET', '/admin/transactions?from=2025-11-31', 422)).body)).toEqual(['/from']);
    expect(pointers((await call('GET', '/admin/transactions?to=2025-03-14T09:30', 422)).body)).toEqual([
      '/to',
    ]);

    // GET /admin/dead-letters
    const topics = (await call('GET', '/admin/dead-letters', 200)).body as {
      topics: { topic: string; records: number }[];
    };
    expect(topics.topics.find((entry) => entry.topic === deadTopic)?.records).toBeGreaterThanOrEqual(2);

    // GET /admin/dead-letters/{topic}
    const listed = (await call('GET', `/admin/dead-letters/${deadTopic}?limit=50`, 200)).body as {
      records: Dead[];
    };
    expect(listed.records.find((record) => record.id === illegal.id)).toMatchObject({
      reason: 'non-retriable',
      errorCode: 'ILLEGAL_TRANSITION',
      value: { uetr, eventType: 'DEBIT_UNPAID' },
      redrivable: true,
      redriven: null,
    });
    expect(listed.records.find((record) => record.id === poison.id)).toMatchObject({
      reason: 'poison',
      valueBase64: Buffer.from('not avro').toString('base64'),
    });
    expect(poison).not.toHaveProperty('value');
    await call('GET', `/admin/dead-letters/${uniqueDeadTopic()}`, 404);
    expect(pointers((await call('GET', `/admin/dead-letters/${deadTopic}?limit=1001`, 422)).body)).toEqual([
      '/limit',
    ]);

    // POST /admin/dead-letters/{topic}/redrive
    const redrive = `/admin/dead-letters/${deadTopic}/redrive`;
    expect(
      (await call('POST', redrive, 200, { operator: 'ops-alice', records: [illegal.id, '0:999999999'] }))
        .body,
    ).toEqual({
      topic: deadTopic,
      redriven: [illegal.id],
      alreadyRedriven: [],
      refused: [],
      notFound: ['0:999999999'],
    });
    const all = (await call('POST', redrive, 200, { operator: 'ops-bob', all: true })).body as {
      redriven: string[];
      alreadyRedriven: { id: string; actor: string }[];
    };
    expect(all.redriven).toContain(poison.id);
    expect(all.alreadyRedriven).toContainEqual(
      expect.objectContaining({ id: illegal.id, actor: 'ops-alice' }),
    );
    expect(pointers((await call('POST', redrive, 422, { records: ['x'] })).body)).toEqual([
      '/operator',
      '/records/0',
    ]);
    expect(
      pointers(
        (await call('POST', redrive, 422, { operator: 'ops', all: true, records: [illegal.id] })).body,
      ),
    ).toEqual(['/records']);
    expect(pointers((await call('POST', redrive, 422, [illegal.id])).body)).toEqual([
      '',
      '/operator',
      '/records',
    ]);
    await call('POST', redrive, 400, 'not json');
    await call('POST', `/admin/dead-letters/${uniqueDeadTopic()}/redrive`, 404, {
      operator: 'ops',
      records: ['0:1'],
    });

    // GET /admin/audit
    const audit = (await call('GET', '/admin/audit?action=dead-letter.redrive&limit=10', 200)).body as {
      entries: { actor: string; target: string }[];
    };
    expect(audit.entries).toContainEqual(
      expect.objectContaining({ actor: 'ops-alice', target: `${deadTopic} ${illegal.id}` }),
    );
    expect(audit.entries).toContainEqual(
      expect.objectContaining({ actor: 'ops-bob', target: `${deadTopic} ${poison.id}` }),
    );
    expect((await call('GET', '/admin/audit?action=no-such-action', 200)).body).toEqual({ entries: [] });
    expect(pointers((await call('GET', '/admin/audit?limit=abc', 422)).body)).toEqual(['/limit']);

    // Every documented operation was called, and answered a success among others.
    expect([...called.keys()].sort()).toEqual(documented.map((operation) => operation.key).sort());
    for (const [key, statuses] of called) expect({ key, ok: statuses.has(200) }).toEqual({ key, ok: true });
  }, 180_000);
});

function uniqueDeadTopic(): string {
  return `nope-${randomUUID()}.dlq`;
}
