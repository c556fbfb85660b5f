import { bankSimulatorConfigSpec } from '@rp/bank-simulator';
import { dispatcherConfigSpec } from '@rp/dispatcher';
import { eventPublisherConfigSpec } from '@rp/event-publisher';
import { ingressConfigSpec } from '@rp/ingress';
import { describeConfig, Secret } from '@rp/runtime';
import { schedulerConfigSpec } from '@rp/scheduler';
import { trackerConfigSpec } from '@rp/tracker';
import { validatorConfigSpec } from '@rp/validator';
import type { Row } from './report.ts';

/** What the bench needs of a service's configuration: the variables it reads, and which are secrets. */
export type VariableSpecs = Readonly<Record<string, { readonly secret: boolean }>>;

/** Every variable of the services the pipeline runs. */
export const serviceSpecs: readonly VariableSpecs[] = [
  bankSimulatorConfigSpec,
  trackerConfigSpec,
  eventPublisherConfigSpec,
  validatorConfigSpec,
  schedulerConfigSpec,
  dispatcherConfigSpec,
  ingressConfigSpec,
];

/**
 * Read by Node itself in every process, and by the launcher for the flags on each service's node command
 * line (`RP_NODE_FLAGS`, in place of its young generation's defaults).
 */
const nodeVariables = ['NODE_OPTIONS', 'UV_THREADPOOL_SIZE', 'RP_NODE_FLAGS'];

/**
 * Of what the services inherit from the bench's environment, the variables one of them reads: a run
 * that changed a setting that way says so. Secrets (and the files that hold them) are redacted, and
 * passwords in URLs masked.
 */
export function servicesEnvironment(
  inherited: Readonly<Record<string, string>>,
  specs: readonly VariableSpecs[] = serviceSpecs,
): Record<string, string> {
  const read = new Map<string, boolean>();
  for (const spec of specs) {
    for (const [name, variable] of Object.entries(spec)) {
      read.set(name, (read.get(name) ?? false) || variable.secret);
      if (variable.secret) read.set(`${name}_FILE`, true);
    }
  }
  for (const name of nodeVariables) read.set(name, false);
  const picked: Record<string, unknown> = {};
  for (const name of Object.keys(inherited).sort()) {
    const secret = read.get(name);
    if (secret === undefined) continue;
    const value = inherited[name] as string;
    picked[name] = secret ? new Secret(value) : value;
  }
  // Described as the services describe their own configuration at start-up.
  return describeConfig(picked) as Record<string, string>;
}

/** The row that names them, so that the table and the JSON say what the services ran with. */
export function servicesEnvironmentRow(described: Readonly<Record<string, string>>): Row {
  const entries = Object.entries(described);
  return {
    group: 'pipeline',
    name: "services' settings from the environment",
    value: entries.length,
    unit: 'variables',
    detail:
      entries.length === 0
        ? "none: the launcher's settings and each service's defaults"
        : entries.map(([name, value]) => `${name}=${value}`).join(', '),
  };
}
