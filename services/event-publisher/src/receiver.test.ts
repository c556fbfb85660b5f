import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventsHandler, type Receipt, SeenEvents } from './receiver.ts';
import { BankSigner, postingHeaders, traceparentFor } from './signing.ts';

const secret = 'the-secret-the-bank-was-given';

describe('the receiver example on node:http', () => {
  const stored: string[] = [];
  const receipts: Receipt[] = [];
  let failStore = false;
  let server: Server;
  let url: string;

  beforeAll(async () => {
    server = createServer(
      eventsHandler({
        secrets: ['the-old-secret-of-the-bank', secret],
        seen: new SeenEvents(),
        store: (_posting, id) => {
          if (failStore) throw new Error('disk full');
          stored.push(id);
        },
        onReceipt: (receipt) => receipts.push(receipt),
      }),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const post = (eventId: string, body: string, signWith = secret, path = '/events') =>
    fetch(`${url}${path}`, {
      method: 'POST',
      headers: postingHeaders({
        eventId,
        body,
        at: new Date(),
        signer: new BankSigner([signWith]),
        traceparent: traceparentFor('u', undefined),
        userAgent: 'test',
      }),
      body,
    }).then((response) => response.status);

  it('answers 202 once stored, 202 again for a repeat, 401 for a bad signature, 400 for not JSON', async () => {
    const body = '{"class":"TRANSACTION_STATE","amount":1500.10,"name":"Ndlovu \u00e9"}';
    expect(await post('EVT1', body)).toBe(202);
    expect(await post('EVT1', body)).toBe(202);
    expect(await post('EVT2', body, 'a-secret-the-bank-never-had')).toBe(401);
    expect(await post('EVT3', 'not json')).toBe(400);
    expect(stored).toEqual(['EVT1']);
    expect(receipts.map((receipt) => [receipt.status, receipt.duplicate])).toEqual([
      [202, false],
      [202, true],
      [401, false],
      [400, false],
    ]);
  });

  it('answers 500 when storing fails, so the posting comes again and is taken then', async () => {
    failStore = true;
    expect(await post('EVT4', '{}')).toBe(500);
    failStore = false;
    expect(await post('EVT4', '{}')).toBe(202);
    expect(stored).toContain('EVT4');
  });

  it('serves POST /events only, and refuses a body over 1 MiB', async () => {
    expect(await post('EVT5', '{}', secret, '/other')).toBe(404);
    expect((await fetch(`${url}/events`)).status).toBe(404);
    expect(await post('EVT6', `"${'x'.repeat(1_048_577)}"`)).toBe(413);
    expect(stored).not.toContain('EVT5');
    expect(stored).not.toContain('EVT6');
  });
});

describe("the root README's receiver example", () => {
  it('is src/receiver.ts verbatim, so the documented code is the tested code', () => {
    const readme = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');
    const source = readFileSync(new URL('./receiver.ts', import.meta.url), 'utf8');
    const section = readme.split(/^## /m).find((part) => part.startsWith('Receiving events\n'));
    expect(section, 'README.md has a "## Receiving events" section').toBeDefined();
    const blocks = [...(section as string).matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((match) => match[1]);
    expect(blocks).toContain(source);
  });
});
