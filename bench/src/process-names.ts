/**
 * How the bench names the process of services run together (the engine's): `engine (<their names>)`.
 * The pipeline's rows name it so, and the summary knows the engine's processes by it.
 */
export function engineProcessName(services: readonly string[]): string {
  return `engine (${services.join(', ')})`;
}

/** Whether a process's name is that of services run together (`engineProcessName`). */
export function isEngineProcessName(name: string): boolean {
  return name.startsWith('engine (') && name.endsWith(')');
}
