import { type Db, type Document, MongoClient, type MongoClientOptions, MongoServerError } from 'mongodb';
import { type AuditDocument, AuditRepository } from './audit.ts';
import { watchCommands } from './command-metrics.ts';
import { guardWrites, pendingWritesOf } from './deadline.ts';
import { type DebitQueueDocument, DebitQueueRepository } from './debit-queue.ts';
import type { DeliveryBatchDocument } from './delivery-batches.ts';
import { type DeliveryLogDocument, DeliveryLogRepository } from './delivery-log.ts';
import { toStoreError } from './errors.ts';
import { type IdempotencyDocument, IdempotencyRepository } from './idempotency.ts';
import { type CollectionName, collectionNames, storeIndexes } from './indexes.ts';
import { defaultStoreLimits, type StoreLimits } from './limits.ts';
import { MonitorWatch } from './monitor-watch.ts';
import { type ReconciliationDocument, ReconciliationRepository } from './reconciliation.ts';
import { type ReconciliationCloseDocument, ReconciliationCloseRepository } from './reconciliation-closes.ts';
import { type TransactionDocument, TransactionRepository } from './transactions.ts';
import { type WindowOverrideDocument, WindowOverrideRepository } from './window-overrides.ts';

/** The subset of a structured logger (pino's shape) the store writes to. */
export interface StoreLogger {
  info(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
  error(fields: Record<string, unknown>, message: string): void;
}

/** One command the driver completed, for metrics (and for tests that count round trips). */
export interface StoreCommandEvent {
  commandName: string;
  databaseName: string;
  durationMs: number;
  ok: boolean;
  /** A write command's collection (`insert`, `update`, `delete`, `findAndModify`). */
  collection?: string;
  /**
   * A write command's statements: an insert's documents, an update's or a delete's statements, one for
   * a findAndModify. What a server does per document, where the command count says what it does per
   * round trip.
   */
  statements?: number;
}

export interface StoreOptions {
  /** MongoDB connection string; it may carry credentials, so it is never logged. */
  uri: string;
  database: string;
  /** Shown in the server's logs and `currentOp`, e.g. the service name. */
  appName: string;
  logger?: StoreLogger;
  /** Connections per server. Default 32: the writers keep 16 operations in flight, readers share the rest. */
  maxPoolSize?: number;
  limits?: Partial<StoreLimits>;
  /** Delivery attempts kept per transaction snapshot and per event posting. Default 20. */
  deliveryAttemptsKept?: number;
  /** Snapshot positions remembered by the transaction writer. Default 100,000 (a few MB). */
  positionCacheSize?: number;
  /** How long to wait for a usable server before an operation fails. Default 10 s. */
  serverSelectionTimeoutMs?: number;
  /** Called for every command the driver completes. Turns on the driver's command monitoring. */
  onCommand?: (event: StoreCommandEvent) => void;
  /**
   * A server check of the driver's monitor in progress this long means the monitor is stuck (see
   * `MonitorWatch`): the client closes and connects again. Default 30 s: a check takes at most the
   * connect timeout (5 s) plus, streaming, the heartbeat interval (10 s).
   */
  monitorStalledAfterMs?: number;
}

export interface Store {
  readonly databaseName: string;
  readonly idempotency: IdempotencyRepository;
  readonly transactions: TransactionRepository;
  readonly debitQueue: DebitQueueRepository;
  readonly reconciliation: ReconciliationRepository;
  readonly deliveryLog: DeliveryLogRepository;
  readonly audit: AuditRepository;
  readonly windowOverrides: WindowOverrideRepository;
  readonly reconciliationCloses: ReconciliationCloseRepository;
  /** For readiness: one round trip to the server, its latency in milliseconds. Throws StoreError. */
  ping(): Promise<number>;
  /** Creates the collections and indexes that are missing; safe to run at every start. */
  ensureIndexes(): Promise<void>;
  /** Index names per collection, as the server reports them. */
  listIndexes(): Promise<Record<CollectionName, string[]>>;
  /**
   * Closes the client's connections and server monitors and connects again (done on its own when a
   * monitor is stuck). Operations meanwhile fail as retriable; the repositories carry on after it.
   */
  reconnect(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Connection settings shared by production and tests. The socket timeout is longer than any
 * operation's server-side limit so the server gives up first and says so, instead of the client
 * abandoning an operation the server keeps running.
 */
export function storeClientOptions(options: StoreOptions, limits: StoreLimits): MongoClientOptions {
  return {
    appName: options.appName,
    maxPoolSize: options.maxPoolSize ?? 32,
    minPoolSize: 2,
    maxConnecting: 4,
    maxIdleTimeMS: 60_000,
    connectTimeoutMS: 5_000,
    serverSelectionTimeoutMS: options.serverSelectionTimeoutMs ?? 10_000,
    socketTimeoutMS: limits.queryMaxTimeMs + 15_000,
    retryReads: true,
    retryWrites: true,
    ignoreUndefined: true,
    monitorCommands: options.onCommand !== undefined,
  };
}

export async function connectStore(options: StoreOptions): Promise<Store> {
  const limits: StoreLimits = { ...defaultStoreLimits, ...options.limits };
  const client = new MongoClient(options.uri, storeClientOptions(options, limits));
  if (options.onCommand !== undefined) watchCommands(client, options.onCommand);
  try {
    await client.connect();
  } catch (error) {
    await client.close().catch(() => undefined);
    throw toStoreError(error, `connect to MongoDB (${redactedHosts(options.uri)})`);
  }
  options.logger?.info({ hosts: redactedHosts(options.uri), database: options.database }, 'store connected');
  return new MongoStore(client, client.db(options.database), options, limits);
}

/** Feeds the driver's heartbeat events of `client` to a watch of its monitors. */
function watchMonitors(client: MongoClient, stalledAfterMs: number): MonitorWatch {
  const watch = new MonitorWatch(stalledAfterMs);
  client.on('serverHeartbeatStarted', (event) => watch.started(event.connectionId, performance.now()));
  client.on('serverHeartbeatSucceeded', (event) => watch.ended(event.connectionId));
  client.on('serverHeartbeatFailed', (event) => watch.ended(event.connectionId));
  return watch;
}

/** How long a close of a stuck client is waited for before it is connected again regardless. */
const closeWaitMs = 10_000;

class MongoStore implements Store {
  readonly databaseName: string;
  readonly idempotency: IdempotencyRepository;
  readonly transactions: TransactionRepository;
  readonly debitQueue: DebitQueueRepository;
  readonly reconciliation: ReconciliationRepository;
  readonly deliveryLog: DeliveryLogRepository;
  readonly audit: AuditRepository;
  readonly windowOverrides: WindowOverrideRepository;
  readonly reconciliationCloses: ReconciliationCloseRepository;
  readonly #client: MongoClient;
  readonly #db: Db;
  readonly #limits: StoreLimits;
  readonly #logger: StoreLogger | undefined;
  readonly #watch: MonitorWatch;
  readonly #watchTimer: NodeJS.Timeout;
  #reconnecting: Promise<void> | undefined;
  /** Closed by a reconnect whose connect has not succeeded yet: the watch tries again. */
  #disconnected = false;
  #closed = false;

  constructor(client: MongoClient, db: Db, options: StoreOptions, limits: StoreLimits) {
    this.#client = client;
    this.#db = db;
    this.#limits = limits;
    this.#logger = options.logger;
    const stalledAfterMs = options.monitorStalledAfterMs ?? 30_000;
    this.#watch = watchMonitors(client, stalledAfterMs);
    this.#watchTimer = setInterval(
      () => this.#checkMonitors(),
      Math.max(100, Math.min(5_000, Math.floor(stalledAfterMs / 3))),
    );
    this.#watchTimer.unref();
    this.databaseName = db.databaseName;
    pendingWritesOf(client, limits.writeGraceAfterConnectionFailureMs).onCutShort((writes, reason) => {
      this.#logger?.warn(
        { database: this.databaseName, writesWaiting: writes },
        `${reason}: the writes waiting fail within ${limits.writeGraceAfterConnectionFailureMs} ms unless answered`,
      );
    });
    const attemptsKept = options.deliveryAttemptsKept ?? 20;
    // What the repositories are given: every write under the deadline (see `guardWrites`).
    const collection = <T extends Document>(name: string) => guardWrites(db.collection<T>(name), limits);
    this.idempotency = new IdempotencyRepository(
      collection<IdempotencyDocument>(collectionNames.idempotencyKeys),
      limits,
    );
    this.transactions = new TransactionRepository(
      collection<TransactionDocument>(collectionNames.transactions),
      {
        limits,
        deliveryAttemptsKept: attemptsKept,
        positionCacheSize: options.positionCacheSize ?? 100_000,
      },
    );
    this.debitQueue = new DebitQueueRepository(
      collection<DebitQueueDocument>(collectionNames.debitQueue),
      limits,
    );
    this.reconciliation = new ReconciliationRepository(
      collection<ReconciliationDocument>(collectionNames.reconciliationItems),
      limits,
    );
    this.deliveryLog = new DeliveryLogRepository(
      {
        entries: collection<DeliveryLogDocument>(collectionNames.eventDeliveryLog),
        batches: collection<DeliveryBatchDocument>(collectionNames.eventDeliveryBatches),
      },
      limits,
      attemptsKept,
    );
    this.audit = new AuditRepository(collection<AuditDocument>(collectionNames.operatorAudit), limits);
    this.windowOverrides = new WindowOverrideRepository(
      collection<WindowOverrideDocument>(collectionNames.windowOverrides),
      limits,
    );
    this.reconciliationCloses = new ReconciliationCloseRepository(
      collection<ReconciliationCloseDocument>(collectionNames.reconciliationCloses),
      limits,
    );
  }

