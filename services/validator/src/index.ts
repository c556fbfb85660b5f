export {
  type AccountRole,
  type AccountVerifier,
  accountNumberOf,
  branchCodeOf,
  cdvAccountType,
} from './accounts.ts';
export { createValidatorHandlers, stateHeader, type ValidatorHandlers } from './app.ts';
export { type CdvSettings, chooseCdvTables, startCdv, syntheticCdvTables } from './cdv.ts';
export { validatorConfigSpec } from './config.ts';
export { addDays, businessDate, businessTimeZone } from './dates.ts';
export { type ValidatorMetrics, validatorMetrics } from './metrics.ts';
export { buildStatusReport, reasonInformation, statusReportId } from './report.ts';
export {
  type Decision,
  type Rejection,
  type RejectionCode,
  type RuleContext,
  validateCredit,
  validateDebit,
  validateSchemeDebit,
} from './rules.ts';
export {
  consumedTopics,
  createValidatorService,
  producedTopics,
  serviceName,
  type ValidatorDeps,
  type ValidatorOptions,
  type ValidatorService,
} from './service.ts';
export { startValidator } from './start.ts';
