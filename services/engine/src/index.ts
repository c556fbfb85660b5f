export { engineConfigSpec } from './config.ts';
export {
  type EngineService,
  engineServices,
  hostedServices,
  selectServices,
  serviceEnvironment,
} from './services.ts';
