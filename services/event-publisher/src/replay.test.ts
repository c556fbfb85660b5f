import { isAppError } from '@rp/runtime';
import { describe, expect, it } from 'vitest';
import { parseReplayRequest } from './replay.ts';

function errorsOf(body: unknown) {
  try {
    parseReplayRequest(body);
  } catch (error) {
    if (isAppError(error, 'VALIDATION_FAILED')) return error.details?.map((detail) => detail.pointer);
    throw error;
  }
  throw new Error('expected a validation error');
}

describe('parseReplayRequest', () => {
  it('takes a transaction or a time range', () => {
    expect(parseReplayRequest({ memberId: '250655', uetr: '2F6C1E0A-8B4D-4C7E-9A1F-3D5B7C9E1A24' })).toEqual({
      memberId: '250655',
      uetr: '2f6c1e0a-8b4d-4c7e-9a1f-3d5b7c9e1a24',
    });
    expect(
      parseReplayRequest({
        memberId: '250655',
        from: '2026-03-02T08:00:00+02:00',
        to: '2026-03-02T09:00:00Z',
      }),
    ).toEqual({
      memberId: '250655',
      from: new Date('2026-03-02T06:00:00Z'),
      to: new Date('2026-03-02T09:00:00Z'),
    });
  });

  it('names every bad member', () => {
    expect(errorsOf({ uetr: 'nope', extra: 1 })).toEqual(['/extra', '/memberId', '/uetr']);
    expect(errorsOf({ memberId: 'A', from: '2026-03-02', to: '2026-03-02T09:00:00Z' })).toEqual(['/from']);
    expect(errorsOf({ memberId: 'A', from: '2026-03-02T09:00:00Z', to: '2026-03-02T09:00:00Z' })).toEqual([
      '/to',
    ]);
    // A day or an hour that does not exist is refused, not rolled over into the next.
    expect(errorsOf({ memberId: 'A', from: '2026-02-30T00:00:00Z', to: '2026-03-02T09:00:00Z' })).toEqual([
      '/from',
    ]);
    expect(errorsOf({ memberId: 'A', from: '2026-03-01T00:00:00Z', to: '2026-03-01T24:00:00Z' })).toEqual([
      '/to',
    ]);
    expect(errorsOf({ memberId: 'A', uetr: '2f6c1e0a-8b4d-4c7e-9a1f-3d5b7c9e1a24', from: 'x' })).toEqual([
      '/uetr',
    ]);
    expect(errorsOf([])).toEqual(['']);
  });
});
