import {
  completedDebitJourney,
  type DeliveryOutcome,
  type EventPosting,
  type TransactionStateChanged,
  type TransactionStatePosting,
} from '@rp/contracts';
import { type AvroSerde, consumerGroupName, deadLetterTopicName, type KafkaClient } from '@rp/kafka';
import {
  type PipelineCodecs,
  type PipelineProducer,
  postingIdHeader,
  stateEventId,
  type TopicNames,
} from '@rp/pipeline';
import { AppError, createLogger, createMetrics, type Metrics, systemClock } from '@rp/runtime';
import { type Store, transactionKey } from '@rp/store';
import { metricSample, uniqueName } from '@rp/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDeadLetterRoutes } from '../src/dead-letter-routes.ts';
import { postingMessageId } from '../src/postings.ts';
import type { TrackerOptions, TrackerService } from '../src/service.ts';
import {
  change,
  connectTrackerClients,
  createTestTracker,
  exampleOutcome,
  journeyChanges,
  newDebit,
} from './fixtures.ts';
import { eventually, readTopic, type TopicReader } from './topic-reader.ts';

const logger = createLogger({ service: 'tracker-test', level: 'warn' });

let kafka: KafkaClient;
let names: TopicNames;
let codecs: Partial<PipelineCodecs>;
let producer: PipelineProducer;
let store: Store;
let events: TopicReader<EventPosting>;
let tracker: TrackerService | undefined;
let serde: AvroSerde;

/** The example acknowledged delivery outcome (the inbound debit's 202), for `uetr`. */
const acknowledgedOutcome = (uetr: string): DeliveryOutcome => exampleOutcome('acknowledged', uetr);

function startTracker(options: TrackerOptions = {}, metrics?: Metrics): Promise<TrackerService> {
  const service = createTestTracker(
    { kafka, names, codecs, producer, store, serde },
    logger,
    options,
    metrics,
  );
  tracker = service;
  return service.start().then(() => service);
}

beforeAll(async () => {
  ({ kafka, names, codecs, producer, store, serde } = await connectTrackerClients(logger));
  events = await readTopic(kafka, names['rp.events.v1'], codecs['rp.events.v1'] as never);
  await startTracker();
}, 180_000);

afterAll(async () => {
  await tracker?.stop();
  await events?.stop();
  await producer?.disconnect();
  await store?.close();
  await kafka?.close();
});

const statePostings = (records: TopicReader<EventPosting>['records'], uetr: string) =>
  records
    .map((record) => record.value)
    .filter(
      (posting): posting is TransactionStatePosting =>
        posting.class === 'TRANSACTION_STATE' && posting.tranInfo.tranUetr === uetr,
    );

const esmPostings = (records: TopicReader<EventPosting>['records'], uetr: string) =>
  records.filter((record) => record.key === uetr && record.value.class === 'ESM_STATE');

/** A debit's journey with its first four changes sequenced and in its snapshot. */
async function journeyRecordedToFour() {
  const debit = newDebit();
  const uetr = debit.transactionIdentifiers.uetr;
  const journey = journeyChanges(debit);
  await sendStates(journey.slice(0, 4));
  await events.waitUntil((records) => (statePostings(records, uetr).length >= 4 ? true : undefined));
  await eventually(async () => {
    const found = await store.transactions.get(uetr);
    return found && found.lastSeq === 4 ? found : undefined;
  });
  return { uetr, journey };
}

/** A reader of one sample of `metrics` (0 when it has none yet). */
function sampleOf(metrics: Metrics) {
  return async (name: string, labels: Record<string, string>) =>
    metricSample((await metrics.render()).body, name, labels) ?? 0;
}

/**
 * Takes a restarted tracker past its first batch on every partition: what a partition holds when the
 * tracker reads its end after the join is `possiblyHandled` (a previous owner may have handled it), and a
 * record sent just after the start can be below that end, so a transaction's first change is surely
 * taken without a read only once a later one was. Thirty transactions' first changes reach all three
 * partitions (but for a chance of 1 in 40,000), and the call returns once each is posted.
 */
