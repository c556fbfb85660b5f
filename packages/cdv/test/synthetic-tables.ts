import { CdvTables, type ExceptionRuleRegistry, syntheticTables } from '../src/index.ts';

export const { parameterFile: syntheticParameterFile, branchFile: syntheticBranchFile } = syntheticTables();

export function syntheticRegistry(): ExceptionRuleRegistry {
  return syntheticTables().exceptionRules;
}

export function loadSyntheticTables(): Promise<CdvTables> {
  return CdvTables.load(syntheticTables());
}

/** A parameter file with the given data rows under a valid metadata block and header. */
export function parameterText(rows: readonly string[], version = '1'): string {
  return [
    '# format: rp-cdv-parameters/1',
    '# name: SYNTHETIC unit-test parameters',
    `# version: ${version}`,
    '# effective: 2025-07-01',
    'branch_from,branch_to,account_type,account_from,account_to,verifiable,weights,modulus,fudge,exception',
    ...rows,
    '',
  ].join('\n');
}

/** A branch file with the given data rows under a valid metadata block and header. */
export function branchText(rows: readonly string[], version = '1'): string {
  return [
    '# format: rp-cdv-branches/1',
    '# name: SYNTHETIC unit-test branches',
    `# version: ${version}`,
    '# effective: 2025-07-01',
    'branch_code,bank_code,bank_name,branch_name',
    ...rows,
    '',
  ].join('\n');
}
