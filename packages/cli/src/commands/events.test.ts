import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  type CommandIo,
  type DeliveriesView,
  defaultEventPublisherUrl,
  deliveriesCommand,
  formatDeliveries,
  formatReplay,
  parseDeliveriesArgs,
  parseReplayArgs,
  replayCommand,
  UsageError,
} from './events.ts';

const uetr = '0b3c1f9e-5a8d-4c2b-9e7f-1a2b3c4d5e6f';

describe('parseReplayArgs', () => {
  test('one transaction: the bank and its UETR (lower case), the default publisher', () => {
    expect(parseReplayArgs(['--bank', '250655', '--uetr', uetr.toUpperCase()])).toEqual({
      url: defaultEventPublisherUrl,
      target: { memberId: '250655', uetr },
      timeoutMs: 120_000,
      json: false,
    });
  });

  test('a time range, sent as UTC instants whatever offset was given', () => {
    const parsed = parseReplayArgs([
      '--bank=250655',
      '--from',
      '2026-11-23T10:00:00+02:00',
      '--to',
      '2026-11-23T09:30:00.5Z',
      '--json',
      '--timeout',
      '2.5',
    ]);
    expect(parsed.target).toEqual({
      memberId: '250655',
      from: '2026-11-23T08:00:00.000Z',
      to: '2026-11-23T09:30:00.500Z',
    });
    expect(parsed.json).toBe(true);
    expect(parsed.timeoutMs).toBe(2_500);
  });

  test('the URL: --url, else EVENT_PUBLISHER_URL, else the default; no trailing slash', () => {
    const args = ['--bank', '1', '--uetr', uetr];
    const env = { EVENT_PUBLISHER_URL: 'http://publisher.internal:9000/' };
    expect(parseReplayArgs(args, env).url).toBe('http://publisher.internal:9000');
    expect(parseReplayArgs([...args, '--url', 'https://ops.example/ep//'], env).url).toBe(
      'https://ops.example/ep',
    );
    expect(parseReplayArgs(args, { EVENT_PUBLISHER_URL: '' }).url).toBe(defaultEventPublisherUrl);
  });

  test.each([
    [[], /--bank <memberId> is required/],
    [['--bank', ''], /--bank <memberId> is required/],
    [['--bank', '1'], /--uetr <uuid>, or --from <time> and --to <time>/],
    [['--bank', '1', '--from', '2026-11-23T08:00:00Z'], /--uetr <uuid>, or --from/],
    [['--bank', '1', '--uetr', uetr, '--from', '2026-11-23T08:00:00Z'], /either --uetr or --from/],
    [['--bank', '1', '--uetr', 'not-a-uuid'], /--uetr: "not-a-uuid" is not a UUID/],
    [['--bank', '1', '--from', '2026-11-23T08:00:00', '--to', '2026-11-24T00:00:00Z'], /--from: .* offset/],
    [['--bank', '1', '--from', '2026-11-23', '--to', '2026-11-24T00:00:00Z'], /--from: "2026-11-23"/],
    [
      ['--bank', '1', '--from', '2026-11-31T00:00:00Z', '--to', '2026-12-02T00:00:00Z'],
      /--from: .* a day that exists/,
    ],
    [['--bank', '1', '--from', '2026-11-23T08:00:00Z', '--to', '2026-11-23T08:00:00Z'], /later than --from/],
    [['--bank', '1', '--uetr', uetr, '--member', '2'], /--member/],
    [['--bank', '1', '--uetr', uetr, 'extra'], /unexpected argument "extra"/],
    [['--bank', '1', '--uetr', uetr, '--url', 'localhost:8086'], /must be an http or https URL/],
    [['--bank', '1', '--uetr', uetr, '--url', 'not a url'], /is not a URL/],
    [['--bank', '1', '--uetr', uetr, '--timeout', '0'], /--timeout: "0"/],
    [['--bank', '1', '--uetr', uetr, '--timeout', 'soon'], /--timeout: "soon"/],
  ])('refuses %j', (args, message) => {
    expect(() => parseReplayArgs(args)).toThrow(UsageError);
    expect(() => parseReplayArgs(args)).toThrow(message);
  });
});

