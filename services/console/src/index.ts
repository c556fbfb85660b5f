export { type ConsoleRoutesDeps, contentSecurityPolicy, createConsoleRoutes } from './app.ts';
export { type Asset, type AssetName, assetFiles, defaultAssetDir, loadAssets } from './assets.ts';
export { consoleConfigSpec } from './config.ts';
export {
  type BankState,
  type BankView,
  bankState,
  bankViews,
  type Overview,
  OverviewBuilder,
  type OverviewOptions,
  type Section,
  type StageDefinition,
  type StageView,
  stages,
} from './overview.ts';
export {
  type Exposition,
  type LabelFilter,
  type Labels,
  meanBy,
  parsePrometheusText,
  parseSampleLine,
  type Sample,
  sumBy,
  sumOf,
} from './prometheus.ts';
export { counterIncrease, type RateOptions, RateTracker, ratePerSecond } from './rates.ts';
export { type ConsoleOptions, type ConsoleService, createConsoleService, serviceName } from './service.ts';
export {
  type Journey,
  type JourneyAttempt,
  type JourneyMessage,
  type JourneyState,
  journeyOf,
  type PostingDelivery,
  TransactionReader,
  type TransactionSummary,
} from './transactions.ts';
export { type CallOutcome, consoleTargets, type Target, type UpstreamResult, Upstreams } from './upstream.ts';
