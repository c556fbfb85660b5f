import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { jwtOperatorAuthenticator, type OperatorAuthenticator } from '@rp/runtime';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';

export const issuer = 'http://127.0.0.1/oauth2';
export const audience = 'regulated-payments-admin';
/** The token endpoint's clients: an operator who reads, one who may replay, and a bank (no operator role). */
export const clients: Record<string, { secret: string; scope: string }> = {
  'ops-reader': { secret: 'reader-secret-7f3a9c', scope: 'operator.read' },
  'ops-admin': { secret: 'admin-secret-1b2c3d', scope: 'operator.read operator.replay' },
  '250655': { secret: 'bank-secret-9e8d7c', scope: 'payments' },
};

/** An OAuth2 token endpoint on loopback: client credentials by HTTP Basic, ES256 JWTs for the audience asked. */
export async function startTokenEndpoint(): Promise<{
  url: string;
  authenticate: OperatorAuthenticator;
  requests: string[];
  close(): Promise<void>;
}> {
  const { privateKey, publicKey } = await generateKeyPair('ES256');
  const jwks = { keys: [{ ...(await exportJWK(publicKey)), kid: 'k1', alg: 'ES256', use: 'sig' }] };
  const requests: string[] = [];
  const server: Server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => {
      body += chunk.toString();
    });
    request.on('end', async () => {
      requests.push(body);
      const [id, secret] = Buffer.from((request.headers.authorization ?? '').replace(/^Basic /, ''), 'base64')
        .toString()
        .split(':')
        .map(decodeURIComponent);
      const client = clients[id ?? ''];
      if (!client || client.secret !== secret) {
        response.writeHead(401, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ error: 'invalid_client', error_description: 'unknown client' }));
        return;
      }
      const form = new URLSearchParams(body);
      const now = Math.floor(Date.now() / 1000);
      const token = await new SignJWT({ client_id: id, scope: client.scope })
        .setProtectedHeader({ alg: 'ES256', kid: 'k1', typ: 'at+jwt' })
        .setIssuer(issuer)
        .setSubject(id as string)
        .setAudience(form.get('audience') ?? 'payments')
        .setIssuedAt(now)
        .setExpirationTime(now + 300)
        .sign(privateKey);
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ access_token: token, token_type: 'Bearer', expires_in: 300 }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/oauth2/token`,
    authenticate: jwtOperatorAuthenticator({ jwks, issuer, audience }),
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** An access token straight from the token endpoint, for the admin audience unless `forAudience` says. */
export async function tokenFor(tokenUrl: string, clientId: string, forAudience = audience): Promise<string> {
  const client = clients[clientId];
  if (!client) throw new Error(`no client ${clientId}`);
  const response = await fetch(tokenUrl, {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from(`${clientId}:${client.secret}`).toString('base64')}`,
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: new URLSearchParams({ grant_type: 'client_credentials', audience: forAudience }).toString(),
  });
  if (!response.ok) throw new Error(`token endpoint answered ${response.status}`);
  return ((await response.json()) as { access_token: string }).access_token;
}