describe('parseDeliveriesArgs', () => {
  test('the event id and the publisher', () => {
    const id = `EVT${'a'.repeat(32)}`;
    expect(parseDeliveriesArgs([id, '--url', 'http://127.0.0.1:1'])).toEqual({
      url: 'http://127.0.0.1:1',
      eventId: id,
      timeoutMs: 120_000,
      json: false,
    });
  });

  test.each([
    [[], /event id is required/],
    [['EVT1', 'EVT2'], /unexpected argument "EVT2"/],
    [['../admin'], /is not an event id/],
    [['EVT1', '--verbose'], /--verbose/],
  ])('refuses %j', (args, message) => {
    expect(() => parseDeliveriesArgs(args)).toThrow(message);
  });
});

describe('output', () => {
  test('a replay: the count, the ids, how to continue a truncated one', () => {
    const args = parseReplayArgs([
      '--bank',
      '250655',
      '--from',
      '2026-11-23T00:00:00Z',
      '--to',
      '2026-11-24T00:00:00Z',
    ]);
    const lines = formatReplay(args, {
      memberId: '250655',
      queued: 3,
      unavailable: 1,
      transactions: 2,
      eventIds: ['EVT1', 'EVT2'],
      truncated: true,
      resumeFrom: '2026-11-23T12:00:00.000Z',
    });
    expect(lines[0]).toBe(
      'replay to bank 250655 (2026-11-23T00:00:00.000Z to 2026-11-24T00:00:00.000Z): 3 postings of 2 transactions queued again, with their original event ids',
    );
    expect(lines[1]).toBe("  not queued: 1 posting sent to the bank is past the topic's retention");
    expect(lines).toContain('  the first 2:');
    expect(lines).toContain('    EVT2');
    expect(lines).toContain(
      `  rp replay --bank 250655 --from 2026-11-23T12:00:00.000Z --to 2026-11-24T00:00:00.000Z --url ${defaultEventPublisherUrl}`,
    );
    expect(
      formatReplay(args, { memberId: '250655', queued: 0, transactions: 0, eventIds: [], truncated: false }),
    ).toEqual([
      'nothing to replay: no posting of 2026-11-23T00:00:00.000Z to 2026-11-24T00:00:00.000Z was sent to bank 250655',
    ]);
    expect(
      formatReplay(args, {
        memberId: '250655',
        queued: 0,
        unavailable: 4,
        transactions: 0,
        eventIds: [],
        truncated: false,
      }),
    ).toEqual([
      "nothing to replay: the 4 postings of 2026-11-23T00:00:00.000Z to 2026-11-24T00:00:00.000Z sent to bank 250655 are past the topic's retention",
    ]);
  });

  test('a delivery log: outcome, attempts with status and latency, the place in the lane', () => {
    const view: DeliveriesView = {
      eventId: 'EVT1',
      uetr,
      class: 'TRANSACTION_STATE',
      eventName: 'TRANSACTION_STATE_DEBIT_QUEUED',
      stageVersion: 5,
      producedAt: '2026-11-23T10:00:00.000Z',
      source: { topic: 'rp.events.v1', partition: 2, offset: 41 },
      deliveries: [
        {
          memberId: '250655',
          outcome: 'delivered',
          attemptCount: 2,
          completedAt: '2026-11-23T10:00:01.100Z',
          attempts: [
            {
              at: '2026-11-23T10:00:00.100Z',
              httpStatus: null,
              latencyMs: 10000,
              error: 'no answer within 10000 ms',
            },
            { at: '2026-11-23T10:00:01.000Z', httpStatus: 202, latencyMs: 12.43 },
          ],
        },
        { memberId: '250656', outcome: 'queued', attemptCount: 0, attempts: [], queuePosition: 3 },
      ],
    };
    expect(formatDeliveries(view)).toEqual([
      'event EVT1: TRANSACTION_STATE_DEBIT_QUEUED (stageVersion 5)',
      `  uetr ${uetr}, produced 2026-11-23T10:00:00.000Z, rp.events.v1 partition 2 offset 41`,
      '  bank 250655: delivered, 2 attempts, completed 2026-11-23T10:00:01.100Z',
      '    2026-11-23T10:00:00.100Z  no answer   10000 ms  no answer within 10000 ms',
      '    2026-11-23T10:00:01.000Z  HTTP 202       12 ms',
      '  bank 250656: queued, 0 attempts, 3 ahead of it in its lane',
    ]);
  });
});

