import { Kafka, logLevel } from 'kafkajs';
import { MongoClient } from 'mongodb';
import { quietKafkaJsTimerWarning } from './health.ts';

/** Where the topics, databases and schemas to drop live: a stack's, a cluster's, a test run's. */
export interface PruneTarget {
  readonly kafkaBrokers: readonly string[];
  readonly mongodbUri: string;
  /** The registry's Confluent-compatible API; without it no subject is deleted. */
  readonly schemaRegistryUrl?: string;
}

/** What `dropOwned` dropped, by name. */
export interface Dropped {
  readonly topics: readonly string[];
  readonly databases: readonly string[];
  /** Registry subjects (`<topic>-value`), deleted for good. */
  readonly subjects: readonly string[];
}

/** Topics deleted in one request: a broker takes a list, and a test run leaves hundreds. */
const topicsARequest = 100;
/** Databases dropped at once: each is a schema of tables and indexes on the stand-in. */
const databasesAtOnce = 4;

/**
 * Deletes the topics, MongoDB databases and registry subjects whose names `owned` accepts, and nothing
 * else: what a test run, an end-to-end pipeline or a benchmark created under names of its own, once it
 * is done with them. Without it every run leaves its partitions behind, and a local broker that has to
 * load thousands of them at start takes longer than its start is given. Topics go first, then the
 * subjects named after them, then databases; one already gone is not an error. Kafka's own topics and
 * the MongoDB system databases are never dropped.
 */
export async function dropOwned(
  target: PruneTarget,
  owned: (name: string) => boolean,
  options: { readonly timeoutMs?: number } = {},
): Promise<Dropped> {
  const timeoutMs = options.timeoutMs ?? 60_000;
  const topics = await dropTopics(target.kafkaBrokers, owned, timeoutMs);
  const subjects =
    target.schemaRegistryUrl === undefined
      ? []
      : await dropSubjects(target.schemaRegistryUrl, owned, timeoutMs);
  const databases = await dropDatabases(target.mongodbUri, owned, timeoutMs);
  return { topics, databases, subjects };
}

/**
 * Deletes subjects for good: the Confluent API first marks one deleted (its versions stay readable by id),
 * then takes it away with `permanent=true`. A subject already gone (404) is not an error.
 */
async function dropSubjects(
  baseUrl: string,
  owned: (name: string) => boolean,
  timeoutMs: number,
): Promise<string[]> {
  const call = async (method: 'GET' | 'DELETE', path: string): Promise<unknown> => {
    const response = await fetch(`${baseUrl}${path}`, { method, signal: AbortSignal.timeout(timeoutMs) });
    const text = await response.text();
    if (response.status === 404 && method === 'DELETE') return undefined;
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text.slice(0, 200)}`);
    return text === '' ? undefined : JSON.parse(text);
  };
  const subjects = ((await call('GET', '/subjects')) as string[]).filter(owned);
  for (const subject of subjects) {
    const path = `/subjects/${encodeURIComponent(subject)}`;
    await call('DELETE', path);
    await call('DELETE', `${path}?permanent=true`);
  }
  return subjects;
}

async function dropTopics(
  brokers: readonly string[],
  owned: (name: string) => boolean,
  timeoutMs: number,
): Promise<string[]> {
  quietKafkaJsTimerWarning();
  const admin = new Kafka({
    clientId: 'rp-prune',
    brokers: [...brokers],
    logLevel: logLevel.NOTHING,
    requestTimeout: timeoutMs,
    // A broker that does not answer fails the drop in seconds, not after kafkajs's minute of retries.
    connectionTimeout: 10_000,
    retry: { retries: 2 },
  }).admin();
  await admin.connect();
  try {
    // Kafka's own topics (`__consumer_offsets`, ...) are never a run's.
    const topics = (await admin.listTopics()).filter((topic) => !topic.startsWith('__') && owned(topic));
    for (let start = 0; start < topics.length; start += topicsARequest) {
      const chunk = topics.slice(start, start + topicsARequest);
      try {
        await admin.deleteTopics({ topics: chunk, timeout: timeoutMs });
      } catch (error) {
        // One topic of the request gone meanwhile fails the request: the rest one at a time.
        if (!isUnknownTopic(error)) throw error;
        for (const topic of chunk) {
          await admin.deleteTopics({ topics: [topic], timeout: timeoutMs }).catch((single: unknown) => {
            if (!isUnknownTopic(single)) throw single;
          });
        }
      }
    }
    return topics;
  } finally {
    await admin.disconnect().catch(() => undefined);
  }
}

function isUnknownTopic(error: unknown): boolean {
  const text = (value: unknown) =>
    value instanceof Error ? `${value.name} ${value.message}` : String(value);
  const causes = (error as { errors?: unknown[] } | undefined)?.errors ?? [];
  return [error, ...causes].some((item) =>
    /UNKNOWN_TOPIC_OR_PARTITION|does not host this topic/i.test(text(item)),
  );
}

const systemDatabases = new Set(['admin', 'config', 'local']);

async function dropDatabases(
  uri: string,
  owned: (name: string) => boolean,
  timeoutMs: number,
): Promise<string[]> {
  const client = new MongoClient(uri, { serverSelectionTimeoutMS: timeoutMs, socketTimeoutMS: timeoutMs });
  try {
    await client.connect();
    const listed = await client.db('admin').admin().listDatabases({ nameOnly: true });
    const names = listed.databases
      .map((database) => database.name)
      .filter((name) => !systemDatabases.has(name) && owned(name));
    let next = 0;
    const dropper = async () => {
      while (next < names.length) {
        const name = names[next] as string;
        next += 1;
        await client.db(name).dropDatabase();
      }
    };
    await Promise.all(Array.from({ length: Math.min(databasesAtOnce, names.length) }, dropper));
    return names;
  } finally {
    await client.close().catch(() => undefined);
  }
}
