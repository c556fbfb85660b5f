import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { engineConfigSpec } from '@rp/engine';
import { afterAll, describe, expect, it } from 'vitest';
import {
  execForm,
  isIgnored,
  parseCopy,
  parseDockerfile,
  parseDockerignore,
  parseInstructions,
  substitute,
} from '../src/dockerfile.ts';
import { repoRoot } from '../src/paths.ts';
import { deployedServiceNames, serviceNames, servicePackage } from '../src/services.ts';
import { serviceSpecs } from './service-specs.ts';

const dockerfileText = readFileSync(join(repoRoot, 'Dockerfile'), 'utf8');
const dockerfile = parseDockerfile(dockerfileText);
const ignoreRules = parseDockerignore(readFileSync(join(repoRoot, '.dockerignore'), 'utf8'));
const nvmrc = readFileSync(join(repoRoot, '.nvmrc'), 'utf8').trim();
const rootPackage = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as {
  devDependencies: Record<string, string>;
};
const stage = (name: string) => {
  const found = dockerfile.stages.find((s) => s.name === name);
  if (!found) throw new Error(`no stage ${name}`);
  return found;
};
const runtime = dockerfile.stages.at(-1);
const entrypointScript = join(repoRoot, 'infra', 'docker', 'rp-service.sh');

describe('the Dockerfile parser', () => {
  it('joins continued lines, drops comments and keeps line numbers', () => {
    const instructions = parseInstructions('# c\nFROM a AS b\n\nRUN one \\\n  # inside\n  two\nUSER 1\n');
    expect(instructions).toEqual([
      { keyword: 'FROM', args: 'a AS b', line: 2 },
      { keyword: 'RUN', args: 'one two', line: 4 },
      { keyword: 'USER', args: '1', line: 7 },
    ]);
    expect(() => parseInstructions('RUN a \\\n')).toThrow(/ends inside/);
  });

  it('reads COPY flags and exec forms, and substitutes ARGs', () => {
    const [copy] = parseInstructions('COPY --from=build --chmod=0755 a b /dest/');
    expect(parseCopy(copy as never)).toEqual({
      from: 'build',
      flags: { from: 'build', chmod: '0755' },
      sources: ['a', 'b'],
      destination: '/dest/',
    });
    const [entry] = parseInstructions('ENTRYPOINT ["tini", "--"]');
    expect(execForm(entry as never)).toEqual(['tini', '--']);
    expect(substitute('node:$V-slim', { V: '24' })).toBe('node:24-slim');
    expect(() => substitute('node:$X', {})).toThrow(/no value/);
  });

  it('matches .dockerignore rules as Docker does (last match wins, parents count)', () => {
    const rules = parseDockerignore('**/node_modules\ntest\n!test/keep.json\n*.md\n');
    expect(isIgnored('packages/a/node_modules/x/index.js', rules)).toBe(true);
    expect(isIgnored('node_modules', rules)).toBe(true);
    expect(isIgnored('test/src/a.ts', rules)).toBe(true);
    expect(isIgnored('test/keep.json', rules)).toBe(false);
    expect(isIgnored('README.md', rules)).toBe(true);
    expect(isIgnored('packages/a/README.md', rules)).toBe(false);
    expect(isIgnored('packages/a/src/index.ts', rules)).toBe(false);
  });
});

