import { createMetrics } from '@rp/runtime';
import { Kafka } from 'kafkajs';
import { describe, expect, test } from 'vitest';
import { kafkaRequestMetrics, reportingRequests } from './request-metrics.ts';

describe('Kafka request metrics', () => {
  test('counts, sizes and times each request by API', async () => {
    const metrics = createMetrics({ service: 'test', defaultMetrics: false });
    const onRequest = kafkaRequestMetrics(metrics);
    onRequest({ api: 'Produce', durationMs: 4, bytes: 1_200 });
    onRequest({ api: 'Produce', durationMs: 6, bytes: 800 });
    onRequest({ api: 'Fetch', durationMs: 500, bytes: 90 });
    const { body } = await metrics.render();
    expect(body).toContain('rp_kafka_requests_total{api="Produce",service="test"} 2');
    expect(body).toContain('rp_kafka_requests_total{api="Fetch",service="test"} 1');
    expect(body).toContain('rp_kafka_request_bytes_total{api="Produce",service="test"} 2000');
    expect(body).toContain('rp_kafka_request_duration_seconds_sum{service="test",api="Produce"} 0.01');
    expect(body).toContain(
      'rp_kafka_request_duration_seconds_bucket{le="0.25",service="test",api="Fetch"} 0',
    );
    expect(body).toContain('rp_kafka_request_duration_seconds_bucket{le="0.5",service="test",api="Fetch"} 1');
  });

  test('leaves the client as it is without a listener; with one, the rest of the client is unchanged', () => {
    const kafka = new Kafka({ clientId: 'test', brokers: ['127.0.0.1:1'] });
    expect(reportingRequests(kafka)).toBe(kafka);
    const reporting = reportingRequests(kafka, () => {});
    expect(reporting).not.toBe(kafka);
    expect(reporting.logger()).toBe(kafka.logger());
    // What reaches the listener needs a broker: request-metrics.int.test.ts.
  });
});
