import { describe, expect, test } from 'vitest';
import { chooseCdvTables, startCdv } from './cdv.ts';

const base = { unknownExceptionCodes: 'reject' as const };

describe('choosing the CDV tables', () => {
  test('the operator files when both are given, without exception rules', () => {
    const choice = chooseCdvTables({
      ...base,
      parameterFile: '/a.csv',
      branchFile: '/b.csv',
      allowSynthetic: true,
    });
    expect(choice.synthetic).toBe(false);
    expect(choice.options).toMatchObject({ parameterFile: '/a.csv', branchFile: '/b.csv' });
  });

  test('refuses one file without the other', () => {
    expect(() =>
      chooseCdvTables({ ...base, parameterFile: '/a.csv', branchFile: undefined, allowSynthetic: true }),
    ).toThrow(/must be set together/);
  });

  test('refuses to start without files unless synthetic tables are allowed', () => {
    expect(() =>
      chooseCdvTables({ ...base, parameterFile: undefined, branchFile: undefined, allowSynthetic: false }),
    ).toThrow(/RP_ALLOW_SYNTHETIC_CDV/);
  });

  test('loads the synthetic tables of @rp/cdv when allowed', async () => {
    const { engine, synthetic } = await startCdv({
      ...base,
      parameterFile: undefined,
      branchFile: undefined,
      allowSynthetic: true,
    });
    expect(synthetic).toBe(true);
    expect(engine.version.parameters.version).toMatch(/synthetic/);
    expect(engine.verify({ branchCode: '632005', accountNumber: '1234567899' }).status).toBe('PASSED');
    engine.close();
  });
});
