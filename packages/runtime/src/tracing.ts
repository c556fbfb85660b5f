import { AsyncLocalStorage } from 'node:async_hooks';
import {
  type Attributes,
  type Context,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  type TextMapGetter,
  type TextMapSetter,
  TraceFlags,
  type Tracer,
  trace,
} from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  BatchSpanProcessor,
  type IdGenerator,
  RandomIdGenerator,
  type SpanExporter,
  type SpanProcessor,
  TracerProvider,
} from '@opentelemetry/sdk-trace';
import { url } from './config.ts';

/** Header names of W3C Trace Context, on HTTP requests and on Kafka records alike. */
export const traceHeaders = { traceparent: 'traceparent', tracestate: 'tracestate' } as const;

export type SpanRole = 'server' | 'client' | 'producer' | 'consumer' | 'internal';

const kinds: Record<SpanRole, SpanKind> = {
  server: SpanKind.SERVER,
  client: SpanKind.CLIENT,
  producer: SpanKind.PRODUCER,
  consumer: SpanKind.CONSUMER,
  internal: SpanKind.INTERNAL,
};

export interface SpanOptions {
  readonly role: SpanRole;
  /** The caller's or the record's trace headers (`traceparent`, `tracestate`): the span continues that trace. */
  readonly parent?: Readonly<Record<string, string | undefined>>;
  /**
   * The transaction the span is about. Without a parent, the trace is named after it (the UETR's 32 hex
   * digits are the trace id), so every span of one transaction is in one trace even where a hop lost the
   * headers; it is also the `rp.uetr` attribute.
   */
  readonly uetr?: string;
  readonly attributes?: Attributes;
  /** Trace headers of related work that is not the parent (a caller's own trace): kept as a span link. */
  readonly link?: Readonly<Record<string, string | undefined>>;
  /** When the work began, if before the span is made (epoch milliseconds). */
  readonly startTime?: number;
}

/** One unit of work; `headers` are what to put on the records or requests it causes. */
export interface TraceSpan {
  /** `traceparent` (and `tracestate`) naming this span as the parent. */
  readonly headers: Readonly<Record<string, string>>;
  readonly traceId: string;
  setAttribute(name: string, value: string | number | boolean): void;
  /** Marks the span failed with the error's code and message. */
  fail(error: unknown): void;
  end(): void;
}

export interface Tracing {
  startSpan(name: string, options: SpanOptions): TraceSpan;
  /** Runs `work` in a span that ends with it and fails if it throws. */
  inSpan<T>(name: string, options: SpanOptions, work: (span: TraceSpan) => Promise<T>): Promise<T>;
  /**
   * Runs `work` with `scope` as the ambient span: what it produces without trace headers of its own becomes
   * that span's child (see `currentHeaders`). The scope is asked lazily, with the transaction's UETR, so an
   * HTTP server span can be made once the request's body names its transaction.
   */
  runInScope<T>(scope: TraceScope, work: () => Promise<T>): Promise<T>;
  /** The ambient span's trace headers, if work runs in a scope. */
  currentHeaders(uetr?: string): Readonly<Record<string, string>> | undefined;
  /** Sends what is buffered. */
  flush(): Promise<void>;
  /** Sends what is buffered and stops exporting. */
  shutdown(): Promise<void>;
}

export interface TraceScope {
  headers(uetr?: string): Readonly<Record<string, string>>;
}

export interface TracingOptions {
  readonly service: string;
  readonly version?: string;
  /**
   * OTLP/HTTP base URL (`OTEL_EXPORTER_OTLP_ENDPOINT`, e.g. `http://otel-collector:4318`); spans go to
   * `<endpoint>/v1/traces`. Without it and without `exporter`, spans are still made (their ids travel in the
   * headers) but not exported.
   */
  readonly endpoint?: string;
  /** Instead of OTLP (tests read spans from memory this way). */
  readonly exporter?: SpanExporter;
  /** Delay between exports. Default 1 s. */
  readonly exportDelayMs?: number;
}

const getter: TextMapGetter<Readonly<Record<string, string | undefined>>> = {
  keys: (carrier) => Object.keys(carrier),
  get: (carrier, key) => carrier[key],
};
const setter: TextMapSetter<Record<string, string>> = {
  set: (carrier, key, value) => {
    carrier[key] = value;
  },
};

const uuidHex = /^[0-9a-f]{32}$/;

/** The trace id of a transaction: its UETR's 32 hex digits (a version-4 UUID is never all zeros). */
export function transactionTraceId(uetr: string): string | undefined {
  const hex = uetr.replaceAll('-', '').toLowerCase();
  return uuidHex.test(hex) && !/^0+$/.test(hex) ? hex : undefined;
}

/**
 * Random ids, except that the next root span may be given its trace id. `startSpan` asks for the trace id
 * synchronously, so setting it just before the call cannot leak to another span.
 */
class TransactionIdGenerator implements IdGenerator {
  next: string | undefined;
  readonly #random = new RandomIdGenerator();
  generateTraceId(): string {
    const id = this.next ?? this.#random.generateTraceId();
    this.next = undefined;
    return id;
  }
  generateSpanId(): string {
    return this.#random.generateSpanId();
  }
}

/**
 * OpenTelemetry traces for one service: spans with explicit parents (no ambient context), W3C Trace
 * Context in and out through plain header maps, so HTTP requests and Kafka records carry them the same way.
 */
