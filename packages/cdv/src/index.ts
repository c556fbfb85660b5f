export {
  accountValue,
  checkDigitFor,
  MAX_ACCOUNT_VALUE,
  type Modulus,
  passesModulus,
  weightedSum,
} from './arithmetic.ts';
export { BRANCH_FORMAT, type Branch, branchColumns } from './branch-file.ts';
export type { TableProblem } from './csv.ts';
export {
  CdvEngine,
  type CdvEngineEvent,
  type CdvEngineListener,
  type CdvEngineOptions,
  type CdvReloadEvent,
  type CdvReloadListener,
  type CdvReloadTrigger,
  type CdvWatchErrorEvent,
  type CdvWatchOptions,
  cdvConfig,
  cdvVersionLabels,
} from './engine.ts';
export { CdvTableError } from './errors.ts';
export {
  ExceptionContext,
  type ExceptionRule,
  ExceptionRuleRegistry,
  type ExceptionVerdict,
  exceptionCodePattern,
  type ParameterRow,
  verdicts,
} from './exception-rules.ts';
export {
  type Bank,
  type CdvAccountRole,
  type CdvFailed,
  type CdvFailureReason,
  type CdvOutcome,
  type CdvPassed,
  type CdvRejectionReason,
  type CdvRequest,
  type CdvSkipped,
  cdvFailureReasons,
  cdvRejectionReason,
  isoReasonFor,
} from './outcome.ts';
export { PARAMETER_FORMAT, parameterColumns, type UnknownExceptionPolicy } from './parameter-file.ts';
export {
  alternativeWeightsRule,
  type CheckParameters,
  ignoreLeadingDigitsRule,
  specialLengthRule,
  syntheticExceptionRules,
} from './synthetic-rules.ts';
export { type SyntheticTables, syntheticTables } from './synthetic-tables.ts';
export {
  type CdvFileContent,
  type CdvFileVersion,
  type CdvLoadOptions,
  type CdvTableOptions,
  CdvTables,
  type CdvTablesVersion,
} from './tables.ts';
export {
  ACCOUNT_POSITIONS,
  formatWeights,
  MAX_WEIGHT,
  parseWeights,
  type WeightParseResult,
  type Weights,
  weightCharacter,
  weightValue,
} from './weights.ts';
