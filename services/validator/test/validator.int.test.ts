import { readFileSync } from 'node:fs';
import {
  avroTypeOptions,
  type DirectDebit,
  type PaymentStatusReport,
  type TopicName,
  type TransactionStateChanged,
  toJson,
} from '@rp/contracts';
import {
  consumerGroupName,
  createAvroSerde,
  createKafka,
  deadLetterTopicName,
  type KafkaClient,
} from '@rp/kafka';
import {
  createPipelineProducer,
  createPlainCodecs,
  type PipelineCodecs,
  type PipelineProducer,
  resolveTopicNames,
  type TopicNames,
  topicSpecs,
} from '@rp/pipeline';
import { createLogger, createMetrics } from '@rp/runtime';
import { connectStore, type Store } from '@rp/store';
import { infra, uniqueName } from '@rp/testkit';
import { MongoClient } from 'mongodb';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startCdv } from '../src/cdv.ts';
import { addDays, businessDate } from '../src/dates.ts';
import { statusReportId } from '../src/report.ts';
import {
  consumedTopics,
  createValidatorService,
  producedTopics,
  type ValidatorService,
} from '../src/service.ts';
import { participants, validDebit, wrongDebtorAccountNumber } from './debits.ts';
import { readTopic, type TopicReader } from './topic-reader.ts';

const logger = createLogger({
  service: 'validator-test',
  level: (process.env.TEST_LOG_LEVEL as 'warn' | undefined) ?? 'warn',
});
const allTopics: TopicName[] = [...consumedTopics, ...producedTopics];

let endpoints: Awaited<ReturnType<typeof infra>>;
let names: TopicNames;
let codecs: Partial<PipelineCodecs>;
let kafka: KafkaClient;
let producer: PipelineProducer;
let input: PipelineProducer;
let store: Store;
let databaseName: string;
let service: ValidatorService;
let closeCdv: () => void;
let reports: TopicReader<PaymentStatusReport>;
let accepted: TopicReader<DirectDebit>;
let states: TopicReader<TransactionStateChanged>;
let deadReports: TopicReader<PaymentStatusReport>;

const collectionDate = () => addDays(businessDate(new Date()), 1);
const uetrOf = (debit: DirectDebit) => debit.transactionIdentifiers.uetr;

/** A debit as the ingress leaves it on the received topic. */
function receive(...debits: DirectDebit[]): Promise<void> {
  return input.send(
    'rp.directdebit.received.v1',
    debits.map((debit) => ({ key: uetrOf(debit), value: debit, headers: { 'rp-state': 'DEBIT_RECEIVED' } })),
  );
}

/**
 * Every topic here has one partition, so records are totally ordered: once a later debit's report is
 * read, everything the validator did for the earlier records is on the topics and has been read too.
 */
async function barrier(): Promise<void> {
  const debit = validDebit(collectionDate());
  await receive(debit);
  await reports.waitFor((record) => record.key === uetrOf(debit));
}

/** A snapshot as the tracker would have written it: the DirectDebit first, then the path of states. */
async function recordSnapshot(
  debit: DirectDebit,
  path: string[],
  extra: { report?: PaymentStatusReport } = {},
) {
  const uetr = uetrOf(debit);
  const at = new Date();
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
              messageIdentification: debit.messageIdentifiers.messageIdentification,
              at,
              bodyJson: toJson('DirectDebit', debit),
            },
          }
        : {}),
      ...(index === 1 && extra.report
        ? {
            message: {
              kind: 'PaymentStatusReport',
              messageIdentification: extra.report.messageIdentifiers.messageIdentification,
              at,
              bodyJson: toJson('PaymentStatusReport', extra.report),
            },
          }
        : {}),
    })),
  );
}

