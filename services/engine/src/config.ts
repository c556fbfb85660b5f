import { list, logLevels, oneOf } from '@rp/runtime';

/**
 * The engine's own settings. Every other variable reaches the services it runs, each of which reads
 * its own configuration as it would alone, with the variables scoped to it (`<SERVICE>__<NAME>`) over
 * the shared ones.
 */
export const engineConfigSpec = {
  RP_SERVICES: list({
    optional: true,
    doc: 'The services to run in this process, comma-separated, any of tracker, event-publisher, validator, scheduler, dispatcher, ingress (started in that order, whatever order they are named in); unset: all of them',
  }),
  LOG_LEVEL: oneOf(logLevels, {
    default: 'info',
    doc: "Minimum level of the log lines, the engine's own and each service's",
  }),
};
