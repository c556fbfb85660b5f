import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cacheDirFrom, defaultPorts, findRepoRoot, parsePorts, resolveStackConfig } from './config.ts';
import { StackError } from './errors.ts';

describe('parsePorts', () => {
  it('uses the defaults when nothing is set', () => {
    expect(parsePorts({})).toEqual({
      kafka: 19092,
      kafkaController: 19093,
      registry: 18081,
      postgres: 15432,
      mongo: 27018,
    });
  });

  it('reads each port from its variable and lets explicit overrides win', () => {
    const ports = parsePorts(
      { RP_STACK_KAFKA_PORT: '29092', RP_STACK_MONGO_PORT: ' 27100 ', RP_STACK_REGISTRY_PORT: '28081' },
      { registry: 38081 },
    );
    expect(ports).toEqual({ ...defaultPorts, kafka: 29092, mongo: 27100, registry: 38081 });
  });

  it('treats an empty variable as unset', () => {
    expect(parsePorts({ RP_STACK_POSTGRES_PORT: '' }).postgres).toBe(15432);
  });

  it.each(['abc', '0', '65536', '19092.5', '-1'])('refuses %s as a port', (value) => {
    expect(() => parsePorts({ RP_STACK_KAFKA_PORT: value })).toThrowError(
      /RP_STACK_KAFKA_PORT=.* is not a TCP port/,
    );
  });

  it('refuses two components on one port, naming both variables', () => {
    try {
      parsePorts({ RP_STACK_MONGO_PORT: '19092' });
      expect.unreachable('a shared port must be refused');
    } catch (error) {
      expect(error).toBeInstanceOf(StackError);
      expect((error as StackError).code).toBe('config_invalid');
      expect((error as StackError).message).toContain('RP_STACK_KAFKA_PORT and RP_STACK_MONGO_PORT');
    }
  });
});

describe('cacheDirFrom', () => {
  it('prefers RP_CACHE_DIR, then XDG_CACHE_HOME, then ~/.cache', () => {
    expect(cacheDirFrom({ RP_CACHE_DIR: '/srv/cache', XDG_CACHE_HOME: '/x' }, '/home/u')).toBe('/srv/cache');
    expect(cacheDirFrom({ XDG_CACHE_HOME: '/x' }, '/home/u')).toBe('/x/regulated-payments');
    expect(cacheDirFrom({}, '/home/u')).toBe('/home/u/.cache/regulated-payments');
  });

  it('ignores a relative XDG_CACHE_HOME, as the XDG spec says', () => {
    expect(cacheDirFrom({ XDG_CACHE_HOME: 'relative' }, '/home/u')).toBe('/home/u/.cache/regulated-payments');
  });
});

describe('findRepoRoot and resolveStackConfig', () => {
  const made: string[] = [];
  afterEach(() => {
    for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('walks up to the folder whose package.json has workspaces', () => {
    const root = mkdtempSync(join(tmpdir(), 'stack-root-'));
    made.push(root);
    writeFileSync(join(root, 'package.json'), JSON.stringify({ name: 'r', workspaces: ['packages/*'] }));
    const pkg = join(root, 'packages', 'a');
    mkdirSync(join(pkg, 'src'), { recursive: true });
    writeFileSync(join(pkg, 'package.json'), JSON.stringify({ name: 'a' }));
    expect(findRepoRoot(join(pkg, 'src'))).toBe(root);
  });

  it('finds no root where no package.json declares workspaces', () => {
    const lone = mkdtempSync(join(tmpdir(), 'stack-lone-'));
    made.push(lone);
    expect(findRepoRoot(lone)).toBeUndefined();
  });

  it('puts the default stack under <repo>/.local and its env file beside it', () => {
    const config = resolveStackConfig({ env: {} });
    const root = findRepoRoot(process.cwd());
    expect(root).toBeDefined();
    expect(config.stackDir).toBe(join(root!, '.local', 'stack'));
    expect(config.envFile).toBe(join(root!, '.local', 'stack.env'));
    expect(config.logDir).toBe(join(root!, '.local', 'stack', 'logs'));
  });

  it('keeps the env file of an explicitly placed stack inside that stack', () => {
    const config = resolveStackConfig({ env: { RP_STACK_DIR: '/tmp/other-stack', RP_CACHE_DIR: '/tmp/c' } });
    expect(config.stackDir).toBe('/tmp/other-stack');
    expect(config.envFile).toBe('/tmp/other-stack/stack.env');
    expect(config.cacheDir).toBe('/tmp/c');
    expect(resolveStackConfig({ stackDir: '/tmp/third', env: { RP_STACK_DIR: '/tmp/x' } }).stackDir).toBe(
      '/tmp/third',
    );
  });
});