beforeAll(async () => {
  endpoints = await infra();
  names = resolveTopicNames(uniqueName('validator'));
  kafka = createKafka({ brokers: endpoints.kafkaBrokers, clientId: uniqueName('validator-test') });
  await kafka.ensureTopics(
    topicSpecs(names, { partitions: 1 }).filter((spec) =>
      allTopics.some((topic) => names[topic] === spec.topic),
    ),
  );
  const serde = createAvroSerde({ registryUrl: endpoints.schemaRegistryUrl, avro: avroTypeOptions() });
  codecs = await createPlainCodecs(serde, names, allTopics);
  producer = createPipelineProducer(kafka, names, codecs);
  input = createPipelineProducer(kafka, names, codecs);
  databaseName = uniqueName('validator').replace(/-/g, '_');
  store = await connectStore({
    uri: endpoints.mongodbUri,
    database: databaseName,
    appName: 'validator-test',
  });
  await store.ensureIndexes();
  const cdv = await startCdv({
    parameterFile: undefined,
    branchFile: undefined,
    allowSynthetic: true,
    unknownExceptionCodes: 'reject',
  });
  closeCdv = () => cdv.engine.close();
  service = createValidatorService({
    kafka,
    names,
    codecs,
    producer,
    store,
    participants,
    accounts: cdv.engine,
    logger,
    metrics: createMetrics({ service: 'validator', defaultMetrics: false }),
    options: { retry: { delaysMs: [100], maxAttempts: 2 } },
  });
  await service.start();
  const reportCodec = codecs['rp.statusreport.outbound.v1'];
  const debitCodec = codecs['rp.directdebit.accepted.v1'];
  const stateCodec = codecs['rp.transaction.state.v1'];
  const receivedReportCodec = codecs['rp.statusreport.received.v1'];
  if (!reportCodec || !debitCodec || !stateCodec || !receivedReportCodec) throw new Error('codecs missing');
  reports = await readTopic(kafka, names['rp.statusreport.outbound.v1'], reportCodec);
  accepted = await readTopic(kafka, names['rp.directdebit.accepted.v1'], debitCodec);
  states = await readTopic(kafka, names['rp.transaction.state.v1'], stateCodec);
  deadReports = await readTopic(
    kafka,
    deadLetterTopicName(consumerGroupName('validator', names['rp.statusreport.received.v1'])),
    receivedReportCodec,
  );
});

afterAll(async () => {
  await Promise.all([reports?.stop(), accepted?.stop(), states?.stop(), deadReports?.stop()]);
  await service?.stop();
  await producer?.disconnect();
  await input?.disconnect();
  await kafka?.close();
  closeCdv?.();
  await store?.close();
  const client = new MongoClient(endpoints.mongodbUri);
  await client.db(databaseName).dropDatabase();
  await client.close();
});

