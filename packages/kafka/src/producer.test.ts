import { describe, expectTypeOf, test } from 'vitest';
import type { AvroCodec } from './avro-serde.ts';
import type { KafkaClient } from './kafka.ts';
import type { ProducerRecord } from './producer.ts';

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
