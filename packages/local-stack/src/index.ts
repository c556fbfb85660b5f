export { backendDatabase as ferretdbBackendDatabase } from './components/ferretdb.ts';
export { kafkaLogDir } from './components/kafka.ts';
export { findPostgresBindir } from './components/postgres.ts';
export {
  type ComponentName,
  componentNames,
  defaultPorts,
  parsePorts,
  portVariables,
  resolveStackConfig,
  type StackConfig,
  type StackOptions,
  type StackPorts,
} from './config.ts';
export { parseStackEnv, renderStackEnv, type StackEndpoints } from './env-file.ts';
export { StackError, type StackErrorCode } from './errors.ts';
export { lastLines, tailFile } from './process.ts';
export { type Dropped, dropOwned, type PruneTarget } from './prune.ts';
export {
  type ComponentReport,
  type ComponentState,
  type ComponentStatus,
  killComponent,
  readStackEnv,
  type StackStatus,
  type StackUpResult,
  type StopReport,
  stackDown,
  stackReset,
  stackStatus,
  stackUp,
} from './stack.ts';
export { stackCli, stackUsage } from './stack-cli.ts';
