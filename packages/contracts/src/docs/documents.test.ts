import { AvroSchemaParser } from '@asyncapi/avro-schema-parser';
import { Parser } from '@asyncapi/parser';
import { validate as validateOpenApi } from '@readme/openapi-parser';
import { describe, expect, it } from 'vitest';
import { topicNames } from '../topics.ts';
import { adminResponseProblems, checkAdminAnswer } from './admin/check.ts';
import { adminServiceDocs } from './admin-openapi.ts';
import { adminOpenApiDocument, asyncApiDocument, openApiDocument } from './documents.ts';

describe('OpenAPI document', () => {
  it('is valid OpenAPI 3.1 according to @readme/openapi-parser', async () => {
    // biome-ignore lint/suspicious/noExplicitAny: the parser's document type is a union of every OpenAPI version
    const result = await validateOpenApi(openApiDocument() as any);
    expect(result.valid ? [] : result.errors).toEqual([]);
    expect(result.specification).toBe('OpenAPI');
  });

  it('describes the bank-facing endpoints and the calls made on banks', () => {
    const document = openApiDocument() as {
      openapi: string;
      paths: Record<string, { post: { responses: Record<string, unknown>; security?: unknown } }>;
      webhooks: Record<string, unknown>;
      components: {
        securitySchemes: Record<string, { flows: { clientCredentials: { tokenUrl: string } } }>;
      };
    };
    expect(document.openapi).toBe('3.1.0');
    const outbound = document.paths['/api/v1/outbound/direct-debit'];
    expect(Object.keys(outbound?.post.responses ?? {}).sort()).toEqual([
      '202',
      '400',
      '401',
      '403',
      '409',
      '413',
      '415',
      '422',
      '429',
      '503',
    ]);
    expect(document.paths).toHaveProperty(['/api/v1/inbound/direct-debit-response']);
    // The clearing house's routes take its bearer token, the banks' routes a bank's OAuth2 access token.
    for (const path of ['/api/v1/inbound/direct-debit', '/api/v1/inbound/credit-transfer-authorization']) {
      expect(document.paths[path]?.post.responses).toHaveProperty('401');
      expect(document.paths[path]?.post.security).toEqual([{ schemeBearerToken: [] }]);
    }
    expect(outbound?.post.security).toEqual([{ bankOAuth2: ['payments'] }]);
    expect(document.components.securitySchemes.bankOAuth2?.flows.clientCredentials.tokenUrl).toMatch(
      /^https:/,
    );
    // A bank reads a transaction it is party to, with its access token; every answer is documented.
    const read = (
      document.paths as unknown as Record<
        string,
        { get?: { operationId: string; security: unknown; responses: Record<string, unknown> } }
      >
    )['/api/v1/transactions/{uetr}']?.get;
    expect(read?.operationId).toBe('getTransaction');
    expect(read?.security).toEqual([{ bankOAuth2: ['payments'] }]);
    expect(Object.keys(read?.responses ?? {}).sort()).toEqual([
      '200',
      '401',
      '403',
      '404',
      '422',
      '429',
      '503',
    ]);
    expect(read?.responses['200']).toMatchObject({
      content: { 'application/json': { schema: { $ref: '#/components/schemas/TransactionStatus' } } },
    });
    expect(Object.keys(document.webhooks)).toEqual(
      expect.arrayContaining(['events', 'outbound-direct-debit-response', 'inbound-direct-debit']),
    );
  });
});

