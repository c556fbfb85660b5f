import { copyFile, mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '@rp/runtime';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { syntheticBranchFile, syntheticParameterFile, syntheticRegistry } from '../test/synthetic-tables.ts';
import {
  CdvEngine,
  type CdvEngineEvent,
  type CdvReloadEvent,
  cdvConfig,
  cdvVersionLabels,
} from './engine.ts';
import { CdvTableError } from './errors.ts';

let directory: string;
let parameterFile: string;
let branchFile: string;
let engine: CdvEngine | undefined;

beforeEach(async () => {
  directory = await mkdtemp(join(tmpdir(), 'rp-cdv-'));
  parameterFile = join(directory, 'parameters.csv');
  branchFile = join(directory, 'branches.csv');
  await copyFile(syntheticParameterFile, parameterFile);
  await copyFile(syntheticBranchFile, branchFile);
});

afterEach(async () => {
  engine?.close();
  engine = undefined;
  await rm(directory, { recursive: true, force: true });
});

function startEngine(): Promise<CdvEngine> {
  return CdvEngine.start({ parameterFile, branchFile, exceptionRules: syntheticRegistry() });
}

/** Replaces a file the way operators should: write beside it, then rename over it. */
async function replaceFile(path: string, content: string): Promise<void> {
  await writeFile(`${path}.new`, content);
  await rename(`${path}.new`, path);
}

/** Version 2 of the synthetic tables: adds branch 632099 and changes the version line. */
async function writeVersion2(): Promise<void> {
  const parameters = await readFile(syntheticParameterFile, 'utf8');
  const branches = await readFile(syntheticBranchFile, 'utf8');
  await replaceFile(parameterFile, parameters.replace('2025.07-synthetic', '2025.08-synthetic'));
  await replaceFile(
    branchFile,
    `${branches.replace('2025.07-synthetic', '2025.08-synthetic')}632099,ALOE,Aloe Bank (synthetic),New branch\n`,
  );
}

function nextEvent(
  subject: CdvEngine,
  type: CdvEngineEvent['type'],
  accept: (event: CdvEngineEvent) => boolean = () => true,
): Promise<CdvEngineEvent> {
  return new Promise((resolve) => {
    const stop = subject.onEvent((event) => {
      if (event.type !== type || !accept(event)) return;
      stop();
      resolve(event);
    });
  });
}

const newBranchRequest = { branchCode: '632099', accountNumber: '1234567899' };

describe('CdvEngine', () => {
  it('refuses to start on files that do not validate', async () => {
    await writeFile(
      parameterFile,
      (await readFile(parameterFile, 'utf8')).replace('00987654321,11', '00987654321,12'),
    );
    await expect(startEngine()).rejects.toBeInstanceOf(CdvTableError);
    await expect(startEngine()).rejects.toThrow(/parameters\.csv:7: modulus must be 10 or 11, got '12'/);
  });

  it('swaps in new tables on a good reload and reports the versions', async () => {
    engine = await startEngine();
    expect(engine.version.parameters.version).toBe('2025.07-synthetic');
    expect(engine.verify(newBranchRequest)).toMatchObject({ reason: 'INVALID_BRANCH' });
    const events: CdvEngineEvent[] = [];
    engine.onEvent((event) => events.push(event));

    await writeVersion2();
    const result = await engine.reload();

    expect(result).toMatchObject({
      type: 'reloaded',
      trigger: 'manual',
      changed: true,
      version: { parameters: { version: '2025.08-synthetic' }, branches: { rows: 11 } },
      previous: { parameters: { version: '2025.07-synthetic' }, branches: { rows: 10 } },
    });
    expect(events).toEqual([result]);
    expect(engine.version.parameters.version).toBe('2025.08-synthetic');
    expect(engine.verify(newBranchRequest)).toMatchObject({ status: 'PASSED', bank: { code: 'ALOE' } });
    expect(cdvVersionLabels(engine.version)).toMatchObject({
      parameters_version: '2025.08-synthetic',
      branches_effective: '2025-07-01',
    });
  });

  it('keeps the old tables when the new files do not validate', async () => {
    engine = await startEngine();
    const before = engine.tables;
    await replaceFile(branchFile, (await readFile(branchFile, 'utf8')).replace('250737', '250655'));

    const result = await engine.reload();

    expect(result.type).toBe('reload-failed');
    if (result.type !== 'reload-failed') throw new Error('unreachable');
    expect(result.error).toBeInstanceOf(CdvTableError);
    expect(result.error.message).toMatch(/branches\.csv:9: duplicate branch 250655 \(first on line 8\)/);
    expect(result.version).toBe(before.version);
    expect(engine.tables).toBe(before);
    expect(engine.verify({ branchCode: '250737', accountNumber: '40521009' }).status).toBe('PASSED');
  });

  it('keeps the old tables when a file disappears', async () => {
    engine = await startEngine();
    await rm(parameterFile);
    const result = await engine.reload();
    expect(result).toMatchObject({ type: 'reload-failed', error: { code: 'CONFIG_INVALID' } });
    expect(engine.version.parameters.rows).toBe(12);
  });

  it('says when a reload found the same files', async () => {
    engine = await startEngine();
    const result = await engine.reload();
    expect(result).toMatchObject({ type: 'reloaded', changed: false });
  });

  it('runs overlapping reloads one after the other, in call order', async () => {
    engine = await startEngine();
    const first = engine.reload();
    const second = engine.reload();
    const [a, b] = await Promise.all([first, second]);
    expect(a.type === 'reloaded' && b.type === 'reloaded').toBe(true);
    if (a.type !== 'reloaded' || b.type !== 'reloaded') throw new Error('unreachable');
    expect(b.previous).toBe(a.version);
  });

  it('calls onReload after good and bad reloads with the version in force', async () => {
    const reloads: CdvReloadEvent[] = [];
    engine = await CdvEngine.start({
      parameterFile,
      branchFile,
      exceptionRules: syntheticRegistry(),
      onReload: (event) => reloads.push(event),
    });
    const alsoSubscribed: CdvReloadEvent[] = [];
    const stop = engine.onReload((event) => alsoSubscribed.push(event));

    await writeVersion2();
    await engine.reload();
    await replaceFile(branchFile, 'branch_code\n');
    await engine.reload();
    stop();
    await engine.reload();

    expect(reloads.map((event) => [event.type, event.version.branches.version])).toEqual([
      ['reloaded', '2025.08-synthetic'],
      ['reload-failed', '2025.08-synthetic'],
      ['reload-failed', '2025.08-synthetic'],
    ]);
    expect(alsoSubscribed).toEqual(reloads.slice(0, 2));
    const failure = reloads[1];
    expect(failure?.type === 'reload-failed' && failure.error.message).toMatch(/branches\.csv:1: /);
  });

  it('keeps notifying other listeners when one throws', async () => {
    engine = await startEngine();
    engine.onEvent(() => {
      throw new Error('faulty subscriber');
    });
    const received = nextEvent(engine, 'reloaded');
    await engine.reload();
    await expect(received).resolves.toMatchObject({ type: 'reloaded' });
  });

  it('reloads by itself when the files change while watching', async () => {
    engine = await startEngine();
    engine.watch({ debounceMs: 25 });

    // Both files are replaced; should the debounce split the two renames, the first reload is still valid,
    // so wait for the reload that carries the new branch file.
    const reloaded = nextEvent(
      engine,
      'reloaded',
      (e) => e.type === 'reloaded' && e.version.branches.rows === 11,
    );
    await writeVersion2();
    await expect(reloaded).resolves.toMatchObject({
      trigger: 'watch',
      version: { parameters: { version: '2025.08-synthetic' } },
    });
    expect(engine.verify(newBranchRequest).status).toBe('PASSED');

    const failed = nextEvent(engine, 'reload-failed');
    await replaceFile(parameterFile, 'not a parameter file\n');
    await expect(failed).resolves.toMatchObject({
      trigger: 'watch',
      version: { parameters: { version: '2025.08-synthetic' } },
    });
    expect(engine.version.parameters.version).toBe('2025.08-synthetic');
    expect(engine.verify(newBranchRequest).status).toBe('PASSED');
  });
});

describe('cdvConfig', () => {
  it('reads the file paths from the environment with defaults for the rest', () => {
    const config = loadConfig(cdvConfig, {
      CDV_PARAMETER_FILE: '/etc/cdv/p.csv',
      CDV_BRANCH_FILE: '/etc/cdv/b.csv',
    });
    expect(config).toEqual({
      CDV_PARAMETER_FILE: '/etc/cdv/p.csv',
      CDV_BRANCH_FILE: '/etc/cdv/b.csv',
      CDV_UNKNOWN_EXCEPTION_CODES: 'reject',
      CDV_WATCH: true,
      CDV_WATCH_DEBOUNCE: 500,
    });
    expect(() => loadConfig(cdvConfig, {})).toThrow(/CDV_PARAMETER_FILE/);
  });
});
