import { type EngineService, serviceStartOrder } from '@rp/contracts';
import { startDispatcher } from '@rp/dispatcher';
import { startEventPublisher } from '@rp/event-publisher';
import { startIngress } from '@rp/ingress';
import {
  AppError,
  type Environment,
  type HostedService,
  type ServiceStarter,
  serviceScope,
} from '@rp/runtime';
import { startScheduler } from '@rp/scheduler';
import { startTracker } from '@rp/tracker';
import { startValidator } from '@rp/validator';

/** The services the engine can run, in the order it starts them (they stop in the reverse order). */
export const engineServices = serviceStartOrder;
export type { EngineService };

const starters: Readonly<Record<EngineService, ServiceStarter>> = {
  tracker: startTracker,
  'event-publisher': startEventPublisher,
  validator: startValidator,
  scheduler: startScheduler,
  dispatcher: startDispatcher,
  ingress: startIngress,
};

/**
 * The services `RP_SERVICES` names (any order, each once), in the engine's start order; every service when
 * it is unset.
 */
export function selectServices(names: readonly string[] | undefined): EngineService[] {
  if (names === undefined || names.length === 0) return [...engineServices];
  const unknown = names.filter((name) => !(engineServices as readonly string[]).includes(name));
  if (unknown.length > 0) {
    throw new AppError(
      'CONFIG_INVALID',
      `RP_SERVICES: ${unknown.map((name) => `"${name}"`).join(', ')} ${unknown.length === 1 ? 'is not a service' : 'are not services'} the engine runs; name any of ${engineServices.join(', ')}`,
    );
  }
  const repeated = names.filter((name, index) => names.indexOf(name) !== index);
  if (repeated.length > 0) {
    throw new AppError('CONFIG_INVALID', `RP_SERVICES: ${[...new Set(repeated)].join(', ')} named twice`);
  }
  return engineServices.filter((service) => names.includes(service));
}

/**
 * The environment a service reads in the engine: the engine's own, less a bare `PORT` (every service
 * would take it; each listens on its own default port, 8080 for the ingress to 8086 for the event
 * publisher), with the variables scoped to it (`<SERVICE>__<NAME>`, as `INGRESS__PORT=9080` or
 * `TRACKER__LOG_LEVEL=debug`) set over the shared ones.
 */
export function serviceEnvironment(
  env: Environment,
  service: EngineService,
): Record<string, string | undefined> {
  const prefix = serviceScope(service);
  const own: Record<string, string | undefined> = { ...env };
  delete own.PORT;
  for (const [name, value] of Object.entries(env)) {
    if (name.startsWith(prefix) && name.length > prefix.length) own[name.slice(prefix.length)] = value;
  }
  return own;
}

/** What `runTogether` starts for `services`, each reading its own environment out of `env`. */
export function hostedServices(services: readonly EngineService[], env: Environment): HostedService[] {
  return services.map((service) => ({
    name: service,
    start: starters[service],
    env: serviceEnvironment(env, service),
  }));
}
