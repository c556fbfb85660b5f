import { isExactNumber } from '@rp/contracts';
import { describe, expect, test } from 'vitest';
import { checkContentType, readJsonBody } from './body.ts';

const path = '/api/v1/outbound/direct-debit';

function post(body: string | Uint8Array<ArrayBuffer>, headers: Record<string, string>): Request {
  return new Request(`http://ingress${path}`, { method: 'POST', body, headers });
}

describe('content type', () => {
  test.each([
    ['application/json', true],
    ['application/json; charset=utf-8', true],
    ['Application/JSON;charset="UTF-8"', true],
    ['application/json; charset=iso-8859-1', false],
    ['text/plain', false],
    ['application/xml', false],
    ['', false],
    [undefined, false],
  ])('%s accepted: %s', (header, accepted) => {
    const refusal = checkContentType(header, path);
    expect(refusal === undefined).toBe(accepted);
    if (refusal) {
      expect(refusal.status).toBe(415);
      expect(refusal.problem).toMatchObject({
        status: 415,
        type: '/problems/unsupported-media-type',
        instance: path,
      });
    }
  });
});

describe('reading a JSON body', () => {
  test('parses amounts exactly', async () => {
    const outcome = await readJsonBody(
      post('{"value": 1500.10, "big": 12345678901234567.5}', { 'content-type': 'application/json' }),
      1_000,
      path,
    );
    expect(outcome.ok).toBe(true);
    if (!outcome.ok) return;
    const json = outcome.json as { value: unknown; big: unknown };
    expect(isExactNumber(json.value) && json.value.rawJSON).toBe('1500.10');
    expect(isExactNumber(json.big) && json.big.rawJSON).toBe('12345678901234567.5');
  });

  test('checks the media type before the size', async () => {
    const outcome = await readJsonBody(
      post('x'.repeat(2_000), { 'content-type': 'text/plain' }),
      1_000,
      path,
    );
    expect(outcome.ok || outcome.refusal.status).toBe(415);
  });

  test('refuses a declared length above the limit without reading', async () => {
    const outcome = await readJsonBody(
      post('{}', { 'content-type': 'application/json', 'content-length': '5000' }),
      1_000,
      path,
    );
    expect(outcome.ok || outcome.refusal).toMatchObject({
      status: 413,
      problem: { type: '/problems/payload-too-large' },
    });
  });

  test('refuses a body past the limit that its declared length understates', async () => {
    const outcome = await readJsonBody(
      post(`{"pad":"${'x'.repeat(2_000)}"}`, { 'content-type': 'application/json', 'content-length': '10' }),
      1_000,
      path,
    );
    expect(outcome.ok || outcome.refusal.status).toBe(413);
  });

  test('cuts off a streamed body once it passes the limit', async () => {
    let pulled = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled += 1;
        controller.enqueue(new Uint8Array(400).fill(32));
        if (pulled > 100) controller.close();
      },
    });
    const request = new Request(`http://ingress${path}`, {
      method: 'POST',
      body: stream,
      headers: { 'content-type': 'application/json' },
      duplex: 'half',
    } as RequestInit);
    const outcome = await readJsonBody(request, 1_000, path);
    expect(outcome.ok || outcome.refusal.status).toBe(413);
    expect(pulled).toBeLessThan(10);
  });

  test.each([
    ['{"a":', /JSON/i],
    ['', /empty/],
    ['   ', /empty/],
  ])('refuses malformed JSON %j with 400', async (text, detail) => {
    const outcome = await readJsonBody(post(text, { 'content-type': 'application/json' }), 1_000, path);
    expect(outcome.ok).toBe(false);
    if (outcome.ok) return;
    expect(outcome.refusal.status).toBe(400);
    expect(outcome.refusal.problem).toMatchObject({ type: '/problems/malformed-json', status: 400 });
    expect(outcome.refusal.problem.detail).toMatch(detail);
  });

  test('refuses bytes that are not UTF-8 with 400', async () => {
    const outcome = await readJsonBody(
      post(new Uint8Array([0x7b, 0xff, 0x7d]), { 'content-type': 'application/json' }),
      1_000,
      path,
    );
    expect(outcome.ok || outcome.refusal.problem.detail).toBe('The body is not valid UTF-8');
  });
});
