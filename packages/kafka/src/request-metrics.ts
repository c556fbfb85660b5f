import { type Metrics, roundTripBuckets } from '@rp/runtime';
import type { Kafka as KafkaJs } from 'kafkajs';

/** One request a client sent to a broker and the broker answered (kafkajs's `network.request` event). */
export interface KafkaRequestEvent {
  /** The Kafka API: `Produce`, `Fetch`, `OffsetCommit`, `Heartbeat`, `Metadata`, ... */
  readonly api: string;
  /** From the request's sending to its answer; a fetch's includes the broker's wait for records. */
  readonly durationMs: number;
  /** The request's size on the wire. */
  readonly bytes: number;
}

interface RequestPayload {
  readonly apiName: string;
  readonly duration: number;
  readonly size: number;
}

interface Instrumented {
  readonly events: { readonly REQUEST: string };
  on(event: string, listener: (event: { payload: RequestPayload }) => void): unknown;
}

/**
 * The client every producer, consumer and admin of a `createKafka` comes from, with `onRequest` told of
 * each of their requests. kafkajs reports requests per producer, consumer and admin, not per client, so
 * the three factories hand each one out with a listener on it; everything else is the client itself.
 */
export function reportingRequests(kafka: KafkaJs, onRequest?: (event: KafkaRequestEvent) => void): KafkaJs {
  if (onRequest === undefined) return kafka;
  const listen = <C extends Instrumented>(client: C): C => {
    client.on(client.events.REQUEST, ({ payload }) =>
      onRequest({ api: payload.apiName, durationMs: payload.duration, bytes: payload.size }),
    );
    return client;
  };
  const reporting: KafkaJs = Object.create(kafka);
  reporting.producer = (config) => listen(kafka.producer(config));
  reporting.consumer = (config) => listen(kafka.consumer(config));
  reporting.admin = (config) => listen(kafka.admin(config));
  return reporting;
}

/**
 * A service's Kafka requests, counted and timed by API: the `onRequest` of `createKafka`. Kafka's work
 * follows its requests more than its records (a produce request carries a few records, a fetch answers
 * as soon as one is there), so the request rate by API over the message rate says what the broker does
 * per message; a produce request's round trip is how long a record waits for the broker's ack.
 */
export function kafkaRequestMetrics(metrics: Metrics): (event: KafkaRequestEvent) => void {
  const requests = metrics.counter(
    'rp_kafka_requests_total',
    'Kafka requests answered by a broker, by API (Produce, Fetch, OffsetCommit, Heartbeat, ...)',
    ['api'],
  );
  const bytes = metrics.counter('rp_kafka_request_bytes_total', 'Bytes of the Kafka requests sent, by API', [
    'api',
  ]);
  const duration = metrics.histogram(
    'rp_kafka_request_duration_seconds',
    "Round trip of a Kafka request, by API (a fetch's includes the broker's wait for records)",
    ['api'],
    { buckets: roundTripBuckets },
  );
  return (event) => {
    requests.inc({ api: event.api });
    bytes.inc({ api: event.api }, event.bytes);
    duration.observe({ api: event.api }, event.durationMs / 1000);
  };
}
