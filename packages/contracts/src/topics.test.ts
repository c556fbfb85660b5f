import { describe, expect, expectTypeOf, it } from 'vitest';
import type {
  DirectDebit,
  EventPosting,
  PaymentStatusReport,
  TransactionStateChanged,
} from './generated/types.ts';
import { schemaSet } from './schema-set.ts';
import { type TopicValue, topicNames, topicSubjects, topics } from './topics.ts';

describe('topic catalogue', () => {
  it('lists the pipeline topics, each keyed by UETR with a Kafka message as value', () => {
    expect(topicNames).toEqual([
      'rp.directdebit.received.v1',
      'rp.directdebit.accepted.v1',
      'rp.directdebit.due.v1',
      'rp.statusreport.outbound.v1',
      'rp.statusreport.received.v1',
      'rp.credittransfer.received.v1',
      'rp.credittransfer.accepted.v1',
      'rp.transaction.state.v1',
      'rp.events.v1',
      'rp.reconciliation.v1',
      'rp.delivery.outcome.v1',
    ]);
    for (const name of topicNames) {
      const topic = topics[name];
      expect(topic.key).toBe('uetr');
      expect(schemaSet().message(topic.value).kind).toBe('message');
      expect(topic.partitions).toBeGreaterThan(0);
      expect(topic.retentionMs).toBeGreaterThan(0);
    }
  });

  it('names registry subjects by TopicNameStrategy', () => {
    expect(topicSubjects(['rp.events.v1', 'rp.transaction.state.v1'])).toEqual({
      'rp.events.v1-value': 'EventPosting',
      'rp.transaction.state.v1-value': 'TransactionStateChanged',
    });
  });

  it("derives a handler's payload type from the topic name", () => {
    expectTypeOf<TopicValue<'rp.directdebit.received.v1'>>().toEqualTypeOf<DirectDebit>();
    expectTypeOf<TopicValue<'rp.statusreport.outbound.v1'>>().toEqualTypeOf<PaymentStatusReport>();
    expectTypeOf<TopicValue<'rp.transaction.state.v1'>>().toEqualTypeOf<TransactionStateChanged>();
    expectTypeOf<TopicValue<'rp.events.v1'>>().toEqualTypeOf<EventPosting>();
  });
});
