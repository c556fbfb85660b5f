import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  clientCredentialsTokens,
  renewAfterSeconds,
  requestClientCredentialsToken,
} from './client-credentials.ts';
import { AppError } from './errors.ts';

/** A token endpoint on loopback that answers each request with the next scripted answer. */
let server: Server;
let tokenUrl: string;
let answers: { status: number; body: string }[] = [];
const requests: { authorization: string | undefined; form: URLSearchParams }[] = [];

beforeAll(async () => {
  server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => {
      body += chunk.toString();
    });
    request.on('end', () => {
      requests.push({ authorization: request.headers.authorization, form: new URLSearchParams(body) });
      const answer = answers.shift() ?? { status: 500, body: '{"error":"server_error"}' };
      response.writeHead(answer.status, { 'content-type': 'application/json' }).end(answer.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  tokenUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/token`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

beforeEach(() => {
  answers = [];
  requests.length = 0;
});

const issued = (token: string, expiresIn = 300) => ({
  status: 200,
  body: JSON.stringify({ access_token: token, token_type: 'Bearer', expires_in: expiresIn }),
});
const client = { clientId: 'ops reader', clientSecret: 's3cret:with/odd chars' };

describe('requestClientCredentialsToken', () => {
  it('sends the client by HTTP Basic (form-encoded) with the grant, scope and audience', async () => {
    answers = [issued('tok-1', 120)];
    const token = await requestClientCredentialsToken({
      tokenUrl,
      ...client,
      scope: 'operator.read',
      audience: 'regulated-payments-admin',
    });
    expect(token).toEqual({ accessToken: 'tok-1', expiresIn: 120 });
    const [request] = requests;
    const basic = Buffer.from((request?.authorization ?? '').replace(/^Basic /, ''), 'base64').toString();
    expect(basic.split(':').map(decodeURIComponent)).toEqual([client.clientId, client.clientSecret]);
    expect(Object.fromEntries(request?.form ?? [])).toEqual({
      grant_type: 'client_credentials',
      scope: 'operator.read',
      audience: 'regulated-payments-admin',
    });
  });

  it("passes the endpoint's 400 or 401 on with its OAuth2 error, never the secret; other failures are 502", async () => {
    answers = [
      { status: 401, body: '{"error":"invalid_client","error_description":"unknown client"}' },
      { status: 400, body: '{"error":"invalid_scope"}' },
      { status: 503, body: 'down' },
      { status: 200, body: '{"token_type":"Bearer"}' },
    ];
    const refusal = async () => {
      try {
        await requestClientCredentialsToken({ tokenUrl, ...client });
      } catch (error) {
        return error as AppError;
      }
      throw new Error('expected a refusal');
    };
    const unknown = await refusal();
    expect(unknown).toBeInstanceOf(AppError);
    expect(unknown.status).toBe(401);
    expect(unknown.message).toBe(
      'the token endpoint refused client ops reader: HTTP 401: invalid_client (unknown client)',
    );
    expect((await refusal()).status).toBe(400);
    const down = await refusal();
    expect([down.code, down.status]).toEqual(['DOWNSTREAM_REJECTED', 502]);
    expect((await refusal()).message).toBe('the token endpoint answered without an access_token');
  });

  it('says when the endpoint does not answer', async () => {
    const error = await requestClientCredentialsToken({
      tokenUrl: 'http://127.0.0.1:9/token',
      ...client,
    }).catch((caught: unknown) => caught as AppError);
    expect(error).toMatchObject({ code: 'DOWNSTREAM_TIMEOUT' });
    expect(String(error)).not.toContain(client.clientSecret);
  });
});

describe('clientCredentialsTokens', () => {
  it('keeps one token for half its lifetime, and callers at the same time share one request', async () => {
    answers = [issued('tok-a', 300)];
    const tokens = clientCredentialsTokens({ tokenUrl, ...client });
    const headers = await Promise.all([tokens(), tokens(), tokens()]);
    expect(headers).toEqual(['Bearer tok-a', 'Bearer tok-a', 'Bearer tok-a']);
    expect(await tokens()).toBe('Bearer tok-a');
    expect(requests).toHaveLength(1);
  });

  it('takes a new token once the one it holds is due for renewal', async () => {
    // A lifetime of 60 s or less is renewed at once: each call asks again.
    answers = [issued('tok-short', 60), issued('tok-next', 300)];
    const tokens = clientCredentialsTokens({ tokenUrl, ...client });
    expect(await tokens()).toBe('Bearer tok-short');
    expect(await tokens()).toBe('Bearer tok-next');
    expect(requests).toHaveLength(2);
  });

  it('a failed request is not kept: the next call asks again', async () => {
    answers = [{ status: 500, body: '{}' }, issued('tok-after')];
    const tokens = clientCredentialsTokens({ tokenUrl, ...client });
    await expect(tokens()).rejects.toMatchObject({ code: 'DOWNSTREAM_REJECTED' });
    expect(await tokens()).toBe('Bearer tok-after');
  });
});

describe('renewAfterSeconds', () => {
  it('is half the lifetime, at most a minute before expiry, never negative', () => {
    expect(renewAfterSeconds(300)).toBe(150);
    expect(renewAfterSeconds(3600)).toBe(1800);
    expect(renewAfterSeconds(90)).toBe(30);
    expect(renewAfterSeconds(60)).toBe(0);
    expect(renewAfterSeconds(10)).toBe(0);
  });
});