  async ping(): Promise<number> {
    const started = performance.now();
    try {
      await this.#db.command({ ping: 1 }, { signal: AbortSignal.timeout(this.#limits.operationMaxTimeMs) });
      return performance.now() - started;
    } catch (error) {
      throw toStoreError(error, 'ping');
    }
  }

  async ensureIndexes(): Promise<void> {
    try {
      const existing = new Set(
        (await this.#db.listCollections({}, { nameOnly: true }).toArray()).map(
          (collection) => collection.name,
        ),
      );
      for (const [name, indexes] of Object.entries(storeIndexes)) {
        if (!existing.has(name)) await this.#createCollection(name);
        const present = new Set(
          (await this.#db.collection(name).listIndexes().toArray()).map((index) => String(index.name)),
        );
        // One index per command, and only the missing ones: the local server drops the connection when
        // one createIndexes command names several indexes that already exist.
        for (const index of indexes) {
          if (index.name !== undefined && present.has(index.name)) continue;
          await this.#db.collection(name).createIndexes([index], { maxTimeMS: this.#limits.queryMaxTimeMs });
        }
      }
    } catch (error) {
      throw toStoreError(error, 'ensure indexes');
    }
    this.#logger?.info({ database: this.databaseName }, 'store indexes ensured');
  }

  async #createCollection(name: string): Promise<void> {
    try {
      await this.#db.createCollection(name);
    } catch (error) {
      // NamespaceExists: another instance created it first.
      if (!(error instanceof MongoServerError && error.code === 48)) throw error;
    }
  }

