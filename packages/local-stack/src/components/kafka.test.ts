import { describe, expect, it } from 'vitest';
import { resolveStackConfig } from '../config.ts';
import { newClusterId, partitionsLoaded, serverProperties } from './kafka.ts';

describe('Kafka settings', () => {
  it('runs one KRaft node on the configured ports with declared topics only', () => {
    const config = resolveStackConfig({
      stackDir: '/tmp/s',
      env: { RP_STACK_KAFKA_PORT: '29092', RP_STACK_KAFKA_CONTROLLER_PORT: '29093' },
    });
    const lines = serverProperties(config, '/tmp/s/data/kafka/kraft').split('\n');
    expect(lines).toContain('process.roles=broker,controller');
    expect(lines).toContain('controller.quorum.voters=1@127.0.0.1:29093');
    expect(lines).toContain('listeners=PLAINTEXT://127.0.0.1:29092,CONTROLLER://127.0.0.1:29093');
    expect(lines).toContain('advertised.listeners=PLAINTEXT://127.0.0.1:29092');
    expect(lines).toContain('auto.create.topics.enable=false');
    expect(lines).toContain('offsets.topic.replication.factor=1');
    expect(lines).toContain('transaction.state.log.min.isr=1');
    expect(lines).toContain('group.initial.rebalance.delay.ms=0');
    expect(lines).toContain('log.dirs=/tmp/s/data/kafka/kraft');
  });

  it('makes cluster ids in the format Kafka accepts', () => {
    for (let i = 0; i < 200; i++) {
      const id = newClusterId();
      expect(id).toMatch(/^[A-Za-z0-9_][A-Za-z0-9_-]{21}$/);
    }
  });
});

describe('partitionsLoaded', () => {
  it("reads the last progress line of the broker's start", () => {
    const log = [
      '[2026-12-03 05:45:12,116] INFO Completed load of Log(dir=/stack/data/kafka/kraft/a-2, topicId=wDq, topic=a, partition=2, highWatermark=0, lastStableOffset=0, logStartOffset=0, logEndOffset=0) with 1 segments, local-log-start-offset 0 and log-end-offset 0 in 6ms (5754/7063 completed in /stack/data/kafka/kraft) (kafka.log.LogManager)',
      '[2026-12-03 05:45:12,122] INFO [LogLoader partition=b-0, dir=/stack/data/kafka/kraft] Loading producer state till offset 0 with message format version 2 (kafka.log.UnifiedLog$)',
      '[2026-12-03 05:45:12,130] INFO Completed load of Log(dir=/stack/data/kafka/kraft/b-0, topicId=Tna, topic=b, partition=0) with 1 segments in 5ms (5755/7063 completed in /stack/data/kafka/kraft) (kafka.log.LogManager)',
    ].join('\n');
    expect(partitionsLoaded(log)).toEqual({ loaded: 5755, total: 7063 });
  });

  it('finds nothing in a log without them', () => {
    expect(
      partitionsLoaded('[2026-12-03 05:45:12,116] INFO [KafkaRaftServer nodeId=1] Kafka Server started'),
    ).toBe(undefined);
  });
});
