import { defaultBank, sampleOnUsDebit } from '@rp/launcher';
import { generateKeyPair, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EndToEnd, root, startEndToEnd } from './pipeline.ts';

// Banks authenticate with OAuth2 client credentials: the simulator plays their identity provider (keys
// made when it starts), the ingress checks every access token against the provider's JWKS over HTTP.

const bankA = defaultBank.memberId;
const bankB = '632005';

let e2e: EndToEnd;
beforeAll(async () => {
  e2e = await startEndToEnd({ banks: [defaultBank, { memberId: bankB, name: 'Bank B (synthetic)' }] });
});
afterAll(async () => {
  await e2e?.stop();
});

/** A token straight from the provider's test route: claims a client could not get by the grant. */
async function minted(body: {
  clientId: string;
  audience?: string;
  expiresInSeconds?: number;
}): Promise<string> {
  const response = await fetch(`${e2e.pipeline.url('bank-simulator')}/sim/oauth2/tokens`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return ((await response.json()) as { access_token: string }).access_token;
}

async function submit(authorization: string | undefined, instructingAgent = bankA) {
  const sample = sampleOnUsDebit(root);
  const debit = { ...sample.debit, instructingAgent: { memberId: instructingAgent } };
  const response = await fetch(`${e2e.pipeline.apiUrl}/outbound/direct-debit`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(authorization ? { authorization } : {}) },
    body: JSON.stringify(debit),
  });
  return { uetr: sample.uetr, response };
}

describe('bank authentication and isolation, end to end', () => {
  it('a bank with its own token from the identity provider is accepted, and the journey completes', async () => {
    const { uetr, response } = await submit(await e2e.pipeline.bankAuthorization(bankA));
    expect(response.status).toBe(202);
    await e2e.openDebitWindow();
    // The simulated bank's own status report to the engine is authenticated the same way.
    await e2e.waitForEvent(uetr, 'DEBIT_COMPLETED');
  });

  it('the token endpoint refuses a wrong client secret', async () => {
    const response = await fetch(e2e.pipeline.tokenUrl, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`${bankA}:not-the-secret`).toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: 'grant_type=client_credentials',
    });
    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({ error: 'invalid_client' });
  });

  it('refuses each way in that is not the bank itself, and records nothing', async () => {
    const strangerKey = (await generateKeyPair('ES256')).privateKey;
    const forged = await new SignJWT({ client_id: bankA })
      .setProtectedHeader({ alg: 'ES256', kid: 'forged' })
      .setIssuer(`${e2e.pipeline.url('bank-simulator')}/oauth2`)
      .setSubject(bankA)
      .setAudience('regulated-payments')
      .setIssuedAt()
      .setExpirationTime('5m')
      .sign(strangerKey);
    const cases: [string, string | undefined, string, number][] = [
      ['no token', undefined, bankA, 401],
      ['bank A as bank B', await e2e.pipeline.bankAuthorization(bankA), bankB, 403],
      [
        'a token for another audience',
        `Bearer ${await minted({ clientId: bankA, audience: 'another-api' })}`,
        bankA,
        401,
      ],
      ['an expired token', `Bearer ${await minted({ clientId: bankA, expiresInSeconds: -120 })}`, bankA, 401],
      ['a token signed by an unknown key', `Bearer ${forged}`, bankA, 401],
      [
        'a token of a client that is no participant',
        `Bearer ${await minted({ clientId: '999999' })}`,
        bankA,
        403,
      ],
    ];
    for (const [name, authorization, as, status] of cases) {
      const { uetr, response } = await submit(authorization, as);
      expect(response.status, name).toBe(status);
      expect(response.headers.get('content-type'), name).toBe('application/problem+json');
      if (status === 401) expect(response.headers.get('www-authenticate'), name).toMatch(/^Bearer/);
      expect(await e2e.transaction(uetr), name).toBeNull();
    }
  });
});
