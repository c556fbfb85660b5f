import { cdvVersionLabels } from '@rp/cdv';
import { avroTypeOptions } from '@rp/contracts';
import { clientIdFor, createAvroSerde, createKafka, kafkaMetrics } from '@rp/kafka';
import {
  createPipelineProducer,
  createPlainCodecs,
  loadParticipants,
  resolveTopicNames,
  topicSpecs,
} from '@rp/pipeline';
import {
  AppError,
  createHttpApp,
  type Environment,
  ServiceStartFailed,
  type StartedService,
  type StartOptions,
  serviceBase,
  startHttpServer,
} from '@rp/runtime';
import { connectStore, storeCommandMetrics } from '@rp/store';
import { startCdv } from './cdv.ts';
import { validatorConfigSpec } from './config.ts';
import { consumedTopics, createValidatorService, producedTopics, serviceName } from './service.ts';

/**
 * Starts the validator from `env` and resolves once it answers ready: alone in its process (`main.ts`), or
 * beside the other services in the engine's (`@rp/engine`).
 */
export async function startValidator(env: Environment, options: StartOptions): Promise<StartedService> {
  const { config, logger, health, metrics, lifecycle, tracing } = serviceBase(
    serviceName,
    validatorConfigSpec,
    env,
    options,
  );

  try {
    const participants = loadParticipants(config.PARTICIPANTS);
    const cdv = await startCdv({
      parameterFile: config.CDV_PARAMETER_FILE,
      branchFile: config.CDV_BRANCH_FILE,
      allowSynthetic: config.RP_ALLOW_SYNTHETIC_CDV,
      unknownExceptionCodes: config.CDV_UNKNOWN_EXCEPTION_CODES,
    });
    const tablesInfo = metrics.gauge('rp_cdv_tables_info', 'The CDV tables in force (value 1)', [
      ...Object.keys(cdvVersionLabels(cdv.engine.version)),
      'synthetic',
    ]);
    const showTables = () => {
      tablesInfo.reset();
      tablesInfo.set({ ...cdvVersionLabels(cdv.engine.version), synthetic: String(cdv.synthetic) }, 1);
    };
    showTables();
    if (cdv.synthetic)
      logger.warn({ cdv: cdv.engine.version }, 'CDV uses the SYNTHETIC test tables: never for real accounts');
    else logger.info({ cdv: cdv.engine.version }, 'CDV tables loaded');
    cdv.engine.onEvent((event) => {
      if (event.type === 'reloaded') {
        showTables();
        logger.info({ cdv: event.version, changed: event.changed }, 'CDV tables reloaded');
      } else if (event.type === 'reload-failed') {
        logger.error(
          { err: event.error, kept: event.version },
          'CDV reload rejected; the tables in force stay',
        );
      } else logger.error({ err: event.error }, 'CDV file watch failed');
    });
    if (config.CDV_WATCH && !cdv.synthetic) cdv.engine.watch({ debounceMs: config.CDV_WATCH_DEBOUNCE });
    lifecycle.onStop('other', 'cdv', () => cdv.engine.close());

    const names = resolveTopicNames(config.TOPIC_NAMESPACE);
    const kafka = createKafka({
      tracing,
      brokers: config.KAFKA_BROKERS,
      clientId: clientIdFor(serviceName, 'main'),
      logger,
      ...kafkaMetrics(metrics),
      commitIntervalMs: config.KAFKA_COMMIT_INTERVAL,
      lingerMs: config.KAFKA_LINGER,
      compression: config.KAFKA_COMPRESSION,
      fetch: { minBytes: config.KAFKA_FETCH_MIN_BYTES, maxWaitMs: config.KAFKA_FETCH_MAX_WAIT },
    });
    lifecycle.onStop('other', 'kafka', () => kafka.close());
    await kafka.ensureTopics(
      topicSpecs(names, config.TOPIC_PARTITIONS === undefined ? {} : { partitions: config.TOPIC_PARTITIONS }),
    );
    const serde = createAvroSerde({ registryUrl: config.SCHEMA_REGISTRY_URL, avro: avroTypeOptions() });
    const codecs = await createPlainCodecs(serde, names, [...consumedTopics, ...producedTopics], {
      registryUrl: config.SCHEMA_REGISTRY_URL,
    });
    const producer = createPipelineProducer(kafka, names, codecs, {
      deliveryTimeoutMs: config.KAFKA_DELIVERY_TIMEOUT,
    });
    lifecycle.onStop('producers', 'producer', () => producer.disconnect());

    const store = await connectStore({
      uri: config.MONGODB_URI,
      database: config.MONGODB_DATABASE,
      appName: serviceName,
      logger,
      onCommand: storeCommandMetrics(metrics),
    });
    lifecycle.onStop('store', 'mongodb', () => store.close());
    await store.ensureIndexes();

    const service = createValidatorService({
      kafka,
      names,
      codecs,
      producer,
      store,
      participants,
      accounts: cdv.engine,
      logger,
      metrics,
      options: {
        maxDaysAhead: config.DEBIT_MAX_DAYS_AHEAD,
        keyConcurrency: config.VALIDATOR_KEY_CONCURRENCY,
        partitionsConsumedConcurrently: config.VALIDATOR_PARTITIONS_CONCURRENTLY,
      },
    });
    const app = createHttpApp({ health, metrics, logger, tracing });
    const server = await startHttpServer(app, { port: config.PORT });
    lifecycle.onStop('http', 'server', () => server.close());
    await service.start();
    lifecycle.onStop('consumers', 'validator', () => service.stop());
    health.addCheck('consumers', async () => {
      if (!service.isRunning()) throw new AppError('SHUTTING_DOWN', 'a consumer is not running');
    });
    health.addCheck('mongodb', async () => {
      await store.ping();
    });
    health.markReady();
    logger.info({ url: server.url, participants: participants.size }, 'validator ready');
    return { name: serviceName, logger, lifecycle };
  } catch (error) {
    logger.fatal({ err: error }, 'validator failed to start');
    await lifecycle.shutdown('start-up failed');
    throw new ServiceStartFailed(serviceName, error);
  }
}
