import { cdvVersionLabels } from '@rp/cdv';
import { connectStream, loadParticipants, startProducer } from '@rp/pipeline';
import {
  createHttpApp,
  type Environment,
  type StartedService,
  type StartOptions,
  serveAndRun,
  startService,
} from '@rp/runtime';
import { openServiceStore } from '@rp/store';
import { startCdv } from './cdv.ts';
import { validatorConfigSpec } from './config.ts';
import { consumedTopics, createValidatorService, producedTopics, serviceName } from './service.ts';

/**
 * Starts the validator from `env` and resolves once it answers ready: alone in its process (`main.ts`), or
 * beside the other services in the engine's (`@rp/engine`).
 */
export async function startValidator(env: Environment, options: StartOptions): Promise<StartedService> {
  return startService(serviceName, validatorConfigSpec, env, options, async (base) => {
    const { config, logger, health, metrics, lifecycle, tracing } = base;
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

    const stream = await connectStream(serviceName, base, [...consumedTopics, ...producedTopics]);
    const { kafka, names, codecs } = stream;
    const producer = startProducer(stream, config.KAFKA_DELIVERY_TIMEOUT, lifecycle);

    const store = await openServiceStore(serviceName, base);

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
    const server = await serveAndRun(serviceName, base, app, config.PORT, service);
    logger.info({ url: server.url, participants: participants.size }, 'validator ready');
  });
}
