import { AvroSchemaParser } from '@asyncapi/avro-schema-parser';
import { Parser } from '@asyncapi/parser';
import { validate as validateOpenApi } from '@readme/openapi-parser';
import { describe, expect, it } from 'vitest';
import { topicNames } from '../topics.ts';
import { asyncApiDocument, openApiDocument } from './documents.ts';

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
