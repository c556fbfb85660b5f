import { bankSimulatorConfigSpec } from '@rp/bank-simulator';
import { consoleConfigSpec } from '@rp/console';
import { dispatcherConfigSpec } from '@rp/dispatcher';
import { eventPublisherConfigSpec } from '@rp/event-publisher';
import { ingressConfigSpec } from '@rp/ingress';
import type { ConfigSpec } from '@rp/runtime';
import { schedulerConfigSpec } from '@rp/scheduler';
import { trackerConfigSpec } from '@rp/tracker';
import { validatorConfigSpec } from '@rp/validator';

/**
 * The configuration spec of every service (the variables it reads, with their parsers): the manifests'
 * environment is checked against these. A new service under services/ must be added here.
 */
export const serviceSpecs: Readonly<Record<string, ConfigSpec>> = {
  'bank-simulator': bankSimulatorConfigSpec,
  console: consoleConfigSpec,
  dispatcher: dispatcherConfigSpec,
  'event-publisher': eventPublisherConfigSpec,
  ingress: ingressConfigSpec,
  scheduler: schedulerConfigSpec,
  tracker: trackerConfigSpec,
  validator: validatorConfigSpec,
};
