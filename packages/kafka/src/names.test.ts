import { describe, expect, test } from 'vitest';
import {
  clientIdFor,
  consumerGroupName,
  deadLetterTopicName,
  isLegalTopicName,
  retryTopicName,
  valueSubject,
} from './names.ts';

describe('naming conventions', () => {
  test('group <service>.<topic>, client id <service>-<role>', () => {
    expect(consumerGroupName('validator', 'rp.directdebit.received.v1')).toBe(
      'validator.rp.directdebit.received.v1',
    );
    expect(clientIdFor('ingress', 'producer')).toBe('ingress-producer');
  });

  test('retry tiers and dead-letter topic hang off the group', () => {
    const group = consumerGroupName('dispatcher', 'rp.statusreport.outbound.v1');
    expect(retryTopicName(group, 2)).toBe('dispatcher.rp.statusreport.outbound.v1.retry.2');
    expect(deadLetterTopicName(group)).toBe('dispatcher.rp.statusreport.outbound.v1.dlq');
    expect(isLegalTopicName(retryTopicName(group, 2))).toBe(true);
  });

  test('value subjects follow the topic name strategy', () => {
    expect(valueSubject('rp.events.v1')).toBe('rp.events.v1-value');
  });

  test('illegal topic names are recognised', () => {
    expect(isLegalTopicName('has space')).toBe(false);
    expect(isLegalTopicName('..')).toBe(false);
    expect(isLegalTopicName('x'.repeat(250))).toBe(false);
  });
});
