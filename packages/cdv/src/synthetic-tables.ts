import { fileURLToPath } from 'node:url';
import { ExceptionRuleRegistry } from './exception-rules.ts';
import { syntheticExceptionRules } from './synthetic-rules.ts';
import type { CdvLoadOptions } from './tables.ts';

/** The synthetic tables' paths with the registry of their `SYN-` exception rules: ready for `load`. */
export interface SyntheticTables extends CdvLoadOptions {
  readonly parameterFile: string;
  readonly branchFile: string;
  readonly exceptionRules: ExceptionRuleRegistry;
}

/**
 * The SYNTHETIC test tables shipped in this package's `test-data` folder (invented banks, weights and
 * exception codes on public universal branch codes; see test-data/README.md). For tests and demos only:
 * they are not the official PayInc tables and must never verify real accounts. The paths resolve from
 * both `src` and `dist`, which sit beside `test-data`. Each call returns a fresh rule registry, so
 * `CdvTables.load(syntheticTables())` and `CdvEngine.start(syntheticTables())` work as they are.
 */
export function syntheticTables(): SyntheticTables {
  return {
    parameterFile: fileURLToPath(new URL('../test-data/synthetic-parameters.csv', import.meta.url)),
    branchFile: fileURLToPath(new URL('../test-data/synthetic-branches.csv', import.meta.url)),
    exceptionRules: new ExceptionRuleRegistry(syntheticExceptionRules()),
  };
}
