import { readFileSync } from 'node:fs';
import { inspect } from 'node:util';
import { AppError, type FieldError } from './errors.ts';

/**
 * A secret value (password, signing key, credentials). It prints, serialises and inspects as
 * `[redacted]`, so logging a whole config object cannot leak it; `reveal()` is the one way to read it.
 */
export class Secret {
  readonly #value: string;

  constructor(value: string) {
    this.#value = value;
  }

  reveal(): string {
    return this.#value;
  }

  toString(): string {
    return REDACTED;
  }

  toJSON(): string {
    return REDACTED;
  }

  [inspect.custom](): string {
    return `Secret(${REDACTED})`;
  }
}

const REDACTED = '[redacted]';

/** Why a raw value was refused; the loader prefixes the variable name. */
class Refusal {
  readonly reason: string;
  constructor(reason: string) {
    this.reason = reason;
  }
}

export interface Variable<T> {
  readonly doc: string | undefined;
  readonly secret: boolean;
  readonly optional: boolean;
  readonly defaultValue: T | undefined;
  /** Returns the parsed value or a Refusal saying why. Secrets' reasons never quote the value. */
  readonly parse: (raw: string) => T | Refusal;
}

export interface VariableOptions<T> {
  /** One line saying why the variable exists; shown when it is missing. */
  doc?: string;
  default?: T;
  /** Unset is allowed and yields `undefined`. */
  optional?: boolean;
}

type Resolved<T, O> = O extends { optional: true } ? T | undefined : T;

export type ConfigSpec = Readonly<Record<string, Variable<unknown>>>;

export type Config<S extends ConfigSpec> = {
  readonly [K in keyof S]: S[K] extends Variable<infer T> ? T : never;
};

function variable<T, O extends VariableOptions<T>>(
  options: O | undefined,
  parse: (raw: string) => T | Refusal,
  secret = false,
): Variable<Resolved<T, O>> {
  return {
    doc: options?.doc,
    secret,
    optional: options?.optional === true,
    defaultValue: options?.default,
    parse: parse as (raw: string) => Resolved<T, O> | Refusal,
  };
}

function got(raw: string): string {
  const shown = raw.length > 80 ? `${raw.slice(0, 80)}...` : raw;
  return `got ${JSON.stringify(shown)}`;
}

export function str<const O extends VariableOptions<string> & { pattern?: RegExp }>(
  options?: O,
): Variable<Resolved<string, O>> {
  const pattern = options?.pattern;
  return variable(options, (raw) =>
    pattern === undefined || pattern.test(raw)
      ? raw
      : new Refusal(`expected to match ${pattern}, ${got(raw)}`),
  );
}

export function int<const O extends VariableOptions<number> & { min?: number; max?: number }>(
  options?: O,
): Variable<Resolved<number, O>> {
  const min = options?.min ?? Number.MIN_SAFE_INTEGER;
  const max = options?.max ?? Number.MAX_SAFE_INTEGER;
  const range =
    options?.min !== undefined && options.max !== undefined
      ? ` ${min}-${max}`
      : options?.min !== undefined
        ? ` >= ${min}`
        : options?.max !== undefined
          ? ` <= ${max}`
          : '';
  return variable(options, (raw) => {
    const value = /^[-+]?\d+$/.test(raw) ? Number(raw) : Number.NaN;
    return Number.isSafeInteger(value) && value >= min && value <= max
      ? value
      : new Refusal(`expected an integer${range}, ${got(raw)}`);
  });
}

/** A TCP port; 0 asks the operating system for a free one. */
export function port<const O extends VariableOptions<number>>(options?: O): Variable<Resolved<number, O>> {
  return int({ ...options, min: 0, max: 65_535 }) as Variable<Resolved<number, O>>;
}

const truthy = new Set(['true', '1', 'yes', 'on']);
const falsy = new Set(['false', '0', 'no', 'off']);

