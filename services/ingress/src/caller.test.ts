import { readFileSync } from 'node:fs';
import type { DirectDebit } from '@rp/contracts';
import { parseParticipants } from '@rp/pipeline';
import { describe, expect, test } from 'vitest';
import { messageCallerResolver } from './caller.ts';

const debit = JSON.parse(
  readFileSync(new URL('../../../avro/examples/DirectDebit.za-eft-on-us.json', import.meta.url), 'utf8'),
) as DirectDebit;
const participants = parseParticipants(
  JSON.stringify([{ memberId: '250655', baseUrl: 'http://fnb.example' }]),
);
const resolveCaller = messageCallerResolver(participants);
const headers = new Headers();

describe('the interim caller resolver', () => {
  test('takes the bank from instructingAgent.memberId', async () => {
    const outcome = await resolveCaller({ headers, message: debit });
    expect(outcome.ok && outcome.participant.memberId).toBe('250655');
  });

  test('refuses a bank that is not a participant, pointing at the member', async () => {
    const outcome = await resolveCaller({
      headers,
      message: { ...debit, instructingAgent: { memberId: '999999' } },
    });
    expect(outcome).toEqual({
      ok: false,
      errors: [
        { pointer: '/instructingAgent/memberId', detail: '999999 is not a participant of this engine' },
      ],
    });
  });

  test('refuses a message without an instructing agent', async () => {
    const { instructingAgent: _omitted, ...anonymous } = debit;
    const outcome = await resolveCaller({ headers, message: anonymous });
    expect(outcome.ok).toBe(false);
    expect(!outcome.ok && outcome.errors[0]?.pointer).toBe('/instructingAgent/memberId');
  });
});
