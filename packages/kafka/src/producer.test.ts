import { KafkaJSConnectionError, KafkaJSNonRetriableError, KafkaJSProtocolError } from 'kafkajs';
import { describe, expect, expectTypeOf, test } from 'vitest';
import type { AvroCodec } from './avro-serde.ts';
import type { KafkaClient } from './kafka.ts';
import { lostProducerState, type ProducerRecord } from './producer.ts';

interface DirectDebit {
  uetr: string;
  amount: string;
}

interface StatusReport {
  uetr: string;
  status: 'ACCP' | 'RJCT';
}

describe('producer typing', () => {
  test('each topic takes the record type of its codec, and only configured topics are accepted', () => {
    const build = (kafka: KafkaClient, debits: AvroCodec<DirectDebit>, reports: AvroCodec<StatusReport>) =>
      kafka.createProducer({
        codecs: { 'rp.directdebit.received.v1': debits, 'rp.statusreport.outbound.v1': reports },
      });
    type Built = ReturnType<typeof build>;
    expectTypeOf<Parameters<Built['send']>[0]>().toEqualTypeOf<
      'rp.directdebit.received.v1' | 'rp.statusreport.outbound.v1'
    >();
    expectTypeOf<ProducerRecord<StatusReport>['value']>().toEqualTypeOf<StatusReport>();
    const misuse = (producer: Built) => {
      // @ts-expect-error a status report is not a direct debit
      void producer.send('rp.directdebit.received.v1', [{ key: 'u', value: { uetr: 'u', status: 'ACCP' } }]);
      // @ts-expect-error no codec is configured for this topic
      void producer.send('rp.unknown.v1', []);
      void producer.send('rp.statusreport.outbound.v1', [{ key: 'u', value: { uetr: 'u', status: 'RJCT' } }]);
    };
    expectTypeOf(misuse).toBeFunction();
  });
});

describe('lostProducerState', () => {
  const protocolError = (type: string, code: number) =>
    new KafkaJSProtocolError({ message: type, type, code, retriable: false } as unknown as Error);

  test('names the broker refusing the numbering, also beneath what kafkajs wraps it in', () => {
    expect(lostProducerState(protocolError('UNKNOWN_PRODUCER_ID', 59))).toBe(true);
    expect(lostProducerState(protocolError('OUT_OF_ORDER_SEQUENCE_NUMBER', 45))).toBe(true);
    expect(lostProducerState(protocolError('DUPLICATE_SEQUENCE_NUMBER', 46))).toBe(true);
    const wrapped = new KafkaJSNonRetriableError(new Error('Failed to send messages'));
    Object.assign(wrapped, { cause: protocolError('INVALID_PRODUCER_EPOCH', 47) });
    expect(lostProducerState(wrapped)).toBe(true);
  });

  test('leaves every other failure to the same producer', () => {
    expect(lostProducerState(protocolError('MESSAGE_TOO_LARGE', 10))).toBe(false);
    expect(lostProducerState(new KafkaJSConnectionError('Connection error: ECONNREFUSED'))).toBe(false);
    expect(lostProducerState(new Error('anything'))).toBe(false);
    expect(lostProducerState(undefined)).toBe(false);
  });
});
