import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CdvEngine } from './engine.ts';
import { syntheticTables } from './synthetic-tables.ts';
import { CdvTables } from './tables.ts';

describe('syntheticTables', () => {
  it('points at the synthetic files, which say they are synthetic', () => {
    const { parameterFile, branchFile } = syntheticTables();
    expect(parameterFile).toMatch(/test-data[/\\]synthetic-parameters\.csv$/);
    expect(branchFile).toMatch(/test-data[/\\]synthetic-branches\.csv$/);
    for (const file of [parameterFile, branchFile]) {
      expect(existsSync(file)).toBe(true);
      expect(readFileSync(file, 'utf8')).toMatch(/^# name: SYNTHETIC /m);
    }
  });

  it('loads as it is, with the rules for its SYN- exception codes', async () => {
    const tables = await CdvTables.load(syntheticTables());
    expect(tables.version.parameters.version).toBe('2025.07-synthetic');
    expect(
      tables.verify({ branchCode: '250655', accountNumber: '55512349', accountType: '2' }),
    ).toMatchObject({ status: 'PASSED', bank: { code: 'BAOB' } });
    const engine = await CdvEngine.start(syntheticTables());
    expect(engine.verify({ branchCode: '632005', accountNumber: '1234567899' }).status).toBe('PASSED');
    engine.close();
  });

  it('gives each caller its own rule registry', () => {
    expect(syntheticTables().exceptionRules).not.toBe(syntheticTables().exceptionRules);
  });
});