describe("the operators' OpenAPI document", () => {
  type Operation = { operationId: string; security: unknown; responses: Record<string, unknown> };
  const document = adminOpenApiDocument() as {
    paths: Record<string, Record<string, unknown> & { servers: { description: string }[] }>;
  };
  const operations = Object.entries(document.paths).flatMap(([path, item]) =>
    (['get', 'post'] as const).flatMap((method) =>
      item[method] ? [{ path, method, operation: item[method] as Operation, servers: item.servers }] : [],
    ),
  );

  it('is valid OpenAPI 3.1 according to @readme/openapi-parser', async () => {
    // biome-ignore lint/suspicious/noExplicitAny: the parser's document type is a union of every OpenAPI version
    const result = await validateOpenApi(adminOpenApiDocument() as any);
    expect(result.valid ? [] : result.errors).toEqual([]);
  });

  it("holds every service's admin operations, each on its service's server, behind the operator's role", () => {
    const admin = operations.filter(
      ({ path }) => path.startsWith('/admin') || path.startsWith('/console/api'),
    );
    const declared = adminServiceDocs.flatMap((doc) =>
      doc.operations.map((operation) => `${doc.service} ${operation.method} ${operation.path}`),
    );
    expect(
      admin
        .map(({ path, method, servers }) => `${servers[0]?.description.split(' ')[1]} ${method} ${path}`)
        .sort(),
    ).toEqual(declared.sort());
    for (const service of ['tracker', 'scheduler', 'event-publisher', 'console']) {
      expect(declared.some((entry) => entry.startsWith(`${service} `))).toBe(true);
    }
    for (const { path, method, operation } of admin) {
      if (path === '/console/api/session' && method === 'post') {
        // The console's sign-in is how an operator gets a token: it takes none.
        expect(operation.security).toEqual([]);
        continue;
      }
      const role = method === 'get' ? 'operator.read' : 'operator.replay';
      expect(operation.security).toEqual([{ operatorOAuth2: [role] }]);
      expect(Object.keys(operation.responses)).toEqual(expect.arrayContaining(['401', '403', '503']));
    }
    // Probes and metrics answer without a token, on every service; the probes on the engine's port too.
    for (const [path, servers] of [
      ['/health/live', 8],
      ['/health/ready', 8],
      ['/metrics', 7],
    ] as const) {
      const probe = operations.find((entry) => entry.path === path);
      expect(probe?.operation.security).toEqual([]);
      expect(probe?.servers.length, path).toBe(servers);
    }
  });

  it('tells an answer the document describes from one it does not', () => {
    const ready = {
      service: 'tracker' as const,
      method: 'GET',
      path: '/health/ready',
      status: 200,
      contentType: 'application/json; charset=UTF-8',
      body: { status: 'ready', state: 'ready', checks: [{ name: 'mongodb', ok: true, durationMs: 3 }] },
    };
    expect(adminResponseProblems(ready)).toEqual([]);
    expect(adminResponseProblems({ ...ready, body: { ...ready.body, extra: 1 } })).toEqual([
      'GET /health/ready (tracker) 200: (body) must NOT have additional properties (extra)',
    ]);
    expect(adminResponseProblems({ ...ready, body: { status: 'ready', state: 'ready' } })).toEqual([
      "GET /health/ready (tracker) 200: (body) must have required property 'checks'",
    ]);
    expect(adminResponseProblems({ ...ready, status: 418 })[0]).toMatch(
      /answered 418, which .* does not document/,
    );
    expect(adminResponseProblems({ ...ready, contentType: 'text/html' })[0]).toMatch(
      /as text\/html, not application\/json/,
    );
    expect(adminResponseProblems({ ...ready, path: '/admin/nothing-here' })).toEqual([
      'GET /admin/nothing-here (tracker): no such operation in the admin document',
    ]);
    // An admin route is found on its own service only; its guard's answers are problem details.
    const refused = {
      service: 'scheduler' as const,
      method: 'GET',
      path: '/admin/windows?x=1',
      status: 401,
      contentType: 'application/problem+json',
      body: {
        type: '/problems/unauthorized',
        title: 'Unauthorized',
        status: 401,
        detail: 'No bearer token',
        instance: '/admin/windows',
        code: 'UNAUTHORIZED',
      },
    };
    expect(adminResponseProblems(refused)).toEqual([]);
    expect(adminResponseProblems({ ...refused, service: 'tracker' })[0]).toMatch(/no such operation/);
    expect(adminResponseProblems({ ...refused, body: { ...refused.body, code: undefined } })).not.toEqual([]);
  });

  it('reads an answer from a clone, names its operation and lists what differs', async () => {
    const body = {
      type: '/problems/not-found',
      title: 'Not found',
      status: 404,
      detail: 'no',
      instance: '/x',
    };
    const answer = (extra: Record<string, unknown>) =>
      new Response(JSON.stringify({ ...body, ...extra }), {
        status: 404,
        headers: { 'content-type': 'application/problem+json' },
      });
    const path = '/admin/transactions/2f6c1e0a-8b4d-4c7e-9a1f-3d5b7c9e1a24?x=1';
    const response = answer({ code: 'NOT_FOUND' });
    expect(await checkAdminAnswer('tracker', 'GET', path, response)).toEqual({
      body: { ...body, code: 'NOT_FOUND' },
      problems: [],
      operation: 'GET /admin/transactions/{uetr}',
    });
    // The caller still reads the response.
    expect(((await response.json()) as { code: string }).code).toBe('NOT_FOUND');
    const wrong = await checkAdminAnswer('tracker', 'GET', path, answer({}));
    expect(wrong.problems).toEqual([
      "GET /admin/transactions/2f6c1e0a-8b4d-4c7e-9a1f-3d5b7c9e1a24 (tracker) 404: (body) must have required property 'code'",
    ]);
    expect((await checkAdminAnswer('scheduler', 'GET', path, answer({}))).operation).toBeUndefined();
  });
});

describe('AsyncAPI document', () => {
  it('is valid AsyncAPI 3.0 with Avro payloads according to @asyncapi/parser', async () => {
    const parser = new Parser();
    parser.registerSchemaParser(AvroSchemaParser());
    const { document, diagnostics } = await parser.parse(JSON.stringify(asyncApiDocument()));
    // Severity 0 is an error; warnings and hints are style advice.
    expect(diagnostics.filter((diagnostic) => diagnostic.severity === 0)).toEqual([]);
    expect(document?.version()).toBe('3.0.0');
    expect(
      document
        ?.channels()
        .all()
        .map((channel) => channel.address())
        .sort(),
    ).toEqual([...topicNames].sort());
  });
});
