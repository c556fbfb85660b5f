import { defaultBank, type PipelineService, sampleOnUsDebit } from '@rp/launcher';
import { requestClientCredentialsToken } from '@rp/runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  checkAgainstAdminDocument,
  type EndToEnd,
  forgedToken,
  root,
  startEndToEnd,
  type WindowsView,
} from './pipeline.ts';

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
  scope?: string;
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
    const forged = await forgedToken(e2e, bankA);
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

describe('operator authentication and roles on the admin API, end to end', () => {
  const reads: [PipelineService, string][] = [
    ['scheduler', '/admin/windows'],
    ['scheduler', '/admin/queue'],
    ['tracker', '/admin/dead-letters'],
    ['tracker', '/admin/audit'],
    ['event-publisher', '/admin/events/lanes'],
  ];
  // Every answer, the refusals too, is held to the operators' OpenAPI document.
  const call = async (service: PipelineService, path: string, authorization?: string, method = 'GET') => {
    const response = await fetch(`${e2e.pipeline.url(service)}${path}`, {
      method,
      headers: {
        'content-type': 'application/json',
        ...(authorization ? { authorization } : {}),
      },
      ...(method === 'POST' ? { body: actionBodies[path] ?? '{}' } : {}),
    });
    await checkAgainstAdminDocument(service, method, path, response);
    return response;
  };
  const actions: [PipelineService, string][] = [
    ['scheduler', '/admin/windows/debit/close'],
    ['scheduler', '/admin/windows/reconciliation/close'],
    ['event-publisher', '/admin/events/replay'],
    ['tracker', '/admin/dead-letters/any.dlq/redrive'],
  ];
  const actionBodies: Record<string, string> = {
    '/admin/events/replay': JSON.stringify({ memberId: bankA, uetr: '6f1c3a52-2f7e-4f53-9d8c-0b9f2f0e7a11' }),
    '/admin/dead-letters/any.dlq/redrive': JSON.stringify({ all: true }),
  };
  const adminAudience = () => e2e.pipeline.adminAudience;
  /** Bank A's client credentials grant at the identity provider, asking for `scope` or `audience`. */
  const bankGrant = (ask: { scope?: string; audience?: string }) =>
    requestClientCredentialsToken({
      tokenUrl: e2e.pipeline.tokenUrl,
      clientId: bankA,
      clientSecret: e2e.pipeline.bankClients[bankA] as string,
      ...ask,
    });

  it('a read-only operator reads every admin API, and is refused every action with 403; nothing happens', async () => {
    const reader = await e2e.pipeline.operatorAuthorization('operator.read');
    for (const [service, path] of reads) {
      const response = await call(service, path, reader);
      expect(response.status, `${service} ${path}`).toBe(200);
      await response.arrayBuffer();
    }
    const windowState = async () => {
      const view = (await e2e.windows()) as WindowsView & { reconciliationWindow?: { closed?: boolean } };
      return { debit: view.debitWindow.state, reconciliationClosed: view.reconciliationWindow?.closed };
    };
    const windowsBefore = await windowState();
    const auditBefore = await (await call('tracker', '/admin/audit?limit=500', reader)).json();
    for (const [service, path] of actions) {
      const response = await call(service, path, reader, 'POST');
      expect(response.status, `${service} ${path}`).toBe(403);
      expect(response.headers.get('content-type')).toBe('application/problem+json');
      expect(((await response.json()) as { detail: string }).detail).toContain('operator.replay');
    }
    expect(await windowState()).toEqual(windowsBefore);
    expect(await (await call('tracker', '/admin/audit?limit=500', reader)).json()).toEqual(auditBefore);
  });

  it('refuses every way in that is not an operator with 401 or 403, on every service', async () => {
    const forged = await forgedToken(e2e, 'ops-admin', {
      audience: adminAudience(),
      scope: 'operator.replay',
    });
    // A bank's token for the admin audience, by the grant: it holds no operator role.
    const bankForAdmin = (await bankGrant({ audience: adminAudience() })).accessToken;
    const cases: [string, string | undefined, number][] = [
      ['no token', undefined, 401],
      ['a bank token (the payments audience)', await e2e.pipeline.bankAuthorization(bankA), 401],
      [
        'an operator scope for another audience',
        `Bearer ${await minted({ clientId: 'ops-admin', scope: 'operator.replay' })}`,
        401,
      ],
      [
        'an expired operator token',
        `Bearer ${await minted({ clientId: 'ops-admin', scope: 'operator.replay', audience: adminAudience(), expiresInSeconds: -120 })}`,
        401,
      ],
      ['an operator token signed by an unknown key', `Bearer ${forged}`, 401],
      ['a bank token for the admin audience (no operator role)', `Bearer ${bankForAdmin}`, 403],
    ];
    for (const [name, authorization, status] of cases) {
      for (const [service, path] of reads) {
        const response = await call(service, path, authorization);
        expect(response.status, `${name}: ${service} ${path}`).toBe(status);
        expect(response.headers.get('content-type')).toBe('application/problem+json');
        expect(response.headers.get('www-authenticate'), name).toMatch(/^Bearer/);
        await response.arrayBuffer();
      }
      for (const [service, path] of actions) {
        const response = await call(service, path, authorization, 'POST');
        expect(response.status, `${name}: POST ${service} ${path}`).toBe(status);
        await response.arrayBuffer();
      }
    }
  });

  it('the token endpoint grants operator roles only to operator clients', async () => {
    const refused = await bankGrant({ scope: 'operator.replay' }).catch((error: unknown) => error);
    expect(refused).toMatchObject({ status: 400, message: expect.stringContaining(': invalid_scope') });
  });

  it('an operator who may replay acts, and the audit trail says who, what and when', async () => {
    const admin = await e2e.pipeline.operatorAuthorization('operator.replay');
    const before = Date.now();
    const response = await call('scheduler', '/admin/windows/debit/open', admin, 'POST');
    expect(response.status, await response.clone().text()).toBe(200);
    const audit = (await (
      await call('tracker', '/admin/audit?action=window.debit.open&limit=5', admin)
    ).json()) as { entries: { actor: string; action: string; target: string; at: string }[] };
    const entry = audit.entries[0];
    expect(entry).toMatchObject({
      actor: e2e.pipeline.operatorClients.admin.id,
      action: 'window.debit.open',
      target: expect.stringMatching(/^debit window \d{4}-\d{2}-\d{2}$/),
    });
    expect(Date.parse(entry?.at as string)).toBeGreaterThanOrEqual(before - 1_000);
  });
});
