import {
  AppError,
  createHealth,
  createLifecycle,
  createLogger,
  createMetrics,
  describeConfig,
  loadConfig,
  watchEventLoopStalls,
} from '@rp/runtime';
import { bankSimulatorConfigSpec } from './config.ts';
import { parseFaultRule } from './faults.ts';
import { createBankSimulator, serviceName } from './service.ts';

const config = loadConfig(bankSimulatorConfigSpec);
const logger = createLogger({ service: serviceName, level: config.LOG_LEVEL });
logger.info({ config: describeConfig(bankSimulatorConfigSpec, config) }, 'configuration');
const health = createHealth();
const metrics = createMetrics({ service: serviceName });
const lifecycle = createLifecycle({ logger, health });
lifecycle.onStop('other', 'stall-watch', watchEventLoopStalls({ metrics, logger }).stop);
lifecycle.installSignalHandlers();

function parseJson(name: string, text: string | undefined): unknown {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new AppError('CONFIG_INVALID', `${name} is not valid JSON`, { cause: error });
  }
}

try {
  const secrets = parseJson('SIGNING_SECRETS', config.SIGNING_SECRETS?.reveal()) ?? {};
  if (
    typeof secrets !== 'object' ||
    secrets === null ||
    !Object.values(secrets).every(
      (list) => Array.isArray(list) && list.every((entry) => typeof entry === 'string'),
    )
  ) {
    throw new AppError('CONFIG_INVALID', 'SIGNING_SECRETS must map member ids to arrays of secrets');
  }
  const faults = parseJson('FAULTS', config.FAULTS) ?? [];
  if (!Array.isArray(faults))
    throw new AppError('CONFIG_INVALID', 'FAULTS must be a JSON array of fault rules');
  const clients = parseJson('OAUTH_CLIENTS', config.OAUTH_CLIENTS?.reveal()) ?? {};
  if (
    typeof clients !== 'object' ||
    clients === null ||
    !Object.values(clients).every((secret) => typeof secret === 'string')
  ) {
    throw new AppError('CONFIG_INVALID', 'OAUTH_CLIENTS must map client ids to secrets');
  }
  const scopes = parseJson('OAUTH_CLIENT_SCOPES', config.OAUTH_CLIENT_SCOPES) ?? {};
  if (
    typeof scopes !== 'object' ||
    scopes === null ||
    !Object.values(scopes).every((scope) => typeof scope === 'string')
  ) {
    throw new AppError('CONFIG_INVALID', 'OAUTH_CLIENT_SCOPES must map client ids to space-separated scopes');
  }
  const simulator = createBankSimulator({
    port: config.PORT,
    ...(config.OAUTH_ISSUER === undefined
      ? {}
      : {
          identity: {
            issuer: config.OAUTH_ISSUER,
            audience: config.OAUTH_AUDIENCE,
            clients: clients as Record<string, string>,
            scopes: scopes as Record<string, string>,
          },
        }),
    ...(config.ENGINE_URL === undefined ? {} : { engineUrl: config.ENGINE_URL }),
    responseDelayMs: config.RESPONSE_DELAY,
    insufficientFundsAccounts: config.INSUFFICIENT_FUNDS_ACCOUNTS ?? [],
    closedAccounts: config.CLOSED_ACCOUNTS ?? [],
    signingSecrets: secrets as Record<string, string[]>,
    ...(config.SIGNATURE_TOLERANCE === undefined
      ? {}
      : { signatureToleranceSeconds: config.SIGNATURE_TOLERANCE }),
    faults: faults.map(parseFaultRule),
    retry: { maxAttempts: config.RESPONSE_MAX_ATTEMPTS },
    requestLogSize: config.REQUEST_LOG_SIZE,
    postingLogSize: config.POSTING_LOG_SIZE,
    messageLogSize: config.MESSAGE_LOG_SIZE,
    logger,
    metrics,
    health,
  });
  await simulator.start();
  lifecycle.onStop('http', 'simulator', () => simulator.stop());
  logger.info({ url: simulator.url, example: simulator.bankUrl('250655') }, 'bank simulator ready');
} catch (error) {
  logger.fatal({ err: error }, 'bank simulator failed to start');
  await lifecycle.shutdown('start-up failed');
  process.exit(1);
}