/** A stand-in event publisher on a real port: answers each request with the next scripted answer. */
describe('the commands over HTTP', () => {
  const requests: { method: string; url: string; body: string }[] = [];
  const authorizations: (string | undefined)[] = [];
  let answers: { status: number; type: string; body: string }[] = [];
  let server: Server;
  let url: string;

  beforeAll(async () => {
    server = createServer((request: IncomingMessage, response) => {
      let body = '';
      request.setEncoding('utf8');
      request.on('data', (chunk: string) => {
        body += chunk;
      });
      request.on('end', () => {
        requests.push({ method: request.method ?? '', url: request.url ?? '', body });
        authorizations.push(request.headers.authorization);
        const answer = answers.shift() ?? { status: 500, type: 'text/plain', body: 'no answer scripted' };
        response.writeHead(answer.status, { 'content-type': answer.type }).end(answer.body);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  function io(env: Record<string, string> = {}) {
    const out: string[] = [];
    const err: string[] = [];
    const value: CommandIo = { out: (line) => out.push(line), err: (line) => err.push(line), env };
    return { value, out, err };
  }

  test('replay: POSTs the request and prints what was queued', async () => {
    requests.length = 0;
    answers = [
      {
        status: 202,
        type: 'application/json',
        body: JSON.stringify({
          memberId: '250655',
          queued: 2,
          transactions: 1,
          eventIds: ['EVTa', 'ESMb'],
          truncated: false,
        }),
      },
    ];
    const { value, out, err } = io({ EVENT_PUBLISHER_URL: url });
    expect(await replayCommand(['--bank', '250655', '--uetr', uetr], value)).toBe(0);
    expect(requests).toEqual([
      {
        method: 'POST',
        url: '/admin/events/replay',
        body: JSON.stringify({ memberId: '250655', uetr }),
      },
    ]);
    expect(out[0]).toContain('2 postings of 1 transaction queued again');
    expect(out).toContain('    ESMb');
    expect(err).toEqual([]);
  });

  test("the operator's access token from RP_ADMIN_TOKEN goes with each call; a 401 says where it comes from", async () => {
    authorizations.length = 0;
    answers = [
      {
        status: 202,
        type: 'application/json',
        body: JSON.stringify({
          memberId: '250655',
          queued: 0,
          transactions: 0,
          eventIds: [],
          truncated: false,
        }),
      },
      {
        status: 401,
        type: 'application/problem+json',
        body: JSON.stringify({ status: 401, detail: 'The access token has expired' }),
      },
    ];
    const signed = io({ EVENT_PUBLISHER_URL: url, RP_ADMIN_TOKEN: 'Bearer eyJ.op.sig' });
    expect(await replayCommand(['--bank', '250655', '--uetr', uetr], signed.value)).toBe(0);
    const unsigned = io({ EVENT_PUBLISHER_URL: url });
    expect(await replayCommand(['--bank', '250655', '--uetr', uetr], unsigned.value)).toBe(1);
    expect(authorizations).toEqual(['Bearer eyJ.op.sig', undefined]);
    expect(unsigned.err.join('\n')).toContain('HTTP 401 Unauthorized: The access token has expired');
    expect(unsigned.err.join('\n')).toContain('RP_ADMIN_TOKEN');
  });

  test('replay refused: the problem detail and its field errors, exit 1', async () => {
    answers = [
      {
        status: 422,
        type: 'application/problem+json',
        body: JSON.stringify({
          type: '/problems/validation-failed',
          title: 'Validation failed',
          status: 422,
          detail: 'invalid replay request',
          errors: [{ pointer: '/memberId', detail: 'required' }],
        }),
      },
      {
        status: 404,
        type: 'application/problem+json',
        body: JSON.stringify({ status: 404, detail: 'bank 999 is not a participant that receives events' }),
      },
    ];
    const first = io();
    expect(await replayCommand(['--bank', '250655', '--uetr', uetr, '--url', url], first.value)).toBe(1);
    expect(first.err.join('\n')).toBe(
      'rp replay: the event publisher refused the replay: HTTP 422 Unprocessable Entity: invalid replay request\n  /memberId: required',
    );
    const second = io();
    expect(await replayCommand(['--bank', '999', '--uetr', uetr, '--url', url], second.value)).toBe(1);
    expect(second.err[0]).toContain('HTTP 404 Not Found: bank 999 is not a participant that receives events');
    expect(second.out).toEqual([]);
  });

  test('bad arguments: exit 2 with the usage, nothing sent', async () => {
    requests.length = 0;
    const { value, err } = io({ EVENT_PUBLISHER_URL: url });
    expect(await replayCommand(['--uetr', uetr], value)).toBe(2);
    expect(err[0]).toMatch(/^rp replay: --bank <memberId> is required/);
    expect(err[0]).toContain('usage: rp replay');
    expect(await deliveriesCommand([], value)).toBe(2);
    expect(requests).toEqual([]);
    const help = io();
    expect(await replayCommand(['--help'], help.value)).toBe(0);
    expect(help.out[0]).toMatch(/^usage: rp replay/);
  });

  test('deliveries: GETs the log and prints it; an unknown event is exit 1', async () => {
    requests.length = 0;
    const view: DeliveriesView = {
      eventId: 'EVT1',
      uetr,
      class: 'ESM_STATE',
      eventName: 'ESM_STATE',
      producedAt: '2026-11-23T10:00:00.000Z',
      source: { topic: 'rp.events.v1', partition: 0, offset: 7 },
      deliveries: [
        {
          memberId: '250655',
          outcome: 'failed',
          attemptCount: 1,
          attempts: [{ at: '2026-11-23T10:00:00.100Z', httpStatus: 401, latencyMs: 4 }],
        },
      ],
    };
    answers = [
      { status: 200, type: 'application/json', body: JSON.stringify(view) },
      {
        status: 404,
        type: 'application/problem+json',
        body: JSON.stringify({ detail: 'no posting EVT2 was sent to any bank' }),
      },
    ];
    const found = io();
    expect(await deliveriesCommand(['EVT1', '--url', url], found.value)).toBe(0);
    expect(found.out).toContain('  bank 250655: failed, 1 attempt');
    expect(found.out).toContain('    2026-11-23T10:00:00.100Z  HTTP 401        4 ms');
    const missing = io();
    expect(await deliveriesCommand(['EVT2', '--url', url], missing.value)).toBe(1);
    expect(missing.err).toEqual([
      'rp deliveries: the event publisher refused the delivery log of EVT2: HTTP 404 Not Found: no posting EVT2 was sent to any bank',
    ]);
    expect(requests.map((request) => `${request.method} ${request.url}`)).toEqual([
      'GET /admin/events/EVT1/deliveries',
      'GET /admin/events/EVT2/deliveries',
    ]);
  });

  test('a publisher that is not there: exit 1 naming it', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const { value, err } = io();
    expect(
      await replayCommand(['--bank', '1', '--uetr', uetr, '--url', `http://127.0.0.1:${port}`], value),
    ).toBe(1);
    expect(err[0]).toMatch(
      new RegExp(`^rp replay: cannot reach the event publisher at http://127.0.0.1:${port}: ECONNREFUSED`),
    );
  });
});
