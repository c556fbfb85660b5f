import { describe, expect, it } from 'vitest';
import { engineServices, hostedServices, selectServices, serviceEnvironment } from './services.ts';

describe('selectServices', () => {
  it('runs every service when RP_SERVICES is unset', () => {
    expect(selectServices(undefined)).toEqual([...engineServices]);
    expect(selectServices([])).toEqual([...engineServices]);
  });

  it('keeps the start order whatever order the names come in, the ingress last', () => {
    expect(selectServices(['ingress', 'tracker', 'validator'])).toEqual(['tracker', 'validator', 'ingress']);
    expect(selectServices(['scheduler'])).toEqual(['scheduler']);
  });

  it('refuses a name it does not run, naming the variable and what it runs', () => {
    expect(() => selectServices(['tracker', 'bank-simulator', 'console'])).toThrow(
      /RP_SERVICES: "bank-simulator", "console" are not services the engine runs; name any of tracker, event-publisher/,
    );
  });

  it('refuses a name given twice', () => {
    expect(() => selectServices(['tracker', 'ingress', 'tracker'])).toThrow(
      'RP_SERVICES: tracker named twice',
    );
  });
});

describe('serviceEnvironment', () => {
  const env = {
    KAFKA_BROKERS: 'kafka:9092',
    LOG_LEVEL: 'info',
    PORT: '9000',
    INGRESS__PORT: '9080',
    EVENT_PUBLISHER__LOG_LEVEL: 'debug',
    EVENT_PUBLISHER__: 'nothing named',
  };

  it('gives a service the shared variables, its own scoped ones over them, and no bare PORT', () => {
    const ingress = serviceEnvironment(env, 'ingress');
    expect(ingress.PORT).toBe('9080');
    expect(ingress.KAFKA_BROKERS).toBe('kafka:9092');
    expect(ingress.LOG_LEVEL).toBe('info');

    const publisher = serviceEnvironment(env, 'event-publisher');
    expect(publisher.LOG_LEVEL).toBe('debug');
    expect('PORT' in publisher).toBe(false);
    expect(publisher['']).toBeUndefined();
  });
});

describe('hostedServices', () => {
  it('pairs each service named with its start and its own environment', () => {
    const hosted = hostedServices(['tracker', 'validator'], { TRACKER__PORT: '9085', PORT: '1' });
    expect(hosted.map((service) => service.name)).toEqual(['tracker', 'validator']);
    expect(hosted[0]?.env.PORT).toBe('9085');
    expect(hosted[1]?.env.PORT).toBeUndefined();
    expect(hosted.every((service) => typeof service.start === 'function')).toBe(true);
  });
});
