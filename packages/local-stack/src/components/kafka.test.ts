import { describe, expect, it } from 'vitest';
import { resolveStackConfig } from '../config.ts';
import { newClusterId, serverProperties } from './kafka.ts';

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
