export { type AdminDeps, registerAdminRoutes } from './app.ts';
export { schedulerConfigSpec } from './config.ts';
export { releasedAtHeader, stateHeader, transactionOfSnapshot, windowDateHeader } from './messages.ts';
export { type SchedulerMetrics, schedulerMetrics } from './metrics.ts';
export { creditorAgentKey } from './queueing.ts';
export { closeReconciliationWindow, type ReconciliationSummary } from './reconciliation.ts';
export { reconciliationRowFor, reconciliationRuleOfState, unresolvedStates } from './reconciliation-rows.ts';
export { csvField, csvLine, reportColumns } from './report.ts';
export {
  consumedTopics,
  createSchedulerService,
  producedTopics,
  type SchedulerDeps,
  type SchedulerOptions,
  type SchedulerService,
  schedulerRetryPolicy,
  serviceName,
} from './service.ts';
export { startScheduler } from './start.ts';
export {
  anyCreditsGate,
  type CreditsGate,
  type DebitWindowState,
  DeclaredCreditsGate,
  scheduledCreditsGate,
  WindowController,
  type WindowStatus,
} from './window-state.ts';
export * from './windows.ts';
