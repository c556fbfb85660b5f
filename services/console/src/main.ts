import {
  AppError,
  clientCredentialsTokens,
  createHttpApp,
  operatorAuthenticatorFrom,
  serviceBase,
  startHttpServer,
} from '@rp/runtime';
import { consoleConfigSpec } from './config.ts';
import { createConsoleService, serviceName } from './service.ts';

const { config, logger, health, metrics, lifecycle, tracing } = serviceBase(
  serviceName,
  consoleConfigSpec,
  process.env,
  {
    signals: true,
  },
);

try {
  const operatorAuth = operatorAuthenticatorFrom(config);
  const tokenUrl = config.ADMIN_AUTH_TOKEN_URL;
  const clientId = config.ADMIN_CLIENT_ID;
  const clientSecret = config.ADMIN_CLIENT_SECRET;
  if ((clientId === undefined) !== (clientSecret === undefined) || (clientId && !tokenUrl)) {
    throw new AppError(
      'CONFIG_INVALID',
      'ADMIN_CLIENT_ID and ADMIN_CLIENT_SECRET go together, with ADMIN_AUTH_TOKEN_URL',
    );
  }
  const service = createConsoleService({
    urls: {
      ingress: config.INGRESS_URL,
      validator: config.VALIDATOR_URL,
      scheduler: config.SCHEDULER_URL,
      dispatcher: config.DISPATCHER_URL,
      tracker: config.TRACKER_URL,
      'event-publisher': config.EVENT_PUBLISHER_URL,
    },
    upstreamTimeoutMs: config.UPSTREAM_TIMEOUT,
    ...(clientId === undefined || clientSecret === undefined || tokenUrl === undefined
      ? {}
      : {
          upstreamAuthorization: clientCredentialsTokens({
            tokenUrl,
            clientId,
            clientSecret: clientSecret.reveal(),
            scope: config.ADMIN_CLIENT_SCOPE,
            audience: config.ADMIN_AUTH_AUDIENCE,
          }),
        }),
    ...(operatorAuth === undefined ? {} : { operatorAuth }),
    ...(tokenUrl === undefined || operatorAuth === undefined
      ? {}
      : { signIn: { tokenUrl, audience: config.ADMIN_AUTH_AUDIENCE } }),
    logger,
    metrics,
  });
  const app = createHttpApp({ health, metrics, logger, tracing });
  app.route('/', service.app);
  const server = await startHttpServer(app, { port: config.PORT, closeTimeoutMs: config.SHUTDOWN_TIMEOUT });
  lifecycle.onStop('http', 'server', () => server.close());
  // Ready as soon as it serves: the other services not answering is what the console is there to show.
  health.markReady();
  logger.info({ url: `${server.url}/console/` }, 'console ready');
} catch (error) {
  logger.fatal({ err: error }, 'console failed to start');
  await lifecycle.shutdown('start-up failed');
  process.exit(1);
}
