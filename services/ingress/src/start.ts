import { connectStream, loadParticipants, startProducer } from '@rp/pipeline';
import {
  AppError,
  type Environment,
  type StartedService,
  type StartOptions,
  startHttpServer,
  startService,
} from '@rp/runtime';
import { openServiceStore } from '@rp/store';
import { ingressConfigSpec } from './config.ts';
import { loadSchemeClients } from './schemes.ts';
import { createIngressService, producedTopics, serviceName } from './service.ts';

/**
 * Starts the ingress from `env` and resolves once it answers ready: alone in its process (`main.ts`), or
 * beside the other services in the engine's (`@rp/engine`).
 */
export async function startIngress(env: Environment, options: StartOptions): Promise<StartedService> {
  return startService(serviceName, ingressConfigSpec, env, options, async (base) => {
    const { config, logger, health, metrics, lifecycle, tracing } = base;
    const participants = loadParticipants(config.PARTICIPANTS);
    const schemes = loadSchemeClients(config.SCHEME_CLIENTS);
    if (schemes.length === 0) {
      logger.warn(
        'no SCHEME_CLIENTS configured: every credit transfer authorisation and inbound off-us direct debit will be refused (401)',
      );
    }
    const stream = await connectStream(serviceName, base, producedTopics, { role: 'http' });
    const producer = startProducer(stream, config.KAFKA_DELIVERY_TIMEOUT, lifecycle);

    const store = await openServiceStore(serviceName, base);

    const service = createIngressService({
      tracing,
      ...(config.BANK_AUTH === 'oauth2'
        ? {
            bankAuth: {
              jwks: new URL(required(config.BANK_AUTH_JWKS_URL, 'BANK_AUTH_JWKS_URL')),
              issuer: required(config.BANK_AUTH_ISSUER, 'BANK_AUTH_ISSUER'),
              audience: config.BANK_AUTH_AUDIENCE,
            },
          }
        : {}),
      maxInFlight: config.MAX_IN_FLIGHT,
      claimCacheSize: config.CLAIM_CACHE_SIZE,
      acceptedCacheSize: config.ACCEPTED_CACHE_SIZE,
      ...(config.IDEMPOTENCY_RETENTION === undefined
        ? {}
        : { idempotencyRetentionMs: config.IDEMPOTENCY_RETENTION }),
      ...(config.SENDER_RATE_LIMIT === undefined
        ? {}
        : {
            rateLimit: {
              perSecond: config.SENDER_RATE_LIMIT,
              burst: config.SENDER_RATE_BURST ?? config.SENDER_RATE_LIMIT,
            },
          }),
      producer,
      store,
      participants,
      schemes,
      logger,
      metrics,
      health,
      retryAfterSeconds: Math.ceil(config.RETRY_AFTER / 1000),
    });
    await service.start();
    const server = await startHttpServer(service.app, {
      port: config.PORT,
      closeTimeoutMs: config.SHUTDOWN_TIMEOUT,
    });
    lifecycle.onStop('http', 'server', async () => {
      await service.stop();
      await server.close();
    });
    health.markReady();
    logger.info(
      {
        url: server.url,
        participants: participants.size,
        schemes: schemes.map((scheme) => scheme.id),
        bankAuth: config.BANK_AUTH,
      },
      'ingress ready',
    );
    if (config.BANK_AUTH === 'message') {
      logger.warn(
        'BANK_AUTH=message: banks are named by their messages and nothing proves it; development only',
      );
    }
  });
}

function required(value: string | undefined, name: string): string {
  if (value === undefined) {
    throw new AppError(
      'CONFIG_INVALID',
      `${name} is required with BANK_AUTH=oauth2 (BANK_AUTH=message identifies banks by their messages, for development only)`,
    );
  }
  return value;
}
