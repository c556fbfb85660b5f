import { createHmac, createSecretKey } from 'node:crypto';
import { describe, expect, test } from 'vitest';
import {
  keysFor,
  parseSigningSecrets,
  requestHeaders,
  signature,
  signingKey,
  traceparentFor,
} from './signing.ts';

const uetr = '4f1c7f44-8a47-4c36-9b38-0e6f2f1d2c11';

describe('signatures', () => {
  test('a Standard Webhooks secret is its base64 bytes; any other is its text', () => {
    expect(signingKey('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw')).toEqual(
      Buffer.from('MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'base64'),
    );
    expect(signingKey('a plain shared secret')).toEqual(Buffer.from('a plain shared secret'));
  });

  test('v1 HMAC-SHA256 over id.timestamp.body, one per key during a rotation', () => {
    const keys = [
      createSecretKey(signingKey('first secret 0123456789')),
      createSecretKey(signingKey('older secret 0123456789')),
    ];
    const expected = (key: string) =>
      createHmac('sha256', key).update('MSG1.1700000000.{"a":1}').digest('base64');
    expect(signature(keys, 'MSG1', 1_700_000_000, '{"a":1}')).toBe(
      `v1,${expected('first secret 0123456789')} v1,${expected('older secret 0123456789')}`,
    );
  });

  test('secrets per bank, with a default', () => {
    const secrets = parseSigningSecrets(
      JSON.stringify({
        '250655': 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
        '*': ['x'.repeat(16), 'y'.repeat(16)],
      }),
    );
    expect(keysFor(secrets, '250655')).toHaveLength(1);
    expect(keysFor(secrets, '632005')).toHaveLength(2);
    expect(keysFor(new Map(), '632005')).toHaveLength(0);
  });

  test.each(['[]', '{"250655": "short"}', '{"250655": []}', 'nope'])(
    '%s is refused without showing a secret',
    (json) => {
      expect(() => parseSigningSecrets(json)).toThrow(/BANK_SIGNING_SECRETS/);
      try {
        parseSigningSecrets(json);
      } catch (error) {
        expect(String(error)).not.toContain('short"');
      }
    },
  );
});

describe('headers of an attempt', () => {
  test('webhook-id is the messageIdentification; unsigned without keys', () => {
    const headers = requestHeaders({
      messageIdentification: 'RPV4F1C',
      body: '{}',
      at: new Date('2026-11-23T08:00:00.900Z'),
      keys: [],
      uetr,
      userAgent: 'rp-dispatcher/test',
    });
    expect(headers).toMatchObject({
      'content-type': 'application/json',
      'webhook-id': 'RPV4F1C',
      'webhook-timestamp': String(Date.parse('2026-11-23T08:00:00Z') / 1000),
    });
    expect(headers['webhook-signature']).toBeUndefined();
    expect(headers.traceparent).toMatch(/^00-4f1c7f448a474c369b380e6f2f1d2c11-[0-9a-f]{16}-01$/);
  });

  test('a trace the record carries is continued with a new span', () => {
    const incoming = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    const traceparent = traceparentFor(uetr, incoming);
    expect(traceparent).toMatch(/^00-0af7651916cd43dd8448eb211c80319c-[0-9a-f]{16}-01$/);
    expect(traceparent).not.toBe(incoming);
    expect(traceparentFor(uetr, 'garbage')).toMatch(/^00-4f1c7f448a474c369b380e6f2f1d2c11-/);
  });
});
