import { describe, expect, it } from 'vitest';
import { ferretdbEnv, ferretdbGogc } from './ferretdb.ts';

describe('FerretDB environment', () => {
  it("sets Go's collector target and keeps the rest of the stack's environment", () => {
    const env = ferretdbEnv({ PATH: '/usr/bin', HOME: '/root' });
    expect(env).toEqual({ PATH: '/usr/bin', HOME: '/root', GOGC: ferretdbGogc });
    expect(Number(ferretdbGogc)).toBeGreaterThan(100);
  });

  it('leaves a GOGC the environment sets as it is, an empty one counting as unset', () => {
    expect(ferretdbEnv({ GOGC: '100' }).GOGC).toBe('100');
    expect(ferretdbEnv({ GOGC: 'off' }).GOGC).toBe('off');
    expect(ferretdbEnv({ GOGC: '' }).GOGC).toBe(ferretdbGogc);
  });

  it('does not change the environment it is given', () => {
    const given = { PATH: '/usr/bin' };
    ferretdbEnv(given);
    expect(given).toEqual({ PATH: '/usr/bin' });
  });
});
