import { list, logLevels, oneOf, port } from '@rp/runtime';

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
  ENGINE_PORT: port({
    default: 8088,
    doc: "The engine's own probes, over every service it runs: /health/live, and /health/ready (ready once every service has started and while each is ready), for an orchestrator that probes one port; each service keeps its own port too",
  }),
  LOG_LEVEL: oneOf(logLevels, {
    default: 'info',
    doc: "Minimum level of the log lines, the engine's own and each service's",
  }),
};
