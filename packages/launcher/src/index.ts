export {
  anyTimeWindows,
  defaultBank,
  freePort,
  type InstanceOptions,
  type LaunchOptions,
  launchPipeline,
  type Pipeline,
  type PipelineEndpoints,
  type PipelineService,
  pipelineServices,
  type ServiceInstance,
  type SimulatedBank,
} from './launch.ts';
export {
  baobab,
  johannesburgDate,
  type SampleDebit,
  type SampleDebitOptions,
  sampleOnUsDebit,
  validAccount,
} from './samples.ts';