export function bool<const O extends VariableOptions<boolean>>(options?: O): Variable<Resolved<boolean, O>> {
  return variable(options, (raw) => {
    const lower = raw.toLowerCase();
    if (truthy.has(lower)) return true;
    if (falsy.has(lower)) return false;
    return new Refusal(`expected true or false (or 1/0, yes/no, on/off), ${got(raw)}`);
  });
}

/** An absolute URL, kept as the string given. */
export function url<const O extends VariableOptions<string> & { protocols?: readonly string[] }>(
  options?: O,
): Variable<Resolved<string, O>> {
  const protocols = options?.protocols ?? ['http:', 'https:'];
  return variable(options, (raw) => {
    let parsed: URL;
    try {
      parsed = new URL(raw);
    } catch {
      return new Refusal(`expected an absolute URL, ${got(raw)}`);
    }
    return protocols.includes(parsed.protocol)
      ? raw
      : new Refusal(`expected a ${protocols.map((p) => p.replace(/:$/, '')).join(' or ')} URL, ${got(raw)}`);
  });
}

const durationUnits: Readonly<Record<string, number>> = {
  ms: 1,
  s: 1_000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
};

/** Parses `500ms`, `30s`, `5m`, `1h30m`, `2d` (or `0`) into milliseconds. */
export function parseDuration(raw: string): number | undefined {
  if (raw === '0') return 0;
  if (!/^(\d+(ms|s|m|h|d))+$/.test(raw)) return undefined;
  let total = 0;
  for (const [, amount, unit] of raw.matchAll(/(\d+)(ms|s|m|h|d)/g)) {
    total += Number(amount) * (durationUnits[unit ?? ''] ?? Number.NaN);
  }
  return Number.isSafeInteger(total) ? total : undefined;
}

/** A duration such as `30s` or `1h30m`, as milliseconds; `min` (milliseconds) refuses a shorter one. */
export function duration<const O extends VariableOptions<number> & { min?: number }>(
  options?: O,
): Variable<Resolved<number, O>> {
  const min = options?.min;
  return variable(options, (raw) => {
    const ms = parseDuration(raw);
    if (ms === undefined)
      return new Refusal(`expected a duration such as 500ms, 30s, 5m or 1h30m, ${got(raw)}`);
    return min !== undefined && ms < min
      ? new Refusal(`expected a duration of at least ${min} ms, ${got(raw)}`)
      : ms;
  });
}

/** Comma-separated values, trimmed, empty items dropped; at least one item unless `minItems` says otherwise. */
export function list<const O extends VariableOptions<readonly string[]> & { minItems?: number }>(
  options?: O,
): Variable<Resolved<readonly string[], O>> {
  const minItems = options?.minItems ?? 1;
  return variable(options, (raw) => {
    const items = raw
      .split(',')
      .map((item) => item.trim())
      .filter((item) => item.length > 0);
    return items.length >= minItems
      ? Object.freeze(items)
      : new Refusal(`expected at least ${minItems} comma-separated value(s), ${got(raw)}`);
  });
}

export function oneOf<const V extends string, const O extends VariableOptions<V>>(
  values: readonly V[],
  options?: O,
): Variable<Resolved<V, O>> {
  return variable(options, (raw) =>
    (values as readonly string[]).includes(raw)
      ? (raw as V)
      : new Refusal(`expected one of ${values.join(', ')}, ${got(raw)}`),
  );
}

/**
 * A secret: from NAME, or from the file named by NAME_FILE (how Kubernetes mounts secrets). Never has a
 * default, and its value never appears in errors or in `describeConfig`.
 */
export function secret<const O extends Omit<VariableOptions<Secret>, 'default'> & { minLength?: number }>(
  options?: O,
): Variable<Resolved<Secret, O>> {
  const minLength = options?.minLength ?? 1;
  return variable(
    options,
    (raw) =>
      raw.length >= minLength ? new Secret(raw) : new Refusal(`expected at least ${minLength} characters`),
    true,
  );
}

/** Gives a config spec its precise type; the spec's keys are the environment variable names. */
export function defineConfig<const S extends ConfigSpec>(spec: S): S {
  return spec;
}

