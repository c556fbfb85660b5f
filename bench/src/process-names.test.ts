import { describe, expect, it } from 'vitest';
import { engineProcessName, isEngineProcessName } from './process-names.ts';

describe("the engine's process name", () => {
  it('names the services run together, and is known by the summary as the engine', () => {
    const name = engineProcessName(['tracker', 'validator', 'dispatcher', 'ingress']);
    expect(name).toBe('engine (tracker, validator, dispatcher, ingress)');
    expect(isEngineProcessName(name)).toBe(true);
  });

  it('is not a service in its own process, the bank simulator or the stack', () => {
    for (const name of ['tracker', 'bank-simulator', 'kafka', 'postgres', 'engine']) {
      expect(isEngineProcessName(name)).toBe(false);
    }
  });
});
