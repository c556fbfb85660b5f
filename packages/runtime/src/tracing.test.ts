import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace';
import { describe, expect, test } from 'vitest';
import { createTracing, transactionTraceId } from './tracing.ts';

const uetr = '4f1c7f44-8a47-4c36-9b38-0e6f2f1d2c11';
const traceparent = /^00-([0-9a-f]{32})-([0-9a-f]{16})-01$/;

describe('tracing', () => {
  test("a transaction's first span is in the trace named after its UETR; children continue the parent's trace", async () => {
    const exporter = new InMemorySpanExporter();
    const tracing = createTracing({ service: 'ingress', exporter, exportDelayMs: 10 });
    const root = tracing.startSpan('POST /outbound/direct-debit', { role: 'server', uetr });
    expect(root.traceId).toBe('4f1c7f448a474c369b380e6f2f1d2c11');
    expect(root.headers.traceparent).toMatch(traceparent);
    const child = await tracing.inSpan(
      'process rp.directdebit.received.v1',
      { role: 'consumer', parent: root.headers, uetr: 'a4a9c1c6-0000-4000-8000-000000000001' },
      async (span) => span,
    );
    root.end();
    // The parent wins over the UETR: one trace from the bank's call to the last hop.
    expect(child.traceId).toBe(root.traceId);
    const other = tracing.startSpan('unrelated', { role: 'internal' });
    other.end();
    expect(other.traceId).not.toBe(root.traceId);
    await tracing.flush();

    const spans = exporter.getFinishedSpans();
    const byName = new Map(spans.map((span) => [span.name, span]));
    const server = byName.get('POST /outbound/direct-debit');
    const consumer = byName.get('process rp.directdebit.received.v1');
    expect(server?.resource.attributes['service.name']).toBe('ingress');
    expect(server?.attributes['rp.uetr']).toBe(uetr);
    expect(consumer?.parentSpanContext?.spanId).toBe(server?.spanContext().spanId);
    expect(consumer?.spanContext().traceId).toBe(server?.spanContext().traceId);
  });

  test('a failed unit of work is a failed span, and the error still reaches the caller', async () => {
    const exporter = new InMemorySpanExporter();
    const tracing = createTracing({ service: 'validator', exporter });
    await expect(
      tracing.inSpan('validate', { role: 'internal', uetr }, async () => {
        throw Object.assign(new Error('account closed'), { code: 'AC04' });
      }),
    ).rejects.toThrow('account closed');
    await tracing.flush();
    const [span] = exporter.getFinishedSpans();
    expect(span?.status).toEqual({ code: 2, message: 'AC04: account closed' });
  });

  test("a caller's own trace is kept as a link when the span starts its transaction's trace", async () => {
    const exporter = new InMemorySpanExporter();
    const tracing = createTracing({ service: 'ingress', exporter });
    const caller = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    const span = tracing.startSpan('POST /outbound/direct-debit', {
      role: 'server',
      uetr,
      link: { traceparent: caller },
    });
    span.end();
    await tracing.flush();
    const [exported] = exporter.getFinishedSpans();
    expect(exported?.spanContext().traceId).toBe(transactionTraceId(uetr));
    expect(exported?.parentSpanContext).toBeUndefined();
    expect(exported?.links.map((link) => [link.context.traceId, link.context.spanId])).toEqual([
      ['0af7651916cd43dd8448eb211c80319c', 'b7ad6b7169203331'],
    ]);
  });

  test('a malformed traceparent starts a new trace rather than failing', () => {
    const tracing = createTracing({ service: 'ingress' });
    const span = tracing.startSpan('x', { role: 'server', parent: { traceparent: 'garbage' }, uetr });
    expect(span.traceId).toBe(transactionTraceId(uetr));
    expect(transactionTraceId('00000000-0000-0000-0000-000000000000')).toBeUndefined();
    expect(transactionTraceId('not a uuid')).toBeUndefined();
  });

  test('without an exporter the trace context travels as it would with one, and no span is kept', async () => {
    const tracing = createTracing({ service: 'tracker' });
    const root = tracing.startSpan('process rp.transaction.state.v1', { role: 'consumer', uetr });
    expect(root.traceId).toBe(transactionTraceId(uetr));
    const [, rootTrace, rootSpan] = root.headers.traceparent?.match(traceparent) ?? [];
    expect(rootTrace).toBe(root.traceId);
    const child = await tracing.inSpan(
      'POST TRANSACTION_STATE',
      { role: 'client', parent: root.headers, uetr: 'a4a9c1c6-0000-4000-8000-000000000001' },
      async (span) => span,
    );
    // The parent's trace, a span of its own.
    expect(child.traceId).toBe(root.traceId);
    const [, childTrace, childSpan] = child.headers.traceparent?.match(traceparent) ?? [];
    expect(childTrace).toBe(root.traceId);
    expect(childSpan).toMatch(/^[0-9a-f]{16}$/);
    expect(childSpan).not.toBe(rootSpan);
    // A parent that is not sampled, with vendor state: both carried on.
    const unsampled = tracing.startSpan('x', {
      role: 'consumer',
      parent: { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00', tracestate: 'rp=1' },
    });
    expect(unsampled.headers.traceparent).toMatch(/^00-0af7651916cd43dd8448eb211c80319c-[0-9a-f]{16}-00$/);
    expect(unsampled.headers.tracestate).toBe('rp=1');
    // Neither a UETR nor a parent: a random trace.
    const other = tracing.startSpan('unrelated', { role: 'internal' });
    expect(other.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(other.traceId).not.toBe(root.traceId);
    await expect(
      tracing.inSpan('fails', { role: 'internal' }, async () => Promise.reject(new Error('no'))),
    ).rejects.toThrow('no');
    await tracing.shutdown();
  });

  test('exports over OTLP/HTTP to the configured endpoint', async () => {
    const bodies: string[] = [];
    let received: () => void = () => {};
    const arrived = new Promise<void>((resolve) => {
      received = resolve;
    });
    const server = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk) => {
        body += chunk;
      });
      request.on('end', () => {
        if (request.url === '/v1/traces') {
          bodies.push(body);
          received();
        }
        response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
      const tracing = createTracing({ service: 'dispatcher', endpoint, exportDelayMs: 10 });
      tracing.startSpan('POST inbound/direct-debit', { role: 'client', uetr }).end();
      await tracing.shutdown();
      await arrived;
      const text = bodies.join('\n');
      expect(text).toContain('dispatcher');
      expect(text).toContain('POST inbound/direct-debit');
    } finally {
      server.close();
    }
  });
});