  async listIndexes(): Promise<Record<CollectionName, string[]>> {
    const result = {} as Record<CollectionName, string[]>;
    try {
      for (const name of Object.values(collectionNames)) {
        const indexes = await this.#db
          .collection(name)
          .listIndexes()
          .toArray()
          .catch((error: unknown) => {
            // NamespaceNotFound: the collection does not exist yet, so it has no indexes.
            if (error instanceof MongoServerError && error.code === 26) return [];
            throw error;
          });
        result[name] = indexes.map((index) => String(index.name)).sort();
      }
    } catch (error) {
      throw toStoreError(error, 'list indexes');
    }
    return result;
  }

  #checkMonitors(): void {
    if (this.#closed || this.#reconnecting) return;
    if (this.#disconnected) {
      void this.reconnect().catch(() => undefined);
      return;
    }
    const stalled = this.#watch.stalled(performance.now());
    if (stalled.length === 0) return;
    this.#logger?.error(
      { database: this.databaseName, servers: stalled },
      "the MongoDB driver's server monitor is stuck (a check in progress far longer than a check takes); the client reconnects",
    );
    void this.reconnect().catch(() => undefined);
  }

  reconnect(): Promise<void> {
    if (this.#reconnecting === undefined) {
      const attempt = this.#reconnectOnce();
      this.#reconnecting = attempt;
      void attempt
        .finally(() => {
          if (this.#reconnecting === attempt) this.#reconnecting = undefined;
        })
        .catch(() => undefined);
    }
    return this.#reconnecting;
  }

  async #reconnectOnce(): Promise<void> {
    try {
      if (!this.#disconnected) {
        let waited: NodeJS.Timeout | undefined;
        await Promise.race([
          this.#client.close(),
          new Promise((resolve) => {
            waited = setTimeout(resolve, closeWaitMs);
          }),
        ]).finally(() => clearTimeout(waited));
        this.#disconnected = true;
        this.#watch.reset();
      }
      if (this.#closed) return;
      await this.#client.connect();
      this.#disconnected = false;
      this.#logger?.info({ database: this.databaseName }, 'store reconnected');
    } catch (error) {
      this.#logger?.warn(
        { database: this.databaseName, err: error },
        'store not reconnected yet; trying again',
      );
      throw toStoreError(error, 'reconnect');
    }
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    clearInterval(this.#watchTimer);
    await this.#reconnecting?.catch(() => undefined);
    await this.#client.close();
    this.#logger?.info({ database: this.databaseName }, 'store closed');
  }
}

/** Host list of a connection string without credentials or options, safe to log. */
export function redactedHosts(uri: string): string {
  const match = /^mongodb(?:\+srv)?:\/\/(?:[^@/]*@)?([^/?]*)/.exec(uri);
  return match?.[1] ?? 'invalid-uri';
}