describe('received debits', () => {
  test('a valid debit: state change, accepted debit and ACCP report, in that order', async () => {
    const debit = validDebit(collectionDate(), {
      instructingAgent: { memberId: '250655' },
      instructedAgent: { memberId: '250655' },
    });
    const uetr = uetrOf(debit);
    await receive(debit);

    const report = await reports.waitFor((record) => record.key === uetr);
    expect(report.headers['rp-state']).toBe('DEBIT_ACCEPTED');
    expect(report.value).toMatchObject({
      messageIdentifiers: { messageIdentification: statusReportId(uetr) },
      originalMessageIdentifiers: debit.messageIdentifiers,
      transactionIdentifiers: debit.transactionIdentifiers,
      instructedAgent: { memberId: '250655' },
      status: { status: 'ACCP' },
    });
    const forwarded = await accepted.waitFor((record) => record.key === uetr);
    expect(forwarded.value).toEqual(debit);
    expect(forwarded.headers['rp-state']).toBe('DEBIT_ACCEPTED');
    const change = await states.waitFor((record) => record.key === uetr);
    expect(change.value).toMatchObject({
      fromState: 'DEBIT_RECEIVED',
      toState: 'DEBIT_ACCEPTED',
      eventType: 'DEBIT_REQUEST_ACCEPTED',
      emittedBy: 'validator',
      transaction: debit,
      statusReport: report.value,
      causedBy: {
        messageType: 'DirectDebit',
        messageIdentification: debit.messageIdentifiers.messageIdentification,
      },
    });
    expect(Date.parse(change.timestamp)).toBeLessThanOrEqual(Date.parse(forwarded.timestamp));
    expect(Date.parse(forwarded.timestamp)).toBeLessThanOrEqual(Date.parse(report.timestamp));
  });

  test('a debit failing CDV: RJCT AC01 with a readable reason, and nothing on the accepted topic', async () => {
    const debit = validDebit(collectionDate());
    if (debit.debtorAccount.identification)
      debit.debtorAccount.identification.value = wrongDebtorAccountNumber;
    if (debit.paymentScheme.schemeData)
      debit.paymentScheme.schemeData.shortenedDebtorAccountNumber = wrongDebtorAccountNumber;
    const uetr = uetrOf(debit);
    await receive(debit);

    const report = await reports.waitFor((record) => record.key === uetr);
    expect(report.headers['rp-state']).toBe('DEBIT_REJECTED');
    expect(report.value.status).toEqual({
      status: 'RJCT',
      reasonInfo: [
        {
          reason: { code: 'AC01' },
          additionalInfo: ['Debtor account failed CDV at branch 250655: check digit is wrong'],
        },
      ],
    });
    const change = await states.waitFor((record) => record.key === uetr);
    expect(change.value).toMatchObject({
      fromState: 'DEBIT_RECEIVED',
      toState: 'DEBIT_REJECTED',
      eventType: 'DEBIT_REQUEST_REJECTED',
      statusReport: report.value,
    });
    await barrier();
    expect(accepted.records.filter((record) => record.key === uetr)).toEqual([]);
  });

  test('a batch of debits is answered one report each, rejections with their reasons', async () => {
    const valid = Array.from({ length: 12 }, () => validDebit(collectionDate()));
    const tooLarge = validDebit(collectionDate());
    tooLarge.amounts.bankSettlementAmount.value = '500000.01';
    const past = validDebit(addDays(businessDate(new Date()), -1));
    const dollars = validDebit(collectionDate(), {
      amounts: { bankSettlementAmount: { value: '10', currency: 'USD' } },
    });
    await receive(...valid, tooLarge, past, dollars);

    const codeOf = async (debit: DirectDebit) => {
      const report = await reports.waitFor((record) => record.key === uetrOf(debit));
      return [
        report.value.status.status,
        ...(report.value.status.reasonInfo ?? []).map((info) => info.reason.code),
      ];
    };
    for (const debit of valid) expect(await codeOf(debit)).toEqual(['ACCP']);
    expect(await codeOf(tooLarge)).toEqual(['RJCT', 'AM02']);
    expect(await codeOf(past)).toEqual(['RJCT', 'DT01']);
    expect(await codeOf(dollars)).toEqual(['RJCT', 'AM03']);
    await barrier();
    for (const debit of [...valid, tooLarge, past, dollars]) {
      expect(reports.records.filter((record) => record.key === uetrOf(debit))).toHaveLength(1);
    }
  });

  test('the same debit again is not answered again', async () => {
    const debit = validDebit(collectionDate());
    await receive(debit);
    await reports.waitFor((record) => record.key === uetrOf(debit));
    await receive(debit);
    await barrier();
    expect(reports.records.filter((record) => record.key === uetrOf(debit))).toHaveLength(1);
    expect(accepted.records.filter((record) => record.key === uetrOf(debit))).toHaveLength(1);
  });

  test('a debit whose transaction is past validation is skipped', async () => {
    const debit = validDebit(collectionDate());
    await recordSnapshot(debit, ['DEBIT_RECEIVED', 'DEBIT_ACCEPTED', 'DEBIT_ACCEPTANCE_DELIVERY_PENDING']);
    await receive(debit);
    await barrier();
    expect(reports.records.filter((record) => record.key === uetrOf(debit))).toEqual([]);
    expect(states.records.filter((record) => record.key === uetrOf(debit))).toEqual([]);
  });

  test('a debit recorded as accepted is answered as accepted again, even if it would now fail', async () => {
    // Accepted earlier; its outputs may not have been produced. Today its date is in the past.
    const debit = validDebit(addDays(businessDate(new Date()), -2));
    await recordSnapshot(debit, ['DEBIT_RECEIVED', 'DEBIT_ACCEPTED']);
    await receive(debit);
    const report = await reports.waitFor((record) => record.key === uetrOf(debit));
    expect(report.value.status).toEqual({ status: 'ACCP' });
    await accepted.waitFor((record) => record.key === uetrOf(debit));
  });

  test('a debit recorded as rejected repeats the recorded report exactly', async () => {
    const debit = validDebit(collectionDate());
    const example = JSON.parse(
      readFileSync(new URL('../../../avro/examples/PaymentStatusReport.rjct.json', import.meta.url), 'utf8'),
      (name, value) => (name === 'value' && typeof value === 'number' ? String(value) : value),
    ) as PaymentStatusReport;
    const canonical: PaymentStatusReport = {
      ...example,
      messageIdentifiers: {
        messageIdentification: statusReportId(uetrOf(debit)),
        creationDateTime: '2025-03-14T09:30:02.250+02:00',
      },
      transactionIdentifiers: debit.transactionIdentifiers,
    };
    await recordSnapshot(debit, ['DEBIT_RECEIVED', 'DEBIT_REJECTED'], { report: canonical });
    await receive(debit);
    const report = await reports.waitFor((record) => record.key === uetrOf(debit));
    expect(report.value).toEqual(canonical);
    await barrier();
    expect(accepted.records.filter((record) => record.key === uetrOf(debit))).toEqual([]);
  });
});

