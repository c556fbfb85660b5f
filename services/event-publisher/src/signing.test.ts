import { createHmac } from 'node:crypto';
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { receivePosting, SeenEvents, verifyPosting } from './receiver.ts';
import {
  BankSigner,
  parseSigningSecrets,
  postingHeaders,
  signerFor,
  signingKey,
  traceparentFor,
} from './signing.ts';

const body = '{"class":"TRANSACTION_STATE","amount":1500.10}';
const at = new Date('2026-03-02T08:00:00.000Z');

describe('signing', () => {
  it('signs id.timestamp.body with HMAC-SHA256, base64, as v1,<signature>', () => {
    const signer = new BankSigner(['a-sufficiently-long-secret']);
    const expected = createHmac('sha256', 'a-sufficiently-long-secret')
      .update(`EVT1.1772438400.${body}`)
      .digest('base64');
    expect(signer.sign('EVT1', 1_772_438_400, body)).toBe(`v1,${expected}`);
  });

  it('signs once per active secret, so both sides of a rotation verify', () => {
    const oldSecret = 'the-old-secret-of-the-bank';
    const newSecret = `whsec_${Buffer.from('the-new-key-of-the-bank-0123').toString('base64')}`;
    const headers = postingHeaders({
      eventId: 'EVT0123',
      body,
      at,
      signer: new BankSigner([newSecret, oldSecret]),
      traceparent: traceparentFor('2f6c1e0a-8b4d-4c7e-9a1f-3d5b7c9e1a24', undefined),
      userAgent: 'test',
    });
    expect(headers['webhook-id']).toBe('EVT0123');
    expect(headers['webhook-timestamp']).toBe('1772438400');
    expect(headers['webhook-signature']?.split(' ')).toHaveLength(2);
    const request = { headers, body };
    expect(verifyPosting(request, [oldSecret], 300, at)).toBe(true);
    expect(verifyPosting(request, [newSecret], 300, at)).toBe(true);
    expect(verifyPosting(request, ['somebody-elses-secret-entirely'], 300, at)).toBe(false);
    expect(verifyPosting({ headers, body: body.replace('1500.10', '1500.11') }, [oldSecret], 300, at)).toBe(
      false,
    );
    expect(verifyPosting(request, [oldSecret], 300, new Date(at.getTime() + 301_000))).toBe(false);
    expect(signingKey(newSecret).toString()).toBe('the-new-key-of-the-bank-0123');
  });

  it('reads SIGNING_SECRETS per member id with a * fallback, and never shows a secret', () => {
    const secrets = parseSigningSecrets(
      JSON.stringify({
        '250655': ['first-secret-of-bank-a', 'second-secret-of-bank-a'],
        '*': 'the-fallback-secret-x',
      }),
    );
    expect(signerFor(secrets, '250655')?.keyCount).toBe(2);
    expect(signerFor(secrets, '198765')?.keyCount).toBe(1);
    const shown = `${JSON.stringify([...secrets])} ${inspect(secrets)} ${String(signerFor(secrets, '250655'))}`;
    expect(shown).not.toContain('first-secret');
    expect(shown).not.toContain('fallback-secret');
    expect(() => parseSigningSecrets('{"250655": ["short"]}')).toThrow(/SIGNING_SECRETS\.250655/);
    expect(() => parseSigningSecrets('{"250655": []}')).toThrow(/SIGNING_SECRETS\.250655/);
    expect(() => parseSigningSecrets('["x"]')).toThrow(/object/);
    expect(() => parseSigningSecrets('{')).toThrow(/not JSON/);
    try {
      parseSigningSecrets('{"250655": ["short-but-visible"]}');
    } catch (error) {
      expect(String(error)).not.toContain('short-but-visible');
    }
  });

  it('keeps the trace of the record, else one trace per transaction, with a new span per attempt', () => {
    const incoming = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    expect(traceparentFor('x', incoming)).toMatch(/^00-0af7651916cd43dd8448eb211c80319c-[0-9a-f]{16}-01$/);
    const first = traceparentFor('2f6c1e0a-8b4d-4c7e-9a1f-3d5b7c9e1a24', undefined);
    const second = traceparentFor('2f6c1e0a-8b4d-4c7e-9a1f-3d5b7c9e1a24', 'garbage');
    expect(first.slice(0, 36)).toBe(second.slice(0, 36));
    expect(first).not.toBe(second);
  });
});

describe('the receiver example', () => {
  it('takes a posting once, answers a repeat 202 without storing it, and refuses a bad signature', () => {
    const secret = 'the-secret-the-bank-was-given';
    const headers = postingHeaders({
      eventId: 'EVT42',
      body,
      at: new Date(),
      signer: new BankSigner([secret]),
      traceparent: traceparentFor('u', undefined),
      userAgent: 'test',
    });
    const seen = new SeenEvents();
    const stored: string[] = [];
    const store = (_posting: unknown, id: string) => stored.push(id);
    expect(receivePosting({ headers, body }, [secret], seen, store)).toEqual({
      status: 202,
      duplicate: false,
    });
    expect(receivePosting({ headers, body }, [secret], seen, store)).toEqual({
      status: 202,
      duplicate: true,
    });
    expect(receivePosting({ headers, body }, ['another-secret-altogether'], seen, store).status).toBe(401);
    expect(stored).toEqual(['EVT42']);
  });

  it('lets a posting whose storing failed come again', () => {
    const secret = 'the-secret-the-bank-was-given';
    const headers = postingHeaders({
      eventId: 'EVT43',
      body,
      at: new Date(),
      signer: new BankSigner([secret]),
      traceparent: traceparentFor('u', undefined),
      userAgent: 'test',
    });
    const seen = new SeenEvents();
    expect(() =>
      receivePosting({ headers, body }, [secret], seen, () => {
        throw new Error('disk full');
      }),
    ).toThrow('disk full');
    expect(receivePosting({ headers, body }, [secret], seen, () => undefined)).toEqual({
      status: 202,
      duplicate: false,
    });
  });
});