/**
 * Reads and validates every variable of the spec, failing fast with one CONFIG_INVALID error that names
 * every missing or invalid variable and why. Empty strings count as unset.
 */
export function loadConfig<const S extends ConfigSpec>(
  spec: S,
  env: Readonly<Record<string, string | undefined>> = process.env,
): Config<S> {
  const problems: FieldError[] = [];
  const report = (name: string, detail: string): void => {
    problems.push({ pointer: `/${name}`, detail: `${name}: ${detail}` });
  };
  const config: Record<string, unknown> = {};
  for (const [name, variable] of Object.entries(spec)) {
    const raw = readRaw(name, variable, env, report);
    if (raw === null) continue;
    if (raw === undefined) {
      if (variable.defaultValue !== undefined) config[name] = variable.defaultValue;
      else if (variable.optional) config[name] = undefined;
      else report(name, `required but not set${missingHint(name, variable)}`);
      continue;
    }
    const parsed = variable.parse(raw);
    if (parsed instanceof Refusal) report(name, parsed.reason);
    else config[name] = parsed;
  }
  if (problems.length > 0) {
    const count = `${problems.length} problem${problems.length === 1 ? '' : 's'}`;
    const lines = problems.map((problem) => problem.detail).join('\n  ');
    throw new AppError('CONFIG_INVALID', `Invalid configuration (${count}):\n  ${lines}`, {
      details: problems,
    });
  }
  return Object.freeze(config) as Config<S>;
}

/** The raw value, `undefined` if unset, or `null` after recording a problem. */
function readRaw(
  name: string,
  variable: Variable<unknown>,
  env: Readonly<Record<string, string | undefined>>,
  report: (name: string, detail: string) => void,
): string | undefined | null {
  const direct = nonEmpty(env[name]);
  if (!variable.secret) return direct;
  const file = nonEmpty(env[`${name}_FILE`]);
  if (file === undefined) return direct;
  if (direct !== undefined) {
    report(name, `set either ${name} or ${name}_FILE, not both`);
    return null;
  }
  try {
    return nonEmpty(readFileSync(file, 'utf8').replace(/[\r\n]+$/, ''));
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    report(
      name,
      `cannot read ${name}_FILE ${JSON.stringify(file)} (${typeof code === 'string' ? code : 'error'})`,
    );
    return null;
  }
}

function missingHint(name: string, variable: Variable<unknown>): string {
  const parts = [variable.secret ? `set ${name} or ${name}_FILE` : undefined, variable.doc].filter(
    (part) => part !== undefined,
  );
  return parts.length === 0 ? '' : ` (${parts.join('; ')})`;
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}

/**
 * The effective configuration for a start-up log line, secrets shown as `[redacted]` and passwords in
 * URLs masked. With a spec, only the spec's variables are described, in the spec's order.
 */
export function describeConfig(config: Readonly<Record<string, unknown>>): Record<string, unknown>;
export function describeConfig<S extends ConfigSpec>(spec: S, config: Config<S>): Record<string, unknown>;
export function describeConfig(
  specOrConfig: Readonly<Record<string, unknown>>,
  maybeConfig?: Readonly<Record<string, unknown>>,
): Record<string, unknown> {
  const config = maybeConfig ?? specOrConfig;
  const names = Object.keys(specOrConfig);
  const spec = maybeConfig === undefined ? undefined : (specOrConfig as ConfigSpec);
  const described: Record<string, unknown> = {};
  for (const name of names) {
    const value = config[name];
    if (value instanceof Secret || spec?.[name]?.secret === true) described[name] = REDACTED;
    else if (typeof value === 'string' && URL.canParse(value)) described[name] = maskUrlPassword(value);
    else described[name] = value;
  }
  return described;
}

function maskUrlPassword(value: string): string {
  const parsed = new URL(value);
  if (parsed.password === '') return value;
  parsed.password = 'redacted';
  return parsed.toString();
}
