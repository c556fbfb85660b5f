import { readFileSync } from 'node:fs';
import {
  avroTypeOptions,
  type CreditTransfer,
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
import { createLogger, createMetrics, type Metrics } from '@rp/runtime';
import { connectStore, type Store, storeCommandMetrics } from '@rp/store';
import { infra, metricSample, uniqueName } from '@rp/testkit';
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
import { validCredit } from './credits.ts';
import {
  creditorAccountNumber,
  participants,
  schemeDebit,
  validDebit,
  wrongDebtorAccountNumber,
} from './debits.ts';
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
let acceptedCredits: TopicReader<CreditTransfer>;
let states: TopicReader<TransactionStateChanged>;
let deadReports: TopicReader<PaymentStatusReport>;

const collectionDate = () => addDays(businessDate(new Date()), 1);
const uetrOf = (transaction: DirectDebit | CreditTransfer) => transaction.transactionIdentifiers.uetr;

/** The header the ingress puts on a record it produced again for a resend of its message. */
const resent = { 'rp-resent': 'true' } as const;

/** A debit's record as the ingress leaves it on the received topic, with `headers` besides its state. */
function receivedDebit(debit: DirectDebit, headers: Record<string, string> = {}) {
  return { key: uetrOf(debit), value: debit, headers: { 'rp-state': 'DEBIT_RECEIVED', ...headers } };
}

/** A debit as the ingress leaves it on the received topic. */
function receive(...debits: DirectDebit[]): Promise<void> {
  return input.send(
    'rp.directdebit.received.v1',
    debits.map((debit) => receivedDebit(debit)),
  );
}

/** A debit the ingress produced again for a resend: its transaction may have been answered before. */
function receiveAgain(...debits: DirectDebit[]): Promise<void> {
  return input.send(
    'rp.directdebit.received.v1',
    debits.map((debit) => receivedDebit(debit, resent)),
  );
}

let registry: Metrics;

/** A counter of the validator's with these labels (0 before its first count). */
async function metricValue(name: string, labels: Record<string, string>): Promise<number> {
  return metricSample((await registry.render()).body, name, labels) ?? 0;
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

/** A snapshot as the tracker would have written it: the transaction's message first, then the path of states. */
async function recordSnapshot(
  transaction: DirectDebit | CreditTransfer,
  path: string[],
  extra: { report?: PaymentStatusReport } = {},
) {
  const uetr = uetrOf(transaction);
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
              kind: transaction.schema,
              messageIdentification: transaction.messageIdentifiers.messageIdentification,
              at,
              bodyJson:
                transaction.schema === 'DirectDebit'
                  ? toJson('DirectDebit', transaction)
                  : toJson('CreditTransfer', transaction),
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
  registry = createMetrics({ service: 'validator', defaultMetrics: false });
  store = await connectStore({
    uri: endpoints.mongodbUri,
    database: databaseName,
    appName: 'validator-test',
    onCommand: storeCommandMetrics(registry),
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
    metrics: registry,
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
  const creditCodec = codecs['rp.credittransfer.accepted.v1'];
  if (!creditCodec) throw new Error('codecs missing');
  acceptedCredits = await readTopic(kafka, names['rp.credittransfer.accepted.v1'], creditCodec);
  states = await readTopic(kafka, names['rp.transaction.state.v1'], stateCodec);
  deadReports = await readTopic(
    kafka,
    deadLetterTopicName(consumerGroupName('validator', names['rp.statusreport.received.v1'])),
    receivedReportCodec,
  );
});

afterAll(async () => {
  await Promise.all([
    reports?.stop(),
    accepted?.stop(),
    acceptedCredits?.stop(),
    states?.stop(),
    deadReports?.stop(),
  ]);
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
    await receiveAgain(debit);
    await barrier();
    expect(reports.records.filter((record) => record.key === uetrOf(debit))).toEqual([]);
    expect(states.records.filter((record) => record.key === uetrOf(debit))).toEqual([]);
  });

  test('a debit recorded as accepted is answered as accepted again, even if it would now fail', async () => {
    // Accepted earlier; its outputs may not have been produced. Today its date is in the past.
    const debit = validDebit(addDays(businessDate(new Date()), -2));
    await recordSnapshot(debit, ['DEBIT_RECEIVED', 'DEBIT_ACCEPTED']);
    await receiveAgain(debit);
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
    await receiveAgain(debit);
    const report = await reports.waitFor((record) => record.key === uetrOf(debit));
    expect(report.value).toEqual(canonical);
    await barrier();
    expect(accepted.records.filter((record) => record.key === uetrOf(debit))).toEqual([]);
  });

  test("a transaction's first record is validated without the duplicate check's read; a resend's is checked", async () => {
    const checks = (check: 'read' | 'skipped') =>
      metricValue('rp_validator_duplicate_checks_total', { flow: 'debit', check });
    const [readBefore, skippedBefore] = [await checks('read'), await checks('skipped')];
    // Recorded as past validation, yet its record is not a repeat: the ingress's claim on a UETR lets one
    // message name it, so the first record is answered without looking.
    const first = validDebit(collectionDate());
    await recordSnapshot(first, ['DEBIT_RECEIVED', 'DEBIT_ACCEPTED', 'DEBIT_ACCEPTANCE_DELIVERY_PENDING']);
    await receive(first);
    await reports.waitFor((record) => record.key === uetrOf(first));
    expect(await checks('skipped')).toBe(skippedBefore + 1);
    expect(await checks('read')).toBe(readBefore);
    // Produced again for a resend (of a debit this instance has not answered): looked up, and skipped as
    // past validation.
    const again = validDebit(collectionDate());
    await recordSnapshot(again, ['DEBIT_RECEIVED', 'DEBIT_ACCEPTED', 'DEBIT_ACCEPTANCE_DELIVERY_PENDING']);
    await receiveAgain(again);
    await barrier();
    expect(await checks('read')).toBe(readBefore + 1);
    expect(reports.records.filter((record) => record.key === uetrOf(again))).toEqual([]);
  });
});

describe('received off-us debits', () => {
  /** An off-us debit as the ingress leaves it on the received topic: marked as sent by a clearing house. */
  function receiveFromScheme(...debits: DirectDebit[]): Promise<void> {
    return input.send(
      'rp.directdebit.received.v1',
      debits.map((debit) => receivedDebit(debit, { 'rp-origin': 'scheme' })),
    );
  }

  /** An off-us debit the ingress produced again for a resend. */
  function receiveFromSchemeAgain(...debits: DirectDebit[]): Promise<void> {
    return input.send(
      'rp.directdebit.received.v1',
      debits.map((debit) => receivedDebit(debit, { 'rp-origin': 'scheme', ...resent })),
    );
  }

  const recordsOf = <T>(reader: TopicReader<T>, debit: DirectDebit) =>
    reader.records.filter((record) => record.key === uetrOf(debit));

  test('a valid off-us debit: DEBIT_ACCEPTED with its ACCP report, then the accepted debit keeping its origin, and no outbound report', async () => {
    const debit = schemeDebit(collectionDate());
    const uetr = uetrOf(debit);
    await receiveFromScheme(debit);

    const forwarded = await accepted.waitFor((record) => record.key === uetr);
    expect(forwarded.value).toEqual(debit);
    expect(forwarded.headers['rp-state']).toBe('DEBIT_ACCEPTED');
    expect(forwarded.headers['rp-origin']).toBe('scheme');
    const change = await states.waitFor((record) => record.key === uetr);
    expect(change.value).toMatchObject({
      fromState: 'DEBIT_RECEIVED',
      toState: 'DEBIT_ACCEPTED',
      eventType: 'DEBIT_REQUEST_ACCEPTED',
      emittedBy: 'validator',
      transaction: debit,
      statusReport: {
        messageIdentifiers: { messageIdentification: statusReportId(uetr) },
        transactionIdentifiers: debit.transactionIdentifiers,
        status: { status: 'ACCP' },
      },
      causedBy: {
        messageType: 'DirectDebit',
        messageIdentification: debit.messageIdentifiers.messageIdentification,
      },
    });
    expect(Date.parse(change.timestamp)).toBeLessThanOrEqual(Date.parse(forwarded.timestamp));
    // A later on-us debit's report on the single partition: any report for the off-us one came before it.
    await barrier();
    expect(recordsOf(reports, debit)).toEqual([]);
    expect(recordsOf(accepted, debit)).toHaveLength(1);
    expect(recordsOf(states, debit)).toHaveLength(1);
  });

  test('an off-us debit from an account failing CDV: DEBIT_REJECTED with RJCT AC01, and nothing produced', async () => {
    const debit = schemeDebit(collectionDate());
    if (debit.debtorAccount.identification)
      debit.debtorAccount.identification.value = wrongDebtorAccountNumber;
    if (debit.paymentScheme.schemeData)
      debit.paymentScheme.schemeData.shortenedDebtorAccountNumber = wrongDebtorAccountNumber;
    const uetr = uetrOf(debit);
    await receiveFromScheme(debit);

    const change = await states.waitFor((record) => record.key === uetr);
    expect(change.value).toMatchObject({
      fromState: 'DEBIT_RECEIVED',
      toState: 'DEBIT_REJECTED',
      eventType: 'DEBIT_REQUEST_REJECTED',
      transaction: debit,
      causedBy: { messageType: 'DirectDebit' },
    });
    expect(change.value.statusReport?.status).toEqual({
      status: 'RJCT',
      reasonInfo: [
        {
          reason: { code: 'AC01' },
          additionalInfo: ['Debtor account failed CDV at branch 250655: check digit is wrong'],
        },
      ],
    });
    await barrier();
    expect(recordsOf(accepted, debit)).toEqual([]);
    expect(recordsOf(reports, debit)).toEqual([]);
    expect(recordsOf(states, debit)).toHaveLength(1);
  });

  test('an off-us debit recorded as rejected is skipped; one recorded as accepted is passed on again', async () => {
    // Rejected before, although it would pass now: its state change was its only output.
    const rejected = schemeDebit(collectionDate());
    await recordSnapshot(rejected, ['DEBIT_RECEIVED', 'DEBIT_REJECTED']);
    // Accepted before, its accepted record may be missing; today its date is in the past.
    const acceptedBefore = schemeDebit(addDays(businessDate(new Date()), -2));
    await recordSnapshot(acceptedBefore, ['DEBIT_RECEIVED', 'DEBIT_ACCEPTED']);
    await receiveFromSchemeAgain(rejected, acceptedBefore);

    const forwarded = await accepted.waitFor((record) => record.key === uetrOf(acceptedBefore));
    expect(forwarded.headers).toMatchObject({ 'rp-state': 'DEBIT_ACCEPTED', 'rp-origin': 'scheme' });
    const change = await states.waitFor((record) => record.key === uetrOf(acceptedBefore));
    expect(change.value.statusReport?.status).toEqual({ status: 'ACCP' });
    await barrier();
    expect(recordsOf(reports, acceptedBefore)).toEqual([]);
    for (const reader of [states, accepted, reports] as TopicReader<unknown>[])
      expect(recordsOf(reader, rejected)).toEqual([]);
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

  /** The store's reads so far (every command of the validator's store is counted). */
  const reads = () => metricValue('rp_mongodb_commands_total', { command: 'find', outcome: 'ok' });

  test.each([
    ['ACSC', 'DEBIT_COMPLETED'],
    ['RJCT', 'DEBIT_UNPAID'],
  ] as const)(
    '%s ends the transaction with %s at once, naming it by UETR for the tracker to fill in, without a read',
    async (status, eventType) => {
      const debit = validDebit(collectionDate());
      const readsBefore = await reads();
      const report = bankReport(debit, status);
      await reportReceived(report);
      const change = await states.waitFor((record) => record.key === uetrOf(debit));
      expect(change.value).toMatchObject({
        uetr: uetrOf(debit),
        fromState: 'DEBIT_RESPONSE_ACCEPTED',
        toState: eventType,
        eventType,
        emittedBy: 'validator',
        statusReport: report,
        causedBy: {
          messageType: 'PaymentStatusReport',
          messageIdentification: report.messageIdentifiers.messageIdentification,
        },
      });
      expect(change.value.transaction ?? undefined).toBeUndefined();
      expect(await reads()).toBe(readsBefore);
      expect(deadReports.records.filter((record) => record.key === uetrOf(debit))).toEqual([]);
    },
  );

  test('an interim report (ACSP) changes nothing; the final one after it does', async () => {
    const debit = validDebit(collectionDate());
    await reportReceived(bankReport(debit, 'ACSP'));
    const final = bankReport(debit, 'ACSC');
    await reportReceived({
      ...final,
      messageIdentifiers: {
        ...final.messageIdentifiers,
        messageIdentification: `F${uetrOf(debit).slice(0, 20)}`,
      },
    });
    const change = await states.waitFor((record) => record.key === uetrOf(debit));
    expect(change.value.eventType).toBe('DEBIT_COMPLETED');
    // The reports share a partition, in order: an ACSP change would be on the state topic first.
    expect(states.records.filter((record) => record.key === uetrOf(debit))).toHaveLength(1);
    expect(
      await metricValue('rp_validator_status_reports_total', { status: 'ACSP', outcome: 'ignored' }),
    ).toBeGreaterThanOrEqual(1);
  });
});

describe('received credit transfer authorisations', () => {
  /** A credit transfer's record as the ingress leaves it on the received topic, with `headers` besides. */
  function receivedCredit(credit: CreditTransfer, headers: Record<string, string> = {}) {
    return {
      key: uetrOf(credit),
      value: credit,
      headers: { 'rp-state': 'CREDIT_AUTH_RECEIVED', ...headers },
    };
  }

  /** A credit transfer as the ingress leaves it on the received topic. */
  function receiveCredits(...credits: CreditTransfer[]): Promise<void> {
    return input.send(
      'rp.credittransfer.received.v1',
      credits.map((credit) => receivedCredit(credit)),
    );
  }

  /** A credit transfer the ingress produced again for a resend. */
  function receiveCreditsAgain(...credits: CreditTransfer[]): Promise<void> {
    return input.send(
      'rp.credittransfer.received.v1',
      credits.map((credit) => receivedCredit(credit, resent)),
    );
  }

  /**
   * The credit consumer's barrier: a later valid credit's state change and accepted record have been
   * read, so everything the validator produced for earlier credits on those two topics has been read too.
   */
  async function creditBarrier(): Promise<void> {
    const credit = validCredit();
    await receiveCredits(credit);
    await acceptedCredits.waitFor((record) => record.key === uetrOf(credit));
    await states.waitFor((record) => record.key === uetrOf(credit));
  }

  const recordsOf = <T>(reader: TopicReader<T>, credit: CreditTransfer) =>
    reader.records.filter((record) => record.key === uetrOf(credit));

  /** The credited account with its last digit changed: it fails the check digit test. */
  const wrongCreditorAccountNumber = `${creditorAccountNumber.slice(0, -1)}${(Number(creditorAccountNumber.slice(-1)) + 1) % 10}`;

  test('a valid credit: CREDIT_AUTH_ACCEPTED with an ACCP report, then the credit on the accepted topic', async () => {
    const credit = validCredit();
    const uetr = uetrOf(credit);
    await receiveCredits(credit);

    const forwarded = await acceptedCredits.waitFor((record) => record.key === uetr);
    expect(forwarded.value).toEqual(credit);
    expect(forwarded.headers['rp-state']).toBe('CREDIT_AUTH_ACCEPTED');
    const change = await states.waitFor((record) => record.key === uetr);
    expect(change.value).toMatchObject({
      uetr,
      fromState: 'CREDIT_AUTH_RECEIVED',
      toState: 'CREDIT_AUTH_ACCEPTED',
      eventType: 'CREDIT_AUTH_ACCEPTED',
      emittedBy: 'validator',
      transaction: credit,
      statusReport: {
        messageIdentifiers: { messageIdentification: statusReportId(uetr) },
        originalMessageIdentifiers: credit.messageIdentifiers,
        transactionIdentifiers: credit.transactionIdentifiers,
        instructingAgent: { memberId: '250655' },
        instructedAgent: { memberId: '632005' },
        originalTransactionData: {
          paymentMethod: 'CreditTransfer',
          amounts: credit.amounts,
          creditorAccount: credit.creditorAccount,
          creditorAgent: credit.creditorAgent,
        },
        status: { status: 'ACCP' },
      },
      causedBy: {
        messageType: 'CreditTransfer',
        messageIdentification: credit.messageIdentifiers.messageIdentification,
      },
    });
    expect(Date.parse(change.timestamp)).toBeLessThanOrEqual(Date.parse(forwarded.timestamp));
    // Credits answer the sending bank with no report of their own yet: nothing on the outbound topic.
    await creditBarrier();
    await barrier();
    expect(recordsOf(reports, credit)).toEqual([]);
  });

  test('a credit to an account failing CDV: CREDIT_AUTH_REJECTED with RJCT AC03, and nothing produced', async () => {
    const credit = validCredit();
    credit.creditorAccount.identification.value = wrongCreditorAccountNumber;
    const uetr = uetrOf(credit);
    await receiveCredits(credit);

    const change = await states.waitFor((record) => record.key === uetr);
    expect(change.value).toMatchObject({
      fromState: 'CREDIT_AUTH_RECEIVED',
      toState: 'CREDIT_AUTH_REJECTED',
      eventType: 'CREDIT_AUTH_REJECTED',
      transaction: credit,
      causedBy: { messageType: 'CreditTransfer' },
    });
    expect(change.value.statusReport?.status).toEqual({
      status: 'RJCT',
      reasonInfo: [
        {
          reason: { code: 'AC03' },
          additionalInfo: ['Creditor account failed CDV at branch 250655: check digit is wrong'],
        },
      ],
    });
    await creditBarrier();
    expect(recordsOf(acceptedCredits, credit)).toEqual([]);
    expect(recordsOf(states, credit)).toHaveLength(1);
  });

  test('the same credit twice in one send, then again later, is answered once', async () => {
    const credit = validCredit();
    await receiveCredits(credit, credit);
    await acceptedCredits.waitFor((record) => record.key === uetrOf(credit));
    await receiveCredits(credit);
    await creditBarrier();
    expect(recordsOf(states, credit)).toHaveLength(1);
    expect(recordsOf(acceptedCredits, credit)).toHaveLength(1);
  });

  test('a credit already on its way to the creditor bank, or rejected, is skipped', async () => {
    const delivering = validCredit();
    await recordSnapshot(delivering, [
      'CREDIT_AUTH_RECEIVED',
      'CREDIT_AUTH_ACCEPTED',
      'CREDIT_AUTH_DELIVERY_PENDING',
    ]);
    // Rejected before, although it would pass now: its rejection is final and was its only output.
    const rejected = validCredit();
    await recordSnapshot(rejected, ['CREDIT_AUTH_RECEIVED', 'CREDIT_AUTH_REJECTED']);
    await receiveCreditsAgain(delivering, rejected);
    await creditBarrier();
    for (const credit of [delivering, rejected]) {
      expect(recordsOf(states, credit)).toEqual([]);
      expect(recordsOf(acceptedCredits, credit)).toEqual([]);
    }
  });

  test('a credit recorded as accepted is passed on again, even if it would now fail', async () => {
    // Accepted earlier, its accepted record may be missing; the creditor bank has left the scheme since.
    const credit = validCredit();
    credit.creditorAgent = { ...credit.creditorAgent, memberId: '999999' };
    await recordSnapshot(credit, ['CREDIT_AUTH_RECEIVED', 'CREDIT_AUTH_ACCEPTED']);
    await receiveCreditsAgain(credit);
    const forwarded = await acceptedCredits.waitFor((record) => record.key === uetrOf(credit));
    expect(forwarded.value).toEqual(credit);
    expect(forwarded.headers['rp-state']).toBe('CREDIT_AUTH_ACCEPTED');
    const change = await states.waitFor((record) => record.key === uetrOf(credit));
    expect(change.value.statusReport?.status).toEqual({ status: 'ACCP' });
  });
});