async function warmUp(): Promise<void> {
  const firsts = Array.from({ length: 30 }, () => journeyChanges(newDebit())[0] as TransactionStateChanged);
  await sendStates(firsts);
  await events.waitUntil((records) =>
    firsts.every((first) => statePostings(records, first.uetr).length > 0) ? true : undefined,
  );
}

function sendStates(changes: readonly TransactionStateChanged[]) {
  return producer.send(
    'rp.transaction.state.v1',
    changes.map((value) => ({ key: value.uetr, value })),
  );
}

describe('tracker on the real stack', () => {
  it('sequences a journey into postings 1..n, drops repeats, dead-letters an illegal change and writes the snapshot', async () => {
    const debit = newDebit();
    const other = newDebit();
    const uetr = debit.transactionIdentifiers.uetr;
    const journey = journeyChanges(debit);
    const otherJourney = journeyChanges(other);
    // Up to the debit's delivery: the bank's report overtakes the dispatcher's record of the 202 (the
    // tracker applies the delivery it implies first), which then arrives late and is a repeat. A repeat of
    // an earlier change comes in the middle; a change after the final state is refused.
    const upToPending = journey.slice(0, 6);
    const response = change(
      debit,
      'DEBIT_RESPONSE_ACCEPTED',
      'DEBIT_DELIVERED',
      new Date('2025-03-17T06:05:00Z'),
    );
    const late = change(debit, 'DEBIT_DELIVERED', 'DEBIT_DELIVERY_PENDING', new Date('2025-03-17T06:05:01Z'));
    const completed = change(
      debit,
      'DEBIT_COMPLETED',
      'DEBIT_RESPONSE_ACCEPTED',
      new Date('2025-03-17T06:05:02Z'),
    );
    for (let index = 0; index < upToPending.length; index += 1) {
      await sendStates([upToPending[index], otherJourney[index]].filter((value) => value !== undefined));
    }
    await sendStates([journey[1] as TransactionStateChanged, response, late]);
    const illegal = change(
      debit,
      'DEBIT_UNPAID',
      'DEBIT_RESPONSE_ACCEPTED',
      new Date('2025-03-17T06:05:03Z'),
    );
    await sendStates([completed, illegal, ...otherJourney.slice(upToPending.length)]);

    const expectedTypes = [...completedDebitJourney];
    const postings = await events.waitUntil((records) => {
      const found = statePostings(records, uetr);
      return found.length >= expectedTypes.length && esmPostings(records, uetr).length >= expectedTypes.length
        ? found
        : undefined;
    });
    expect(postings.map((posting) => posting.type)).toEqual(expectedTypes);
    expect(postings.map((posting) => posting.stageVersion)).toEqual(
      expectedTypes.map((_, index) => index + 1),
    );
    expect(postings.map((posting) => posting.messageInfo.messageIdentification)).toEqual(
      expectedTypes.map((type) => postingMessageId(stateEventId(uetr, type))),
    );
    expect(postings.every((posting) => posting.payload.schema === 'DirectDebit')).toBe(true);
    expect(esmPostings(events.records, uetr)).toHaveLength(expectedTypes.length);
    // Every posting names its event id in a header: ESM_STATE ones pair with their change's id.
    const ids = events.records
      .filter((record) => record.key === uetr)
      .map((record) => record.headers[postingIdHeader]);
    expect(ids).toEqual(
      expectedTypes.flatMap((type) => {
        const id = postingMessageId(stateEventId(uetr, type));
        return [id, `ESM${id.slice(3)}`];
      }),
    );

    const otherPostings = await events.waitUntil((records) => {
      const found = statePostings(records, other.transactionIdentifiers.uetr);
      return found.length >= completedDebitJourney.length ? found : undefined;
    });
    expect(otherPostings.map((posting) => posting.stageVersion)).toEqual(
      completedDebitJourney.map((_, index) => index + 1),
    );

    const snapshot = await eventually(async () => {
      const found = await store.transactions.get(uetr);
      return found && found.lastSeq === expectedTypes.length ? found : undefined;
    });
    expect(snapshot.state).toBe('DEBIT_COMPLETED');
    expect(snapshot.history.map((entry) => [entry.seq, entry.eventType])).toEqual(
      expectedTypes.map((type, index) => [index + 1, type]),
    );
    expect(snapshot.history[6]).toMatchObject({
      from: 'DEBIT_DELIVERY_PENDING',
      to: 'DEBIT_DELIVERED',
      service: 'tracker',
    });
    expect(snapshot.history[7]).toMatchObject({
      from: 'DEBIT_DELIVERED',
      to: 'DEBIT_RESPONSE_ACCEPTED',
    });
    expect(snapshot.messages.map((message) => message.kind)).toEqual([
      'DirectDebit',
      'PaymentStatusReport',
      'PaymentStatusReport',
    ]);
    expect(snapshot.endToEndIdentification).toBe(debit.transactionIdentifiers.endToEndIdentification);

    const stateTopic = names['rp.transaction.state.v1'];
    const dlq = await readTopic(
      kafka,
      deadLetterTopicName(consumerGroupName('tracker', stateTopic)),
      codecs['rp.transaction.state.v1'] as never,
    );
    try {
      const [dead] = await dlq.waitUntil((records) => (records.length > 0 ? records : undefined));
      expect(dead?.value).toMatchObject({ uetr, eventType: 'DEBIT_UNPAID' });
      expect(dead?.headers['rp-dlq-reason']).toBe('non-retriable');
      expect(dead?.headers['rp-error-code']).toBe('ILLEGAL_TRANSITION');
      expect(dead?.headers['rp-error-message']).toMatch(/not allowed from DEBIT_COMPLETED/);
    } finally {
      await dlq.stop();
    }

    // Delivery attempts land in the snapshot.
    const outcome = acknowledgedOutcome(uetr);
    await producer.send('rp.delivery.outcome.v1', [{ key: uetr, value: outcome }]);
    const withAttempt = await eventually(async () => {
      const found = await store.transactions.get(uetr);
      return found && found.deliveryAttempts.length > 0 ? found : undefined;
    });
    expect(withAttempt.deliveryAttempts[0]).toMatchObject({
      messageIdentification: outcome.messageIdentification,
      memberId: '250655',
      endpoint: 'inbound/direct-debit',
      httpStatus: 202,
      outcome: 'accepted',
    });

    // The admin API reads the same snapshot.
    const app = (tracker as TrackerService).app;
    const one = await app.request(`/admin/transactions/${uetr}`);
    expect(one.status).toBe(200);
    expect(await one.json()).toMatchObject({ uetr, state: 'DEBIT_COMPLETED', lastSeq: 9 });
    const byE2e = await app.request(
      `/admin/transactions?endToEndId=${encodeURIComponent(debit.transactionIdentifiers.endToEndIdentification)}&state=DEBIT_COMPLETED`,
    );
    expect(
      ((await byE2e.json()) as { transactions: { uetr: string }[] }).transactions.map((entry) => entry.uetr),
    ).toEqual([uetr]);
    const unknown = await app.request('/admin/transactions/00000000-0000-4000-8000-000000000000');
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as { detail: string }).detail).toBe(
      'no transaction 00000000-0000-4000-8000-000000000000',
    );
    expect((await app.request('/admin/transactions/not-a-uuid')).status).toBe(422);

    // Received by the ingress (its UETR claimed), no state change applied yet: the 404 says so, and when.
    const received = newDebit().transactionIdentifiers.uetr;
    const receivedAt = new Date('2025-03-17T06:00:00.123Z');
    await store.idempotency.claim({
      key: transactionKey(received),
      payloadHash: 'a'.repeat(64),
      uetr: received,
      receivedAt,
      transaction: { kind: 'DirectDebit', debtorAgentMemberId: '250655', creditorAgentMemberId: '632005' },
    });
    const notYet = await app.request(`/admin/transactions/${received}`);
    expect(notYet.status).toBe(404);
    expect(((await notYet.json()) as { detail: string }).detail).toMatch(
      new RegExp(
        `^no transaction ${received} recorded yet: the ingress received its DirectDebit at 2025-03-17T06:00:00\\.123Z, and the tracker has not applied its first state change`,
      ),
    );
    const noEvents = await app.request(`/admin/transactions/${received}/events`);
    expect(noEvents.status).toBe(404);
    expect(((await noEvents.json()) as { detail: string }).detail).toMatch(
      /recorded yet: the ingress received/,
    );
  }, 120_000);

  it('the admin API lists the dead letters, redrives one back to its group once and audits who asked', async () => {
    const debit = newDebit();
    const uetr = debit.transactionIdentifiers.uetr;
    await sendStates(journeyChanges(debit));
    await eventually(async () => {
      const found = await store.transactions.get(uetr);
      return found?.state === 'DEBIT_COMPLETED' ? found : undefined;
    });
    // A change after the final state: refused, so dead-lettered at once.
    await sendStates([
      change(debit, 'DEBIT_UNPAID', 'DEBIT_RESPONSE_ACCEPTED', new Date('2025-03-17T06:06:00Z')),
    ]);

    const app = (tracker as TrackerService).app;
    const topic = deadLetterTopicName(consumerGroupName('tracker', names['rp.transaction.state.v1']));
    type Listed = { id: string; reason: string; value: { uetr: string }; redriven: { actor: string } | null };
    const mine = async (): Promise<Listed[]> => {
      const response = await app.request(`/admin/dead-letters/${topic}`);
      if (response.status === 404) return [];
      const body = (await response.json()) as { records: Listed[] };
      return body.records.filter((record) => record.value?.uetr === uetr);
    };
    const [dead] = await eventually(async () => {
      const found = await mine();
      return found.length > 0 ? found : undefined;
    });
    expect(dead).toMatchObject({
      reason: 'non-retriable',
      errorCode: 'ILLEGAL_TRANSITION',
      group: consumerGroupName('tracker', names['rp.transaction.state.v1']),
      value: { uetr, eventType: 'DEBIT_UNPAID' },
      redriven: null,
      redrivable: true,
    });
    const listing = (await (await app.request('/admin/dead-letters')).json()) as {
      topics: { topic: string; records: number }[];
    };
    expect(listing.topics.find((entry) => entry.topic === topic)?.records).toBeGreaterThanOrEqual(1);

    // Search by end-to-end id and creation time (the journey's first change, 07:30:00Z).
    const e2e = encodeURIComponent(debit.transactionIdentifiers.endToEndIdentification);
    const searched = async (query: string) =>
      (
        (await (await app.request(`/admin/transactions?endToEndId=${e2e}&${query}`)).json()) as {
          transactions: { uetr: string }[];
        }
      ).transactions.map((entry) => entry.uetr);
    expect(await searched('from=2025-03-14T09:00:00%2B02:00&to=2025-03-14T09:31:00%2B02:00')).toEqual([uetr]);
    expect(await searched('from=2025-03-14T09:30:01%2B02:00')).toEqual([]);
    expect(await searched('to=2025-03-14')).toEqual([]);
    // Not a time, or one that does not exist (Date.parse would take 31 November as 1 December).
    for (const query of ['from=yesterday', 'from=2025-11-31', 'from=2025-03-14T09:60%2B02:00']) {
      const badDate = await app.request(`/admin/transactions?${query}`);
      expect(badDate.status).toBe(422);
      expect(((await badDate.json()) as { errors: { pointer: string }[] }).errors[0]?.pointer).toBe('/from');
    }

    const redrive = (body: unknown) =>
      app.request(`/admin/dead-letters/${topic}/redrive`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const invalid = await redrive({ records: ['x'] });
    expect(invalid.status).toBe(422);
    expect(invalid.headers.get('content-type')).toMatch(/application\/problem\+json/);
    const problem = (await invalid.json()) as { errors: { pointer: string }[] };
    expect(problem.errors.map((error) => error.pointer).sort()).toEqual(['/operator', '/records/0']);
    expect((await app.request(`/admin/dead-letters/${uniqueName('nope')}.dlq`)).status).toBe(404);

    const first = await redrive({ operator: 'ops-alice', records: [dead?.id, '0:999999999'] });
    expect(first.status).toBe(200);
    expect(await first.json()).toMatchObject({
      redriven: [dead?.id],
      alreadyRedriven: [],
      notFound: ['0:999999999'],
    });
    // Handled again by the tracker alone, still illegal: it is dead-lettered a second time.
    const again = await eventually(async () => {
      const found = await mine();
      return found.length >= 2 ? found : undefined;
    });
    expect(again[0]).toMatchObject({ id: dead?.id, redriven: { actor: 'ops-alice' } });
    expect(again[1]).toMatchObject({ reason: 'non-retriable', redriven: null });
    expect((await store.transactions.get(uetr))?.state).toBe('DEBIT_COMPLETED');

    const second = await redrive({ operator: 'ops-bob', records: [dead?.id] });
    expect(await second.json()).toMatchObject({
      redriven: [],
      alreadyRedriven: [{ id: dead?.id, actor: 'ops-alice' }],
    });
    const audit = (await (await app.request('/admin/audit?action=dead-letter.redrive')).json()) as {
      entries: { actor: string; target: string }[];
    };
    expect(audit.entries.filter((entry) => entry.target === `${topic} ${dead?.id}`)).toEqual([
      expect.objectContaining({ actor: 'ops-alice', action: 'dead-letter.redrive' }),
    ]);
  }, 120_000);

  it('a new tracker instance in the same group continues the sequence from the snapshot', async () => {
    const { uetr, journey } = await journeyRecordedToFour();

    await tracker?.stop();
    await startTracker();
    // A repeat of an applied change first: the new instance knows it from the snapshot alone.
    await sendStates([journey[3] as TransactionStateChanged, ...journey.slice(4)]);
    const postings = await events.waitUntil((records) => {
      const found = statePostings(records, uetr);
      return found.length >= completedDebitJourney.length ? found : undefined;
    });
    expect(postings.map((posting) => posting.stageVersion)).toEqual(
      completedDebitJourney.map((_, index) => index + 1),
    );
    expect(postings.map((posting) => posting.type)).toEqual([...completedDebitJourney]);
    const snapshot = await eventually(async () => {
      const found = await store.transactions.get(uetr);
      return found && found.lastSeq === completedDebitJourney.length ? found : undefined;
    });
    expect(snapshot.history.map((entry) => entry.seq)).toEqual(
      completedDebitJourney.map((_, index) => index + 1),
    );
    expect(snapshot.state).toBe('DEBIT_COMPLETED');
  }, 120_000);

  it('writes the snapshot behind the postings: the first change too, all of them and a delivery attempt together by a stop', async () => {
    await tracker?.stop();
    // Long enough that nothing here is written by the commit timer.
    const metrics = createMetrics({ service: 'tracker-test', defaultMetrics: false });
    await startTracker({ snapshotIntervalMs: 10_000 }, metrics);
    try {
      const debit = newDebit();
      const uetr = debit.transactionIdentifiers.uetr;
      const journey = journeyChanges(debit);
      const writesBefore = store.transactions.stats().snapshotWrites;
      // Five changes, each in a batch of its own, as different services send them; the first carries the
      // DirectDebit, and nothing waits for it to be written (the ingress and the validator do without).
      for (const [index, next] of journey.slice(0, 5).entries()) {
        await sendStates([next]);
        await events.waitUntil((records) =>
          statePostings(records, uetr).length >= index + 1 ? true : undefined,
        );
      }
      // The status report's delivery attempt, heard of while those changes wait.
      const outcome = { ...acknowledgedOutcome(uetr), messageIdentification: 'RPV-WRITE-BEHIND' };
      await producer.send('rp.delivery.outcome.v1', [{ key: uetr, value: outcome }]);
      await eventually(async () => {
        const text = (await metrics.render()).body;
        return /rp_tracker_delivery_attempts_total\{[^}]*outcome="recorded"[^}]*\} 1/.test(text)
          ? true
          : undefined;
      });
      expect(await store.transactions.get(uetr)).toBeNull();
      // A stop writes what waits before it commits: the snapshot is complete, the five changes and the
      // attempt in one write.
      await tracker?.stop();
      const snapshot = await store.transactions.get(uetr);
      expect(snapshot?.history.map((entry) => entry.seq)).toEqual([1, 2, 3, 4, 5]);
      expect(snapshot?.deliveryAttempts).toMatchObject([
        { messageIdentification: 'RPV-WRITE-BEHIND', httpStatus: 202, outcome: 'accepted' },
      ]);
      expect(snapshot?.messages[0]?.kind).toBe('DirectDebit');
      expect(store.transactions.stats().snapshotWrites - writesBefore).toBe(1);
    } finally {
      await tracker?.stop();
      await startTracker();
    }
  }, 120_000);

  it('a redrive that fails part way takes back the claims it made: the records can be redriven again', async () => {
    const debit = newDebit();
    const uetr = debit.transactionIdentifiers.uetr;
    await sendStates(journeyChanges(debit));
    await eventually(async () =>
      (await store.transactions.get(uetr))?.state === 'DEBIT_COMPLETED' ? true : undefined,
    );
    // Two changes after the final state: two dead letters.
    await sendStates([
      change(debit, 'DEBIT_UNPAID', 'DEBIT_RESPONSE_ACCEPTED', new Date('2025-03-17T06:06:00Z')),
      change(debit, 'DEBIT_UNPAID', 'DEBIT_RESPONSE_ACCEPTED', new Date('2025-03-17T06:07:00Z')),
    ]);
    const app = (tracker as TrackerService).app;
    const topic = deadLetterTopicName(consumerGroupName('tracker', names['rp.transaction.state.v1']));
    const ids = await eventually(async () => {
      const response = await app.request(`/admin/dead-letters/${topic}`);
      if (response.status !== 200) return undefined;
      const { records } = (await response.json()) as {
        records: { id: string; value: { uetr: string } | null }[];
      };
      const mine = records.filter((record) => record.value?.uetr === uetr).map((record) => record.id);
      return mine.length === 2 ? mine : undefined;
    });
    // The store fails as the second claim is written.
    let claims = 0;
    const audit = new Proxy(store.audit, {
      get(target, property) {
        if (property === 'record') {
          return async (entry: Parameters<typeof target.record>[0]) => {
            claims += 1;
            if (claims === 2) throw new AppError('STORE_UNAVAILABLE', 'the store did not answer');
            return target.record(entry);
          };
        }
        const value = Reflect.get(target, property, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const failing = createDeadLetterRoutes({
      deadLetters: kafka.deadLetters(),
      audit,
      clock: systemClock,
      logger,
    });
    const redrive = (routes: { request: typeof app.request }) =>
      routes.request(`/admin/dead-letters/${topic}/redrive`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ operator: 'ops-carol', records: ids }),
      });
    expect((await redrive(failing)).status).toBe(503);
    expect(claims).toBe(2);
    // Neither record went back to the tracker, and neither reads as redriven: both go now.
    const retried = await redrive(app);
    expect(retried.status).toBe(200);
    expect(await retried.json()).toMatchObject({ redriven: ids, alreadyRedriven: [] });
  }, 120_000);

  it("counts a change applied and not written yet as recorded: the transaction's events answer, not 404", async () => {
    await tracker?.stop();
    // Long enough that nothing here is written by the commit timer.
    await startTracker({ snapshotIntervalMs: 10_000 });
    try {
      const debit = newDebit();
      const uetr = debit.transactionIdentifiers.uetr;
      await sendStates(journeyChanges(debit).slice(0, 1));
      await events.waitUntil((records) => (statePostings(records, uetr).length >= 1 ? true : undefined));
      expect(await store.transactions.get(uetr)).toBeNull();
      const response = await (tracker as TrackerService).app.request(`/admin/transactions/${uetr}/events`);
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ uetr, events: [] });
      // The read wrote what waited, as a read of the snapshot does.
      expect((await store.transactions.get(uetr))?.history).toHaveLength(1);
    } finally {
      await tracker?.stop();
      await startTracker();
    }
  }, 120_000);

  it('fills in the payload of a change emitted without one: from memory, and after a restart from the snapshot', async () => {
    const debit = newDebit();
    const uetr = debit.transactionIdentifiers.uetr;
    const journey = journeyChanges(debit);
    // The dispatcher's deliveries of the engine's status report name the transaction without its payload.
    const withoutPayload = ({ transaction: _payload, ...change }: TransactionStateChanged) =>
      change as TransactionStateChanged;
    await sendStates([...journey.slice(0, 2), withoutPayload(journey[2] as TransactionStateChanged)]);
    const first = await events.waitUntil((records) => {
      const found = statePostings(records, uetr);
      return found.length >= 3 ? found : undefined;
    });
    expect(first[2]).toMatchObject({ type: 'DEBIT_STATUS_DELIVERY_PENDING', payload: debit });

    // A new instance holds no payload: it reads the snapshot the stop wrote.
    await tracker?.stop();
    await startTracker();
    await sendStates([withoutPayload(journey[3] as TransactionStateChanged), ...journey.slice(4)]);
    const postings = await events.waitUntil((records) => {
      const found = statePostings(records, uetr);
      return found.length >= completedDebitJourney.length ? found : undefined;
    });
    expect(postings.map((posting) => posting.type)).toEqual([...completedDebitJourney]);
    expect(postings[3]).toMatchObject({ type: 'DEBIT_STATUS_DELIVERED', payload: debit });
    const snapshot = await eventually(async () => {
      const found = await store.transactions.get(uetr);
      return found && found.lastSeq === completedDebitJourney.length ? found : undefined;
    });
    expect(snapshot.state).toBe('DEBIT_COMPLETED');
  }, 120_000);

  it("takes a transaction's first change without a read, reads a resent one, and leaves a late bank report alone", async () => {
    await tracker?.stop();
    const metrics = createMetrics({ service: 'tracker-test', defaultMetrics: false });
    await startTracker({}, metrics);
    const count = sampleOf(metrics);
    try {
      await warmUp();
      const [newBefore, missBefore] = [
        await count('rp_tracker_cache_events_total', { event: 'new' }),
        await count('rp_tracker_cache_events_total', { event: 'miss' }),
      ];
      const debit = newDebit();
      const uetr = debit.transactionIdentifiers.uetr;
      await sendStates(journeyChanges(debit));
      await events.waitUntil((records) =>
        statePostings(records, uetr).length >= completedDebitJourney.length ? true : undefined,
      );
      expect(await count('rp_tracker_cache_events_total', { event: 'new' })).toBe(newBefore + 1);
      expect(await count('rp_tracker_cache_events_total', { event: 'miss' })).toBe(missBefore);

      // The ingress produced this one again for a resend: its snapshot is read.
      const resent = newDebit();
      const [first] = journeyChanges(resent);
      await producer.send('rp.transaction.state.v1', [
        {
          key: resent.transactionIdentifiers.uetr,
          value: first as TransactionStateChanged,
          headers: { 'rp-resent': 'true' },
        },
      ]);
      await events.waitUntil((records) =>
        statePostings(records, resent.transactionIdentifiers.uetr).length >= 1 ? true : undefined,
      );
      expect(await count('rp_tracker_cache_events_total', { event: 'miss' })).toBe(missBefore + 1);
      expect(await count('rp_tracker_cache_events_total', { event: 'new' })).toBe(newBefore + 1);

      // The actioning bank's RJCT after its ACSC: late, not illegal.
      const late: TransactionStateChanged = {
        ...change(debit, 'DEBIT_UNPAID', 'DEBIT_RESPONSE_ACCEPTED'),
        causedBy: { messageType: 'PaymentStatusReport', messageIdentification: 'LATEREPORT1' },
      };
      await sendStates([late]);
      await eventually(async () =>
        (await count('rp_tracker_state_changes_total', { outcome: 'late', event_type: 'DEBIT_UNPAID' })) === 1
          ? true
          : undefined,
      );
      expect(
        await count('rp_tracker_state_changes_total', { outcome: 'refused', event_type: 'DEBIT_UNPAID' }),
      ).toBe(0);
      expect(statePostings(events.records, uetr)).toHaveLength(completedDebitJourney.length);
    } finally {
      await tracker?.stop();
      await startTracker();
    }
  }, 120_000);

  it('a first change written twice, met after a restart, is taken as new; what it refuses is read and applied', async () => {
    const { uetr, journey } = await journeyRecordedToFour();

    await tracker?.stop();
    const metrics = createMetrics({ service: 'tracker-test', defaultMetrics: false });
    // Nothing written by the commit timer: the copy's change waits in memory, so the next change meets
    // the state the copy made (DEBIT_RECEIVED), which refuses it.
    await startTracker({ snapshotIntervalMs: 10_000 }, metrics);
    const count = sampleOf(metrics);
    try {
      await warmUp();
      const newBefore = await count('rp_tracker_cache_events_total', { event: 'new' });
      // A copy of the first change, as a producer that lost its numbering could leave one, then the rest.
      await sendStates([journey[0] as TransactionStateChanged, ...journey.slice(4)]);
      const postings = await events.waitUntil((records) => {
        const found = statePostings(records, uetr);
        return found.length >= completedDebitJourney.length + 1 ? found : undefined;
      });
      // The copy's posting repeats the first one (same event id, which the bank absorbs); the rest follow on.
      expect(postings.map((posting) => posting.stageVersion)).toEqual([1, 2, 3, 4, 1, 5, 6, 7, 8, 9]);
      expect(postings[4]?.messageInfo.messageIdentification).toBe(
        postings[0]?.messageInfo.messageIdentification,
      );
      expect(await count('rp_tracker_cache_events_total', { event: 'new' })).toBe(newBefore + 1);
      expect(
        await count('rp_tracker_state_changes_total', { outcome: 'unconfirmed', event_type: 'DEBIT_QUEUED' }),
      ).toBe(1);
      expect(
        await count('rp_tracker_state_changes_total', { outcome: 'refused', event_type: 'DEBIT_QUEUED' }),
      ).toBe(0);
      await tracker?.stop();
      const snapshot = await store.transactions.get(uetr);
      expect(snapshot?.history.map((entry) => entry.seq)).toEqual(
        completedDebitJourney.map((_, index) => index + 1),
      );
      expect(snapshot?.state).toBe('DEBIT_COMPLETED');
    } finally {
      await tracker?.stop();
      await startTracker();
    }
  }, 120_000);
  it('sends a change without a payload, of a transaction it has no record of, to the retry tiers', async () => {
    await tracker?.stop();
    const metrics = createMetrics({ service: 'tracker-test', defaultMetrics: false });
    await startTracker({}, metrics);
    try {
      const debit = newDebit();
      const uetr = debit.transactionIdentifiers.uetr;
      const { transaction: _payload, ...orphan } = journeyChanges(debit)[2] as TransactionStateChanged;
      await sendStates([orphan as TransactionStateChanged]);
      // Handled, then tried again from a retry tier: two times at least.
      await eventually(async () => {
        const text = (await metrics.render()).body;
        const found = /rp_tracker_state_changes_total\{[^}]*outcome="no-payload"[^}]*\} (\d+)/.exec(text);
        return Number(found?.[1] ?? 0) >= 2 ? true : undefined;
      });
      expect(statePostings(events.records, uetr)).toEqual([]);
      expect(await store.transactions.get(uetr)).toBeNull();
    } finally {
      await tracker?.stop();
      await startTracker();
    }
  }, 120_000);
});
