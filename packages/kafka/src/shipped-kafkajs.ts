import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/** kafkajs's protocol modules: its encoder, its requests, its record batches and their checksum. */
const protocolDirectory = require.resolve('kafkajs/src/protocol/encoder.js').replace(/encoder\.js$/, '');

/**
 * Runs `load` with kafkajs's protocol modules out of the require cache, so that what it requires of them
 * is kafkajs as shipped: modules evaluated again, new objects that none of this package's changes
 * (`patchKafkajs()`) reached. The cache is put back after, so every client in the process keeps the
 * changed ones. For the tests that hold a change to what it replaces, and the bench that times both.
 */
export function withShippedKafkajs<T>(load: () => T): T {
  const cached = new Map<string, NodeJS.Module>();
  for (const [path, module] of Object.entries(require.cache)) {
    if (module !== undefined && path.startsWith(protocolDirectory)) {
      cached.set(path, module);
      delete require.cache[path];
    }
  }
  try {
    return load();
  } finally {
    for (const path of Object.keys(require.cache))
      if (path.startsWith(protocolDirectory)) delete require.cache[path];
    for (const [path, module] of cached) require.cache[path] = module;
  }
}
