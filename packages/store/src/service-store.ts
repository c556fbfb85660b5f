import type { ServiceBase } from '@rp/runtime';
import { storeCommandMetrics } from './command-metrics.ts';
import { connectStore, type Store, type StoreOptions } from './store.ts';

/** The settings of `pipelineConfig()` a service's store is opened from. */
export interface StoreSettings {
  readonly MONGODB_URI: string;
  readonly MONGODB_DATABASE: string;
}

type StoreBase = Pick<ServiceBase<StoreSettings>, 'config' | 'logger' | 'metrics' | 'lifecycle' | 'health'>;

/** A service's store options: its settings' server and database, its name, its logger, its command counts. */
export function serviceStoreOptions(
  service: string,
  base: Omit<StoreBase, 'lifecycle' | 'health'>,
): StoreOptions & Required<Pick<StoreOptions, 'onCommand'>> {
  return {
    uri: base.config.MONGODB_URI,
    database: base.config.MONGODB_DATABASE,
    appName: service,
    logger: base.logger,
    onCommand: storeCommandMetrics(base.metrics),
  };
}

/**
 * Opens a service's store (`serviceStoreOptions` with `options` over them): connected, its indexes
 * ensured, closed in its lifecycle's store phase, and a `mongodb` check in its health that pings it.
 */
export async function openServiceStore(
  service: string,
  base: StoreBase,
  options: Partial<Pick<StoreOptions, 'positionCacheSize'>> = {},
): Promise<Store> {
  const store = await connectStore({ ...serviceStoreOptions(service, base), ...options });
  base.lifecycle.onStop('store', 'mongodb', () => store.close());
  await store.ensureIndexes();
  base.health.addCheck('mongodb', async () => {
    await store.ping();
  });
  return store;
}