describe("actioning banks' reports", () => {
  function bankReport(debit: DirectDebit, status: 'ACSC' | 'RJCT' | 'ACSP'): PaymentStatusReport {
    return {
      messageIdentifiers: {
        messageIdentification: `B${uetrOf(debit).slice(0, 20)}`,
        creationDateTime: new Date().toISOString(),
      },
      originalMessageIdentifiers: debit.messageIdentifiers,
      transactionIdentifiers: debit.transactionIdentifiers,
      instructingAgent: { memberId: '250655' },
      paymentScheme: { schema: 'ZA_EFT' },
      status:
        status === 'RJCT'
          ? { status, reasonInfo: [{ reason: { code: 'AM04' }, additionalInfo: ['Insufficient funds'] }] }
          : { status },
      schema: 'PaymentStatusReport',
    };
  }

  function reportReceived(report: PaymentStatusReport): Promise<void> {
    return input.send('rp.statusreport.received.v1', [
      {
        key: report.transactionIdentifiers.uetr,
        value: report,
        headers: { 'rp-state': 'DEBIT_RESPONSE_ACCEPTED' },
      },
    ]);
  }

  const responded = [
    'DEBIT_RECEIVED',
    'DEBIT_ACCEPTED',
    'DEBIT_ACCEPTANCE_DELIVERY_PENDING',
    'DEBIT_ACCEPTANCE_DELIVERED',
    'DEBIT_QUEUED',
    'DEBIT_DELIVERY_PENDING',
    'DEBIT_DELIVERED',
    'DEBIT_RESPONSE_ACCEPTED',
  ];

  test.each([
    ['ACSC', 'DEBIT_COMPLETED', 'DEBIT_COMPLETED'],
    ['RJCT', 'DEBIT_UNPAID', 'DEBIT_UNPAID'],
  ] as const)(
    '%s ends the transaction with %s, carrying the DirectDebit from the snapshot',
    async (status, eventType, toState) => {
      const debit = validDebit(collectionDate());
      await recordSnapshot(debit, responded);
      const report = bankReport(debit, status);
      await reportReceived(report);
      const change = await states.waitFor((record) => record.key === uetrOf(debit));
      expect(change.value).toMatchObject({
        fromState: 'DEBIT_RESPONSE_ACCEPTED',
        toState,
        eventType,
        emittedBy: 'validator',
        transaction: debit,
        statusReport: report,
        causedBy: {
          messageType: 'PaymentStatusReport',
          messageIdentification: report.messageIdentifiers.messageIdentification,
        },
      });
    },
  );

  test('a report on a transaction without a snapshot is retried, then dead-lettered', async () => {
    const debit = validDebit(collectionDate());
    const report = bankReport(debit, 'ACSC');
    await reportReceived(report);
    const dead = await deadReports.waitFor((record) => record.key === uetrOf(debit));
    expect(dead.value).toEqual(report);
    expect(dead.headers['rp-dlq-reason']).toBe('retries-exhausted');
    expect(states.records.filter((record) => record.key === uetrOf(debit))).toEqual([]);
  });
});
