import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isAppError } from '@rp/runtime';
import { describe, expect, test } from 'vitest';
import { authenticateScheme, loadSchemeClients, parseSchemeClients, tokenSha256 } from './schemes.ts';

const clearingToken = 'clearing-house-token-0123456789abcdef';
const otherToken = 'other-scheme-token-fedcba9876543210';
const schemes = parseSchemeClients(
  JSON.stringify([
    { id: 'clearing-house', tokenSha256: tokenSha256(clearingToken) },
    { id: 'other.scheme', tokenSha256: tokenSha256(otherToken).toUpperCase() },
  ]),
);

function refusal(value: string): string {
  try {
    loadSchemeClients(value);
  } catch (error) {
    expect(isAppError(error, 'CONFIG_INVALID')).toBe(true);
    return (error as Error).message;
  }
  throw new Error('accepted');
}

describe('SCHEME_CLIENTS', () => {
  test('holds each scheme by id with the digest of its token', () => {
    expect(schemes.map((scheme) => scheme.id)).toEqual(['clearing-house', 'other.scheme']);
    expect(schemes[1]?.tokenSha256.toString('hex')).toBe(tokenSha256(otherToken));
  });

  test('unset means no scheme; a JSON file path is read like the JSON itself', () => {
    expect(loadSchemeClients(undefined)).toEqual([]);
    const file = join(mkdtempSync(join(tmpdir(), 'schemes-')), 'schemes.json');
    writeFileSync(file, JSON.stringify([{ id: 'from-file', tokenSha256: tokenSha256('t') }]));
    expect(loadSchemeClients(file).map((scheme) => scheme.id)).toEqual(['from-file']);
  });

  test('refuses a bad setting with an error naming the variable, the entry and the member', () => {
    const digest = tokenSha256('x');
    expect(refusal('[{')).toBe('SCHEME_CLIENTS: not JSON');
    expect(refusal('/nonexistent/schemes.json')).toMatch(/^SCHEME_CLIENTS: cannot read the file .*ENOENT/);
    expect(refusal('[]x')).toBe('SCHEME_CLIENTS: not JSON');
    expect(refusal(`[{"id":"a","tokenSha256":"${digest}"},{"id":"b","tokenSha256":"abc"}]`)).toMatch(
      /^SCHEME_CLIENTS\[1\]\.tokenSha256: expected the SHA-256 .* as 64 hex digits$/,
    );
    expect(refusal(`[{"id":"a:b","tokenSha256":"${digest}"}]`)).toMatch(/^SCHEME_CLIENTS\[0\]\.id: /);
    expect(refusal(`[{"tokenSha256":"${digest}"}]`)).toMatch(/^SCHEME_CLIENTS\[0\]\.id: /);
    expect(
      refusal(`[{"id":"a","tokenSha256":"${digest}"},{"id":"a","tokenSha256":"${tokenSha256('y')}"}]`),
    ).toBe('SCHEME_CLIENTS[1].id: a is listed twice');
    expect(
      refusal(`[{"id":"a","tokenSha256":"${digest}"},{"id":"b","tokenSha256":"${digest.toUpperCase()}"}]`),
    ).toBe("SCHEME_CLIENTS[1].tokenSha256: is another scheme's token");
    expect(refusal(`[{"id":"a","token":"plain"}]`)).toBe(
      'SCHEME_CLIENTS[0].token: is not a member of a scheme client',
    );
    expect(refusal('{"id":"a"}')).toMatch(/^SCHEME_CLIENTS: expected a JSON array/);
  });
});

describe('scheme authentication', () => {
  test('finds the scheme whose token the bearer credentials carry', () => {
    const found = authenticateScheme(schemes, `Bearer ${otherToken}`);
    expect(found.ok && found.scheme.id).toBe('other.scheme');
    const anyCase = authenticateScheme(schemes, `bearer  ${clearingToken} `);
    expect(anyCase.ok && anyCase.scheme.id).toBe('clearing-house');
  });

  test('no bearer credentials are missing; a token that names no scheme is invalid', () => {
    expect(authenticateScheme(schemes, null)).toEqual({ ok: false, reason: 'missing' });
    expect(authenticateScheme(schemes, '')).toEqual({ ok: false, reason: 'missing' });
    expect(authenticateScheme(schemes, `Basic ${clearingToken}`)).toEqual({ ok: false, reason: 'missing' });
    expect(authenticateScheme(schemes, 'Bearer')).toEqual({ ok: false, reason: 'invalid' });
    expect(authenticateScheme(schemes, `Bearer ${clearingToken}x`)).toEqual({ ok: false, reason: 'invalid' });
    expect(authenticateScheme(schemes, `Bearer ${tokenSha256(clearingToken)}`)).toEqual({
      ok: false,
      reason: 'invalid',
    });
    expect(authenticateScheme(schemes, 'Bearer a b')).toEqual({ ok: false, reason: 'invalid' });
    expect(authenticateScheme([], `Bearer ${clearingToken}`)).toEqual({ ok: false, reason: 'invalid' });
  });
});
