import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  componentDataDir,
  componentLogFile,
  componentPidFile,
  type StackConfig,
  versions,
} from '../config.ts';
import { StackError } from '../errors.ts';
import { kafkaAnswers } from '../health.ts';
import { readPidFile, runCommand, spawnDetached, stopProcess, tailFile } from '../process.ts';
import { type Component, cachedStep, mavenRepository, processMarker, withMavenLock } from './component.ts';

function kafkaHome(config: StackConfig): string {
  return join(config.cacheDir, `kafka-${versions.kafka}`);
}

/** Just enough of a project for Maven to resolve the broker and a logging backend for its log4j calls. */
function runtimePom(): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>local.stack</groupId>
  <artifactId>kafka-runtime</artifactId>
  <version>${versions.kafka}</version>
  <packaging>pom</packaging>
  <dependencies>
    <dependency>
      <groupId>org.apache.kafka</groupId>
      <artifactId>kafka_2.13</artifactId>
      <version>${versions.kafka}</version>
    </dependency>
    <dependency>
      <groupId>org.slf4j</groupId>
      <artifactId>slf4j-reload4j</artifactId>
      <version>1.7.36</version>
    </dependency>
  </dependencies>
</project>
`;
}

/** Where the stack's broker keeps its partitions: a directory `<topic>-<partition>` each. */
export function kafkaLogDir(config: StackConfig): string {
  return join(componentDataDir(config, 'kafka'), 'kraft');
}

/**
 * Single-node KRaft: one process is broker and controller. Topics are declared by the pipeline, never
 * created by a typo (auto-create off); replication factors are 1 because there is one broker; the
 * first consumer of a group starts at once instead of waiting for others to join.
 */
export function serverProperties(config: StackConfig, logDirs: string): string {
  const { kafka, kafkaController } = config.ports;
  return [
    'process.roles=broker,controller',
    'node.id=1',
    `controller.quorum.voters=1@127.0.0.1:${kafkaController}`,
    `listeners=PLAINTEXT://127.0.0.1:${kafka},CONTROLLER://127.0.0.1:${kafkaController}`,
    `advertised.listeners=PLAINTEXT://127.0.0.1:${kafka}`,
    'controller.listener.names=CONTROLLER',
    'listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT',
    'inter.broker.listener.name=PLAINTEXT',
    `log.dirs=${logDirs}`,
    'num.partitions=1',
    'offsets.topic.replication.factor=1',
    'transaction.state.log.replication.factor=1',
    'transaction.state.log.min.isr=1',
    'group.initial.rebalance.delay.ms=0',
    'auto.create.topics.enable=false',
    '',
  ].join('\n');
}

/** Everything to stdout, which the launcher sends to the stack's kafka.log. */
const log4jProperties = `log4j.rootLogger=INFO, stdout
log4j.appender.stdout=org.apache.log4j.ConsoleAppender
log4j.appender.stdout.layout=org.apache.log4j.PatternLayout
log4j.appender.stdout.layout.ConversionPattern=[%d] %p %m (%c)%n
log4j.logger.kafka.request.logger=WARN
log4j.logger.org.apache.kafka.clients=WARN
`;

/** A Kafka cluster id: 16 random bytes, base64url without padding, never starting with '-'. */
export function newClusterId(): string {
  for (;;) {
    const id = randomBytes(16).toString('base64url');
    if (!id.startsWith('-')) return id;
  }
}

/**
 * How far the broker got loading its partitions' logs at start, from its log's progress lines
 * ("... (5754/7063 completed in <dir>)"): the last one's counts, or undefined when it has none.
 */
export function partitionsLoaded(logText: string): { loaded: number; total: number } | undefined {
  let last: { loaded: number; total: number } | undefined;
  for (const match of logText.matchAll(/\((\d+)\/(\d+) completed in [^)]*\)/g))
    last = { loaded: Number(match[1]), total: Number(match[2]) };
  return last;
}

export const kafkaComponent: Component = {
  name: 'kafka',
  ports: (config) => [config.ports.kafka, config.ports.kafkaController],
  startTimeoutMs: 120_000,

  slowStartHint(config) {
    const progress = partitionsLoaded(tailFile(componentLogFile(config, 'kafka'), 200));
    if (progress === undefined) return undefined;
    return `it was still loading the logs of its partitions (${progress.loaded} of ${progress.total}); each topic a run leaves is more of them: \`rp stack reset\` deletes them all`;
  },

  async prepare(context) {
    const { config } = context;
    await cachedStep(context, 'download', kafkaHome(config), (dir) =>
      context.time('download', async () => {
        writeFileSync(join(dir, 'pom.xml'), runtimePom());
        const result = await withMavenLock(config, () =>
          runCommand(
            'mvn',
            [
              '-q',
              '-B',
              `-Dmaven.repo.local=${mavenRepository(config)}`,
              'dependency:copy-dependencies',
              '-DincludeScope=runtime',
              '-DoutputDirectory=lib',
            ],
            { cwd: dir, env: config.env },
          ),
        );
        const broker = join(dir, 'lib', `kafka_2.13-${versions.kafka}.jar`);
        if (result.code !== 0 || !existsSync(broker)) {
          throw new StackError(
            'download_failed',
            `mvn could not fetch Kafka ${versions.kafka}:\n${result.output}`,
          );
        }
        context.log(`kafka: ${readdirSync(join(dir, 'lib')).length} jars in ${join(dir, 'lib')}`);
      }),
    );
  },

  async start(context) {
    const { config } = context;
    const dataDir = componentDataDir(config, 'kafka');
    const logDirs = kafkaLogDir(config);
    const propertiesFile = join(dataDir, 'server.properties');
    const log4jFile = join(dataDir, 'log4j.properties');
    mkdirSync(logDirs, { recursive: true });
    writeFileSync(propertiesFile, serverProperties(config, logDirs));
    writeFileSync(log4jFile, log4jProperties);
    const classpath = join(kafkaHome(config), 'lib', '*');
    const logConfig = `-Dlog4j.configuration=file:${log4jFile}`;

    if (!existsSync(join(logDirs, 'meta.properties'))) {
      const clusterIdFile = join(dataDir, 'cluster-id');
      if (!existsSync(clusterIdFile)) writeFileSync(clusterIdFile, newClusterId());
      const clusterId = readFileSync(clusterIdFile, 'utf8').trim();
      await context.time('format', async () => {
        const result = await runCommand(
          'java',
          [
            logConfig,
            '-cp',
            classpath,
            'kafka.tools.StorageTool',
            'format',
            '-t',
            clusterId,
            '-c',
            propertiesFile,
            '--ignore-formatted',
          ],
          { env: config.env },
        );
        if (result.code !== 0) {
          throw new StackError('start_failed', `kafka storage format failed:\n${result.output}`);
        }
      });
    }

    return spawnDetached(
      'java',
      [
        '-Xms256m',
        '-Xmx512m',
        '-Djava.awt.headless=true',
        logConfig,
        '-cp',
        classpath,
        'kafka.Kafka',
        propertiesFile,
      ],
      { cwd: dataDir, env: config.env, logFile: componentLogFile(config, 'kafka') },
    );
  },

  answers: (config, timeoutMs) => kafkaAnswers(`127.0.0.1:${config.ports.kafka}`, timeoutMs),
  readPid: (config) => readPidFile(componentPidFile(config, 'kafka')),
  // A clean shutdown lets the next start skip log recovery; it takes a few seconds on one node.
  stop: (config, pid, force) => stopProcess(pid, processMarker(config), force ? 0 : 30_000),
};