describe('Dockerfile', () => {
  it('has the prune, build, prod-deps and runtime stages, runtime last', () => {
    expect(dockerfile.stages.map((s) => s.name)).toEqual(['prune', 'build', 'prod-deps', 'runtime']);
  });

  it('builds on the Node.js of .nvmrc: the same version, so the same major', () => {
    const version = dockerfile.globalArgs.NODE_VERSION;
    expect(version).toBe(nvmrc);
    for (const s of dockerfile.stages) {
      const image = substitute(s.from, dockerfile.globalArgs);
      expect(image, `stage ${s.name}`).toMatch(/^node:(\d+)\.\d+\.\d+-slim$/);
      expect(image.split(':')[1]?.split('.')[0]).toBe(nvmrc.split('.')[0]);
    }
  });

  it('runs as a numeric non-root user in the runtime stage', () => {
    const users = runtime?.instructions.filter((i) => i.keyword === 'USER') ?? [];
    expect(users.length).toBeGreaterThan(0);
    const [uid, gid] = (users.at(-1)?.args ?? '').split(':');
    expect(uid).toMatch(/^\d+$/);
    expect(Number(uid)).toBeGreaterThan(0);
    expect(gid === undefined || Number(gid) > 0).toBe(true);
  });

  it('has no HEALTHCHECK (Kubernetes probes do that)', () => {
    const checks = dockerfile.instructions.filter((i) => i.keyword === 'HEALTHCHECK');
    expect(checks.every((i) => i.args.trim().toUpperCase() === 'NONE')).toBe(true);
  });

  it('starts under tini, which passes SIGTERM on, through the service entry point', () => {
    const entrypoint = runtime?.instructions.filter((i) => i.keyword === 'ENTRYPOINT').at(-1);
    expect(entrypoint).toBeDefined();
    const args = execForm(entrypoint as never);
    expect(args?.slice(0, 2)).toEqual(['/usr/bin/tini', '--']);
    expect(args?.[2]).toBe('/usr/local/bin/rp-service');
    expect(
      runtime?.instructions.some((i) => i.keyword === 'RUN' && /apt-get install .*\btini\b/.test(i.args)),
    ).toBe(true);
    const copied = runtime?.instructions
      .filter((i) => i.keyword === 'COPY')
      .map(parseCopy)
      .find((c) => c.destination === '/usr/local/bin/rp-service');
    expect(copied?.sources).toEqual(['infra/docker/rp-service.sh']);
    expect(copied?.flags.chmod).toBe('0755');
  });

  it('prunes to exactly the workspaces of services/*, with the turbo version of the root package.json', () => {
    const prune = stage('prune');
    const command = prune.instructions.find((i) => i.keyword === 'RUN' && i.args.includes('turbo prune'));
    const scopes = /turbo prune (.*?) --/.exec(command?.args ?? '')?.[1]?.split(/\s+/) ?? [];
    expect(scopes.sort()).toEqual(
      serviceNames()
        .map((s) => servicePackage(s).name)
        .sort(),
    );
    expect(command?.args).toContain('--production');
    const install = prune.instructions.find(
      (i) => i.keyword === 'RUN' && /npm install --global/.test(i.args),
    );
    expect(install?.args).toContain(`turbo@${rootPackage.devDependencies.turbo}`);
  });

  it('puts production dependencies only into the runtime image', () => {
    const prodDeps = stage('prod-deps')
      .instructions.filter((i) => i.keyword === 'RUN')
      .map((i) => i.args);
    expect(prodDeps.some((args) => /npm (install|ci)\b.*--omit=dev/.test(args))).toBe(true);
    const sources = (runtime?.instructions ?? [])
      .filter((i) => i.keyword === 'COPY')
      .map(parseCopy)
      .map((c) => c.from ?? 'context');
    expect(sources.sort()).toEqual(['build', 'context', 'prod-deps']);
    // From the build stage only the compiled output, never its node_modules (dev dependencies).
    const fromBuild = (runtime?.instructions ?? []).map(parseCopyIfCopy).filter((c) => c?.from === 'build');
    expect(fromBuild.map((c) => c?.sources)).toEqual([['/out/']]);
    expect(stage('build').instructions.at(-1)?.args).toMatch(/cp -R "\$dir\/dist" "\/out\/\$dir\/"/);
  });

  it('copies from the context only paths that exist and that .dockerignore lets through', () => {
    const fromContext = dockerfile.stages.flatMap((s) =>
      s.instructions.map(parseCopyIfCopy).filter((c) => c !== undefined && c.from === undefined),
    );
    expect(fromContext.length).toBeGreaterThan(0);
    for (const copy of fromContext) {
      for (const source of copy?.sources ?? []) {
        if (source === '.') continue;
        expect(existsSync(join(repoRoot, source)), source).toBe(true);
        expect(isIgnored(source, ignoreRules), `${source} is in .dockerignore`).toBe(false);
      }
    }
  });

  it('can build every service: a main under src, compiled to dist/main.js, and its sources in the context', () => {
    const names = serviceNames();
    expect(names.length).toBeGreaterThanOrEqual(7);
    for (const service of names) {
      const dir = join(repoRoot, 'services', service);
      const pkg = servicePackage(service);
      expect(pkg.scripts?.build, service).toBe('tsc -p tsconfig.build.json');
      const build = JSON.parse(readFileSync(join(dir, 'tsconfig.build.json'), 'utf8')) as {
        compilerOptions: { rootDir: string; outDir: string };
      };
      expect(build.compilerOptions, service).toMatchObject({ rootDir: 'src', outDir: 'dist' });
      expect(existsSync(join(dir, 'src', 'main.ts')), service).toBe(true);
      for (const path of ['package.json', 'tsconfig.build.json', 'src/main.ts', 'src/service.ts']) {
        if (existsSync(join(dir, path)))
          expect(isIgnored(`services/${service}/${path}`, ignoreRules), path).toBe(false);
      }
      // Its workspace dependencies are in the context too.
      for (const dependency of Object.keys(pkg.dependencies ?? {}).filter((d) => d.startsWith('@rp/'))) {
        const folder = dependency.replace('@rp/', '');
        const where = existsSync(join(repoRoot, 'packages', folder)) ? 'packages' : 'services';
        expect(existsSync(join(repoRoot, where, folder, 'package.json')), dependency).toBe(true);
        expect(isIgnored(`${where}/${folder}/src/index.ts`, ignoreRules), dependency).toBe(false);
      }
    }
    expect(isIgnored('package-lock.json', ignoreRules)).toBe(false);
    expect(isIgnored('turbo.json', ignoreRules)).toBe(false);
  });

  it('keeps dependencies, build output and local state out of the build context', () => {
    for (const path of [
      'node_modules/x',
      'services/ingress/node_modules/x',
      'services/ingress/dist/main.js',
      '.git/HEAD',
      '.local/stack.env',
    ]) {
      expect(isIgnored(path, ignoreRules), path).toBe(true);
    }
  });

  it("exposes every service's default port and the engine's own (its services listen on theirs)", () => {
    const exposed = (runtime?.instructions ?? [])
      .filter((i) => i.keyword === 'EXPOSE')
      .flatMap((i) => i.args.split(/\s+/))
      .map(Number);
    for (const service of deployedServiceNames()) {
      const port = serviceSpecs[service]?.PORT?.defaultValue;
      expect(exposed, service).toContain(port);
    }
    expect(exposed, 'engine').toContain(engineConfigSpec.ENGINE_PORT.defaultValue);
  });
});

