import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { completedDebitJourney } from '@rp/contracts';
import { sampleOnUsDebit } from '@rp/launcher';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EndToEnd, root, startEndToEnd } from './pipeline.ts';

/** One span as OTLP/HTTP JSON carries it, with the service that sent it. */
interface ExportedSpan {
  service: string;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  links: { traceId: string; spanId: string }[];
  attributes: Record<string, unknown>;
}

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  boolValue?: boolean;
}
interface OtlpBody {
  resourceSpans?: {
    resource?: { attributes?: { key: string; value: OtlpValue }[] };
    scopeSpans?: {
      spans?: (Omit<ExportedSpan, 'service' | 'attributes' | 'links'> & {
        attributes?: { key: string; value: OtlpValue }[];
        links?: { traceId: string; spanId: string }[];
      })[];
    }[];
  }[];
}

const plain = (value: OtlpValue) => value.stringValue ?? value.intValue ?? value.boolValue;

/** An OpenTelemetry collector's OTLP/HTTP traces endpoint, keeping what the services export. */
class TraceReceiver {
  readonly spans: ExportedSpan[] = [];
  #server: Server | undefined;
  url = '';

  async start(): Promise<void> {
    this.#server = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk) => {
        body += chunk;
      });
      request.on('end', () => {
        if (request.url === '/v1/traces') this.#keep(JSON.parse(body) as OtlpBody);
        response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    const server = this.#server;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  #keep(body: OtlpBody): void {
    for (const resource of body.resourceSpans ?? []) {
      const service = String(
        plain(resource.resource?.attributes?.find((entry) => entry.key === 'service.name')?.value ?? {}),
      );
      for (const scope of resource.scopeSpans ?? []) {
        for (const span of scope.spans ?? []) {
          this.spans.push({
            ...span,
            service,
            links: span.links ?? [],
            attributes: Object.fromEntries(
              (span.attributes ?? []).map((entry) => [entry.key, plain(entry.value)]),
            ),
          });
        }
      }
    }
  }

  async stop(): Promise<void> {
    this.#server?.closeAllConnections();
    await new Promise((resolve) => this.#server?.close(resolve));
  }
}

const receiver = new TraceReceiver();
let e2e: EndToEnd;
beforeAll(async () => {
  await receiver.start();
  e2e = await startEndToEnd({ env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url } });
});
afterAll(async () => {
  await e2e?.stop();
  await receiver.stop();
});

/** Polls what was received (spans are exported in batches every second). */
async function until<T>(probe: () => T | undefined, what: string, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe('OpenTelemetry traces across the pipeline', () => {
  it("puts every hop of a debit in one trace named after its UETR, linked to the bank's own trace", async () => {
    await e2e.openDebitWindow();
    const bankTrace = '0af7651916cd43dd8448eb211c80319c';
    const sent = await e2e.sendDebit();
    expect(sent.response.status).toBe(202);
    // Another, with the bank's own trace context on its call.
    const traced = sampleOnUsDebit(root);
    const withContext = await e2e.post('outbound/direct-debit', traced.body, {
      traceparent: `00-${bankTrace}-b7ad6b7169203331-01`,
    });
    expect(withContext.status).toBe(202);
    const { uetr } = traced;
    const traceId = uetr.replaceAll('-', '');
    await e2e.waitForEvent(uetr, 'DEBIT_COMPLETED');
    await e2e.bank.waitForPostings(uetr, completedDebitJourney.length);

    const services = ['ingress', 'validator', 'scheduler', 'dispatcher', 'tracker', 'event-publisher'];
    const spans = await until(
      () => {
        const inTrace = receiver.spans.filter((span) => span.traceId === traceId);
        const seen = new Set(inTrace.map((span) => span.service));
        const calls = inTrace.filter((span) => span.service === 'dispatcher' && span.kind === 3);
        return services.every((service) => seen.has(service)) && calls.length >= 2 ? inTrace : undefined;
      },
      `spans of ${uetr} from ${services.join(', ')}`,
    );

    // No span of this transaction strays into another trace.
    expect(
      receiver.spans.filter((span) => span.attributes['rp.uetr'] === uetr && span.traceId !== traceId),
    ).toEqual([]);
    const ids = new Map(spans.map((span) => [span.spanId, span]));
    const server = spans.find((span) => span.service === 'ingress' && span.kind === 2);
    expect(server?.name).toBe('POST /api/v1/outbound/direct-debit');
    expect(server?.links.map((link) => link.traceId)).toEqual([bankTrace]);
    // Kafka carries the context: the validator handles the debit in a child of the record the ingress wrote,
    // which is a child of the ingress's server span.
    const handled = spans.find(
      (span) =>
        span.service === 'validator' && span.kind === 5 && span.name.endsWith('rp.directdebit.received.v1'),
    );
    const written = ids.get(handled?.parentSpanId ?? '');
    expect(written).toMatchObject({ service: 'ingress', kind: 4 });
    expect(written?.parentSpanId).toBe(server?.spanId);
    // The calls to banks are client spans, and each bank got its span as the call's traceparent.
    const dispatched = spans.filter((span) => span.service === 'dispatcher' && span.kind === 3);
    expect(dispatched.map((span) => span.name).sort()).toEqual([
      'POST /inbound/direct-debit',
      'POST /outbound/direct-debit-response',
    ]);
    const postings = await e2e.bank.postings(uetr);
    expect(postings.length).toBeGreaterThanOrEqual(completedDebitJourney.length);
    for (const posting of postings) {
      const [, trace, parent] = posting.headers.traceparent?.split('-') ?? [];
      expect(trace).toBe(traceId);
      const span = await until(
        () => receiver.spans.find((exported) => exported.spanId === parent),
        `the span of posting ${posting.eventId}`,
      );
      expect(span).toMatchObject({ service: 'event-publisher', kind: 3, traceId });
    }

    // The first debit, sent without any trace context, has its own trace, also named after its UETR.
    const firstTrace = sent.uetr.replaceAll('-', '');
    await until(
      () =>
        receiver.spans.some((span) => span.traceId === firstTrace && span.service === 'ingress')
          ? true
          : undefined,
      `the ingress spans of ${sent.uetr}`,
    );
  });
});
