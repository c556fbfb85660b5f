import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  CdvEngine,
  type CdvLoadOptions,
  ExceptionRuleRegistry,
  syntheticExceptionRules,
  type UnknownExceptionPolicy,
} from '@rp/cdv';
import { AppError } from '@rp/runtime';

/**
 * The synthetic test tables shipped in @rp/cdv's test-data folder (invented banks and weights; never for
 * real accounts). Located from the package's resolved entry point, which sits one folder below the
 * package root in both its source and build layouts.
 */
export function syntheticCdvTables(): { parameterFile: string; branchFile: string } {
  const root = join(dirname(fileURLToPath(import.meta.resolve('@rp/cdv'))), '..');
  const tables = {
    parameterFile: join(root, 'test-data', 'synthetic-parameters.csv'),
    branchFile: join(root, 'test-data', 'synthetic-branches.csv'),
  };
  if (!existsSync(tables.parameterFile) || !existsSync(tables.branchFile)) {
    throw new AppError('CONFIG_INVALID', `the synthetic CDV tables are not in ${join(root, 'test-data')}`);
  }
  return tables;
}

export interface CdvSettings {
  readonly parameterFile: string | undefined;
  readonly branchFile: string | undefined;
  readonly allowSynthetic: boolean;
  readonly unknownExceptionCodes: UnknownExceptionPolicy;
}

export interface CdvChoice {
  readonly options: CdvLoadOptions;
  readonly synthetic: boolean;
}

/**
 * Which tables to load. The operator's files when both are given (no exception rules are registered:
 * the official rules are not shipped, so CDV_UNKNOWN_EXCEPTION_CODES decides about their codes). The
 * synthetic tables, with their SYN-* rules, only when neither is given and RP_ALLOW_SYNTHETIC_CDV is
 * true (demos and tests). Anything else refuses to start.
 */
export function chooseCdvTables(settings: CdvSettings): CdvChoice {
  const { parameterFile, branchFile } = settings;
  if (parameterFile !== undefined && branchFile !== undefined) {
    return {
      synthetic: false,
      options: {
        parameterFile,
        branchFile,
        exceptionRules: new ExceptionRuleRegistry(),
        unknownExceptionCodes: settings.unknownExceptionCodes,
      },
    };
  }
  if (parameterFile !== undefined || branchFile !== undefined) {
    throw new AppError('CONFIG_INVALID', 'CDV_PARAMETER_FILE and CDV_BRANCH_FILE must be set together');
  }
  if (!settings.allowSynthetic) {
    throw new AppError(
      'CONFIG_INVALID',
      'CDV_PARAMETER_FILE and CDV_BRANCH_FILE are required (RP_ALLOW_SYNTHETIC_CDV=true loads the synthetic test tables, for demos and tests only)',
    );
  }
  return {
    synthetic: true,
    options: {
      ...syntheticCdvTables(),
      exceptionRules: new ExceptionRuleRegistry(syntheticExceptionRules()),
      unknownExceptionCodes: 'reject',
    },
  };
}

export async function startCdv(settings: CdvSettings): Promise<{ engine: CdvEngine; synthetic: boolean }> {
  const choice = chooseCdvTables(settings);
  return { engine: await CdvEngine.start(choice.options), synthetic: choice.synthetic };
}