describe('the entry point rp-service', () => {
  const app = mkdtempSync(join(tmpdir(), 'rp-service-'));
  afterAll(() => rmSync(app, { recursive: true, force: true }));
  const main = join(app, 'services', 'alpha', 'dist', 'main.js');
  mkdirSync(dirname(main), { recursive: true });
  writeFileSync(
    main,
    [
      "process.on('SIGTERM', () => { console.log('SIGTERM ' + process.pid); process.exit(0); });",
      "console.log('started ' + process.pid + ' ' + process.argv[1] + ' ' + process.execArgv.join(' '));",
      'setTimeout(() => process.exit(3), 20000);',
    ].join('\n'),
  );

  const start = (args: string[], env: Record<string, string> = {}) => {
    const child = spawn('sh', [entrypointScript, ...args], {
      env: { PATH: `${dirname(process.execPath)}:/usr/bin:/bin`, RP_APP_DIR: app, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    return { child, exited, out: () => stdout, err: () => stderr };
  };

  it('execs node on the named service, so the service itself receives SIGTERM', async () => {
    const run = start(['alpha']);
    await expect.poll(run.out, { timeout: 10_000 }).toContain('started');
    // exec: the process the container runtime signals is Node itself, not a shell in front of it.
    expect(run.out()).toBe(
      `started ${run.child.pid} ${main} --min-semi-space-size=16 --max-semi-space-size=16\n`,
    );
    run.child.kill('SIGTERM');
    expect(await run.exited).toBe(0);
    expect(run.out()).toContain(`SIGTERM ${run.child.pid}`);
  });

  it("starts node with RP_NODE_FLAGS in place of the young generation's flags, none when it is empty", async () => {
    for (const [flags, expected] of [
      ['--max-semi-space-size=32  --stack-size=2000', '--max-semi-space-size=32 --stack-size=2000'],
      ['', ''],
    ]) {
      const run = start(['alpha'], { RP_NODE_FLAGS: flags as string });
      await expect.poll(run.out, { timeout: 10_000 }).toContain('started');
      expect(run.out()).toBe(`started ${run.child.pid} ${main} ${expected}\n`);
      run.child.kill('SIGTERM');
      expect(await run.exited).toBe(0);
    }
  });

  it('takes the service from SERVICE when there is no argument', async () => {
    const run = start([], { SERVICE: 'alpha' });
    await expect.poll(run.out, { timeout: 10_000 }).toContain('started');
    run.child.kill('SIGTERM');
    expect(await run.exited).toBe(0);
  });

  it('refuses an unknown or path-like service, listing the ones it has', async () => {
    for (const args of [['nope'], ['../alpha'], [], ['alpha', 'extra']]) {
      const run = start(args);
      expect(await run.exited, args.join(' ')).toBe(64);
      if (args.length < 2) expect(run.err()).toContain('  alpha');
    }
  });
});

function parseCopyIfCopy(instruction: { keyword: string; args: string; line: number }) {
  return instruction.keyword === 'COPY' ? parseCopy(instruction) : undefined;
}
