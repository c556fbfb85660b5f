import { readFile } from 'node:fs/promises';
import { MongoClient } from 'mongodb';
import { connectStore, type Store, type StoreCommandEvent, type StoreOptions } from '../src/index.ts';

/**
 * The MongoDB endpoint for integration tests: from @rp/testkit (env, containers or the local stack);
 * when the test kit cannot load, from the running local stack's env file.
 */
export async function testMongodbUri(): Promise<string> {
  if (process.env.MONGODB_URI) return process.env.MONGODB_URI;
  try {
    const { infra } = await import('@rp/testkit');
    return (await infra()).mongodbUri;
  } catch (testkitError) {
    const envFile = new URL('../../../.local/stack.env', import.meta.url);
    const text = await readFile(envFile, 'utf8').catch(() => {
      throw new Error('no MongoDB for integration tests: @rp/testkit failed and the local stack is not up', {
        cause: testkitError,
      });
    });
    const line = text.split('\n').find((entry) => entry.startsWith('MONGODB_URI='));
    if (!line) throw new Error('local stack env file has no MONGODB_URI');
    return line.slice('MONGODB_URI='.length).trim();
  }
}

export async function testDatabaseName(purpose: string): Promise<string> {
  try {
    const { uniqueName } = await import('@rp/testkit');
    return uniqueName(`store-${purpose}`).replace(/-/g, '_');
  } catch {
    return `store_${purpose}_${process.pid}_${Date.now().toString(36)}`.replace(/-/g, '_');
  }
}

export interface TestStore {
  store: Store;
  /** Commands completed so far, by name (`insert`, `update`, `find`, `getMore`, ...). */
  commands: Map<string, number>;
  commandCount(name: string): number;
  resetCommands(): void;
  /** A second store on the same database: another process, with its own caches. */
  openAnother(options?: Partial<StoreOptions>): Promise<Store>;
  /** A plain driver client on the test database, to look at raw documents. */
  raw: MongoClient;
  databaseName: string;
  /** The names of a collection's indexes, as the server lists them. */
  indexNames(collection: string): Promise<string[]>;
  /** Closes every store opened here and drops the test database. */
  dispose(): Promise<void>;
}

/** A store on a database of its own, with command counting; `dispose` drops the database. */
export async function openTestStore(
  purpose: string,
  options: Partial<StoreOptions> = {},
): Promise<TestStore> {
  const uri = await testMongodbUri();
  const databaseName = await testDatabaseName(purpose);
  const commands = new Map<string, number>();
  const count = (event: StoreCommandEvent) =>
    commands.set(event.commandName, (commands.get(event.commandName) ?? 0) + 1);
  const opened: Store[] = [];
  const open = async (extra: Partial<StoreOptions>, counted: boolean) => {
    const store = await connectStore({
      uri,
      database: databaseName,
      appName: `store-test-${purpose}`,
      ...(counted ? { onCommand: count } : {}),
      ...options,
      ...extra,
    });
    opened.push(store);
    return store;
  };
  const store = await open({}, true);
  await store.ensureIndexes();
  const raw = new MongoClient(uri, { socketTimeoutMS: 60_000, serverSelectionTimeoutMS: 10_000 });
  await raw.connect();
  return {
    store,
    commands,
    commandCount: (name) => commands.get(name) ?? 0,
    resetCommands: () => commands.clear(),
    openAnother: (extra = {}) => open(extra, false),
    raw,
    databaseName,
    indexNames: async (collection) =>
      (await raw.db(databaseName).collection(collection).listIndexes().toArray()).map((index) =>
        String(index.name),
      ),
    dispose: async () => {
      for (const each of opened) await each.close();
      await raw.db(databaseName).dropDatabase();
      await raw.close();
    },
  };
}
