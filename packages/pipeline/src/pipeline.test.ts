import { createHash, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { DirectDebit } from '@rp/contracts';
import { describe, expect, test } from 'vitest';
import { stateEventId, uuidV5 } from './event-id.ts';
import { parseParticipants } from './participants.ts';
import { buildStateChange } from './state.ts';
import { resolveTopicNames, topicSpecs } from './topics.ts';

const debit = JSON.parse(
  readFileSync(new URL('../../../avro/examples/DirectDebit.za-eft-on-us.json', import.meta.url), 'utf8'),
) as DirectDebit;
const cause = { messageType: 'DirectDebit', messageIdentification: 'M1' };

describe('event ids', () => {
  test('are RFC 9562 version 5 UUIDs, stable for a name and different across names', () => {
    const id = stateEventId('2f6c1e0a-8b4d-4c7e-9a1f-3d5b7c9e1a24', 'DEBIT_QUEUED');
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(stateEventId('2f6c1e0a-8b4d-4c7e-9a1f-3d5b7c9e1a24', 'DEBIT_QUEUED')).toBe(id);
    expect(stateEventId('2f6c1e0a-8b4d-4c7e-9a1f-3d5b7c9e1a24', 'DEBIT_COMPLETED')).not.toBe(id);
    expect(uuidV5('a')).not.toBe(uuidV5('b'));
  });

  test('never change across versions: a bank keeps the ids it was sent', () => {
    expect(stateEventId('2f6c1e0a-8b4d-4c7e-9a1f-3d5b7c9e1a24', 'DEBIT_QUEUED')).toBe(
      '60b091aa-02f4-5ea1-8a06-42cd17b84136',
    );
    expect(uuidV5('a')).toBe('3e545599-0914-5293-8229-32d90be17fa1');
    expect(uuidV5('')).toBe('142df52a-f242-544a-a27f-80aba07f10ea');
    expect(uuidV5('ü-ñ')).toBe('ce54b391-e83d-50a7-a893-e41699a70cd4');
  });

  test('are the SHA-1 of the namespace and the name, with the version and variant bits set', () => {
    const namespace = Buffer.from('6f0c6a3e4d1b5e8a9c2f7b1d3e5a7c90', 'hex');
    for (let index = 0; index < 200; index += 1) {
      const name = `state:${randomUUID()}:${index}`;
      const bytes = createHash('sha1')
        .update(Buffer.concat([namespace, Buffer.from(name)]))
        .digest();
      bytes[6] = ((bytes[6] as number) & 0x0f) | 0x50;
      bytes[8] = ((bytes[8] as number) & 0x3f) | 0x80;
      const hex = bytes.subarray(0, 16).toString('hex');
      expect(uuidV5(name)).toBe(
        [hex.slice(0, 8), hex.slice(8, 12), hex.slice(12, 16), hex.slice(16, 20), hex.slice(20)].join('-'),
      );
    }
  });
});

describe('state changes', () => {
  test('take their new state from the transition table', () => {
    const change = buildStateChange(
      'validator',
      {
        fromState: 'DEBIT_RECEIVED',
        eventType: 'DEBIT_REQUEST_ACCEPTED',
        transaction: debit,
        causedBy: cause,
      },
      new Date('2025-03-17T06:00:00Z'),
    );
    expect(change).toMatchObject({
      uetr: debit.transactionIdentifiers.uetr,
      fromState: 'DEBIT_RECEIVED',
      toState: 'DEBIT_ACCEPTED',
      emittedBy: 'validator',
      occurredAt: '2025-03-17T06:00:00.000Z',
    });
    expect(change).not.toHaveProperty('sequence');
  });

  test('refuse a transition the table does not allow', () => {
    expect(() =>
      buildStateChange(
        'scheduler',
        { fromState: 'DEBIT_RECEIVED', eventType: 'DEBIT_QUEUED', transaction: debit, causedBy: cause },
        new Date(),
      ),
    ).toThrow(/DEBIT_QUEUED is not allowed from DEBIT_RECEIVED/);
  });
});

describe('topics', () => {
  test('a namespace isolates every topic', () => {
    const names = resolveTopicNames('t1');
    expect(names['rp.directdebit.received.v1']).toBe('t1.rp.directdebit.received.v1');
    expect(resolveTopicNames()['rp.events.v1']).toBe('rp.events.v1');
    const specs = topicSpecs(names, { partitions: 3 });
    expect(specs.every((spec) => spec.topic.startsWith('t1.') && spec.partitions === 3)).toBe(true);
  });
});

describe('participants', () => {
  test('parse with defaults and trimmed URLs', () => {
    const participants = parseParticipants(
      JSON.stringify([{ memberId: '250655', baseUrl: 'http://bank/', debitLimits: { ZAR: '500000' } }]),
    );
    expect(participants.get('250655')).toEqual({
      memberId: '250655',
      name: '250655',
      baseUrl: 'http://bank',
      eventClasses: ['TRANSACTION_STATE'],
      debitLimits: { ZAR: '500000' },
    });
  });

  test.each([
    ['{}', /expected a JSON array/],
    ['[{"baseUrl":"http://x"}]', /participants\[0\]\.memberId/],
    ['[{"memberId":"1","baseUrl":"nope"}]', /participants\[0\]\.baseUrl: not a URL/],
    ['[{"memberId":"1","baseUrl":"http://x","debitLimits":{"ZAR":500}}]', /debitLimits\.ZAR/],
    ['[{"memberId":"1","baseUrl":"http://x"},{"memberId":"1","baseUrl":"http://y"}]', /listed twice/],
  ])('refuse %s', (json, message) => {
    expect(() => parseParticipants(json)).toThrow(message);
  });
});
