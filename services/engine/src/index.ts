export { engineConfigSpec } from './config.ts';
export { type EngineHealth, engineHealth } from './health.ts';
export {
  type EngineService,
  engineServices,
  hostedServices,
  selectServices,
  serviceEnvironment,
} from './services.ts';