export function createTracing(options: TracingOptions): Tracing {
  const exporter =
    options.exporter ??
    (options.endpoint
      ? new OTLPTraceExporter({ url: `${options.endpoint.replace(/\/+$/, '')}/v1/traces` })
      : undefined);
  if (exporter === undefined) return headersOnlyTracing();
  const propagator = new W3CTraceContextPropagator();
  const ids = new TransactionIdGenerator();
  const processors: SpanProcessor[] = [
    new BatchSpanProcessor({ exporter, scheduledDelayMillis: options.exportDelayMs ?? 1_000 }),
  ];
  const provider = new TracerProvider({
    resource: resourceFromAttributes({
      'service.name': options.service,
      ...(options.version ? { 'service.version': options.version } : {}),
      'service.namespace': 'regulated-payments',
    }),
    idGenerator: ids,
    spanProcessors: processors,
  });
  const tracer: Tracer = provider.getTracer('@rp/runtime');

  function parentContext(parent: SpanOptions['parent']): Context {
    if (!parent?.[traceHeaders.traceparent]) return ROOT_CONTEXT;
    return propagator.extract(ROOT_CONTEXT, parent, getter);
  }

  function wrap(span: Span): TraceSpan {
    const headers: Record<string, string> = {};
    propagator.inject(trace.setSpan(ROOT_CONTEXT, span), headers, setter);
    return {
      headers,
      traceId: span.spanContext().traceId,
      setAttribute: (name, value) => {
        span.setAttribute(name, value);
      },
      fail: (error) => {
        const code = (error as { code?: unknown })?.code;
        span.setStatus({
          code: SpanStatusCode.ERROR,
          message: `${typeof code === 'string' ? `${code}: ` : ''}${(error as Error)?.message ?? String(error)}`,
        });
      },
      end: () => span.end(),
    };
  }

  function startSpan(name: string, spanOptions: SpanOptions): TraceSpan {
    const context = parentContext(spanOptions.parent);
    const transactionTrace = spanOptions.uetr ? transactionTraceId(spanOptions.uetr) : undefined;
    const attributes: Attributes = {
      ...spanOptions.attributes,
      ...(transactionTrace ? { 'rp.uetr': spanOptions.uetr } : {}),
    };
    if (trace.getSpanContext(context) === undefined) ids.next = transactionTrace;
    const linked = spanOptions.link?.[traceHeaders.traceparent]
      ? trace.getSpanContext(propagator.extract(ROOT_CONTEXT, spanOptions.link, getter))
      : undefined;
    const span = tracer.startSpan(
      name,
      {
        kind: kinds[spanOptions.role],
        attributes,
        ...(linked ? { links: [{ context: linked }] } : {}),
        ...(spanOptions.startTime === undefined ? {} : { startTime: spanOptions.startTime }),
      },
      context,
    );
    ids.next = undefined;
    return wrap(span);
  }

  return tracingOf(
    startSpan,
    () => provider.forceFlush(),
    () => provider.shutdown(),
  );
}

/** A `Tracing` made of its way to start a span: units of work and the ambient scope are the same for all. */
function tracingOf(
  startSpan: Tracing['startSpan'],
  flush: Tracing['flush'],
  shutdown: Tracing['shutdown'],
): Tracing {
  const scopes = new AsyncLocalStorage<TraceScope>();
  return {
    startSpan,
    async inSpan(name, spanOptions, work) {
      const span = startSpan(name, spanOptions);
      try {
        return await work(span);
      } catch (error) {
        span.fail(error);
        throw error;
      } finally {
        span.end();
      }
    },
    runInScope: (scope, work) => scopes.run(scope, work),
    currentHeaders: (uetr) => scopes.getStore()?.headers(uetr),
    flush,
    shutdown,
  };
}

/**
 * Tracing with nothing to export to: the trace context still travels (the same trace ids as with an
 * exporter: the parent's, else the transaction's, else a random one; a new span id for every span; the
 * parent's sampled flag and tracestate), but no span is recorded. A span of the SDK that no processor
 * exports costs the same to make as one that is (its attributes, its clock readings, its ids): 3-7% of
 * each service's CPU under load, measured, for nothing kept.
 */
function headersOnlyTracing(): Tracing {
  const propagator = new W3CTraceContextPropagator();
  const random = new RandomIdGenerator();
  const ignore = () => undefined;

  function startSpan(_name: string, spanOptions: SpanOptions): TraceSpan {
    const parent = spanOptions.parent?.[traceHeaders.traceparent]
      ? trace.getSpanContext(propagator.extract(ROOT_CONTEXT, spanOptions.parent, getter))
      : undefined;
    const traceId =
      parent?.traceId ??
      (spanOptions.uetr ? transactionTraceId(spanOptions.uetr) : undefined) ??
      random.generateTraceId();
    // A root is sampled, as the SDK's default sampler has it; a child follows its parent.
    const flags = parent === undefined ? TraceFlags.SAMPLED : parent.traceFlags & TraceFlags.SAMPLED;
    const headers: Record<string, string> = {
      [traceHeaders.traceparent]: `00-${traceId}-${random.generateSpanId()}-0${flags}`,
    };
    const state = parent?.traceState?.serialize();
    if (state) headers[traceHeaders.tracestate] = state;
    return { headers, traceId, setAttribute: ignore, fail: ignore, end: ignore };
  }

  const nothing = async () => undefined;
  return tracingOf(startSpan, nothing, nothing);
}

/** The configuration variable of tracing, for a service's config spec (`...tracingConfig`). */
export const tracingConfig = {
  OTEL_EXPORTER_OTLP_ENDPOINT: url({
    optional: true,
    doc: 'OTLP/HTTP endpoint spans are exported to (`<url>/v1/traces`), e.g. an OpenTelemetry Collector; unset: spans are made and carried in headers but not exported',
  }),
};

/** A service's tracing, exporting to the configured endpoint when there is one. */
export function serviceTracing(service: string, endpoint: string | undefined): Tracing {
  return createTracing({ service, ...(endpoint ? { endpoint } : {}) });
}
