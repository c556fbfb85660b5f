import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import {
  componentDataDir,
  componentLogFile,
  componentPidFile,
  type StackConfig,
  versions,
} from '../config.ts';
import { endpointsFor } from '../env-file.ts';
import { StackError } from '../errors.ts';
import { registryAnswers } from '../health.ts';
import { findJavaHome } from '../java.ts';
import { readPidFile, runCommand, spawnDetached, stopProcess } from '../process.ts';
import { type Component, cachedStep, mavenRepository, processMarker, withMavenLock } from './component.ts';

const artifact = `io.apicurio:apicurio-registry-app:${versions.apicurio}:tar.gz:all`;

function registryHome(config: StackConfig): string {
  return join(config.cacheDir, `apicurio-${versions.apicurio}`);
}

/** Where the unpacked archive keeps its launcher; recorded at unpack time so a start need not search. */
function launcherRecord(config: StackConfig): string {
  return join(registryHome(config), 'launcher');
}

function findFile(dir: string, name: string, depth = 4): string | undefined {
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry);
    if (entry === name) return path;
    if (depth > 0 && statSync(path).isDirectory()) {
      const found = findFile(path, name, depth - 1);
      if (found) return found;
    }
  }
  return undefined;
}

export const registryComponent: Component = {
  name: 'registry',
  ports: (config) => [config.ports.registry],
  startTimeoutMs: 180_000,

  async prepare(context) {
    const { config } = context;
    await cachedStep(context, 'download', registryHome(config), async (dir) => {
      await context.time('download', async () => {
        const result = await withMavenLock(config, () =>
          runCommand(
            'mvn',
            [
              '-q',
              '-B',
              `-Dmaven.repo.local=${mavenRepository(config)}`,
              'dependency:get',
              '-Dtransitive=false',
              `-Dartifact=${artifact}`,
            ],
            { cwd: dir, env: config.env },
          ),
        );
        if (result.code !== 0) {
          throw new StackError('download_failed', `mvn could not fetch ${artifact}:\n${result.output}`);
        }
      });
      await context.time('unpack', async () => {
        const archive = join(
          mavenRepository(config),
          'io/apicurio/apicurio-registry-app',
          versions.apicurio,
          `apicurio-registry-app-${versions.apicurio}-all.tar.gz`,
        );
        const result = await runCommand('tar', ['-xzf', archive, '-C', dir]);
        const launcher = result.code === 0 ? findFile(dir, 'quarkus-run.jar') : undefined;
        if (!launcher) {
          throw new StackError('download_failed', `could not unpack ${archive}:\n${result.output}`);
        }
        writeFileSync(launcherRecord(config), relative(dir, launcher));
      });
    });
  },

  async start(context) {
    const { config } = context;
    const javaHome = findJavaHome(21, config.env);
    const launcher = join(registryHome(config), readFileSync(launcherRecord(config), 'utf8').trim());
    if (!existsSync(launcher)) {
      throw new StackError(
        'start_failed',
        `${launcher} is missing; delete ${registryHome(config)} to fetch it again`,
      );
    }
    const dataDir = componentDataDir(config, 'registry');
    mkdirSync(dataDir, { recursive: true });
    // Schemas live in an H2 file, not in memory: ids written into Kafka records must mean the same
    // schema after a restart.
    const datasource = `jdbc:h2:file:${join(dataDir, 'registry')};DB_CLOSE_ON_EXIT=FALSE`;
    context.log(`registry: Java from ${javaHome}`);
    return spawnDetached(
      join(javaHome, 'bin', 'java'),
      [
        '-Xms128m',
        '-Xmx512m',
        '-Dquarkus.http.host=127.0.0.1',
        `-Dquarkus.http.port=${config.ports.registry}`,
        // Quarkus' management interface (health, metrics) is built in and would take 0.0.0.0:9000, so
        // two stacks would collide there: it gets a free port on loopback instead.
        '-Dquarkus.management.host=127.0.0.1',
        '-Dquarkus.management.port=0',
        `-Dapicurio.datasource.url=${datasource}`,
        '-jar',
        launcher,
      ],
      { cwd: dataDir, env: config.env, logFile: componentLogFile(config, 'registry') },
    );
  },

  answers: (config, timeoutMs) => registryAnswers(endpointsFor(config.ports).schemaRegistryUrl, timeoutMs),
  readPid: (config) => readPidFile(componentPidFile(config, 'registry')),
  stop: (config, pid, force) => stopProcess(pid, processMarker(config), force ? 0 : 20_000),
};
