import { type Collection, MongoBulkWriteError, MongoServerError } from 'mongodb';
import { DUPLICATE_KEY, onlyDuplicateKeys, StoreError, toStoreError } from './errors.ts';
import { GroupCommit, type Settled } from './group-commit.ts';
import { chunk, type StoreLimits } from './limits.ts';
import { deleteFoundById, ensureIndexOnce } from './retention.ts';

/**
 * What the claim of a UETR records of the transaction it starts: its kind and the member ids of its
 * agents, enough to admit the banks' answers to it without reading the transaction back.
 */
export interface ClaimedTransaction {
  /** The kind of the message that started it (its schema's name, e.g. `DirectDebit`). */
  kind: string;
  debtorAgentMemberId?: string;
  creditorAgentMemberId?: string;
}

export interface IdempotencyClaim {
  /** The message identification (or another key the caller scopes, e.g. `${memberId}:${msgId}`). */
  key: string;
  /** Hash of the canonical payload: same key with another hash is a conflict. */
  payloadHash: string;
  uetr: string;
  receivedAt: Date;
  /** The claim of a transaction's UETR: what it records of the transaction. */
  transaction?: ClaimedTransaction;
}

export interface IdempotencyRecord {
  key: string;
  payloadHash: string;
  uetr: string;
  receivedAt: Date;
  /** Absent for a message's claim, and for a UETR claimed before transactions were recorded with it. */
  transaction?: ClaimedTransaction;
}

export type ClaimOutcome =
  | { outcome: 'new' }
  | { outcome: 'duplicate'; record: IdempotencyRecord }
  | { outcome: 'conflict'; record: IdempotencyRecord };

interface IdempotencyDocument {
  _id: string;
  payloadHash: string;
  uetr: string;
  receivedAt: Date;
  transaction?: ClaimedTransaction;
}

/**
 * The key that holds a UETR for the message that started its transaction (claimed with that message's
 * payload hash): a second message naming the same UETR is a conflict. The ingress claims it; the tracker
 * reads it to tell a transaction received and not yet recorded from one it never heard of. The prefix
 * keeps it apart from message claims, whose keys start with a member id or `scheme:` (and from the
 * ingress's `produced:` markers).
 */
export function transactionKey(uetr: string): string {
  return `transaction:${uetr}`;
}

/** The prefix of the keys that hold UETRs (`transactionKey`): a purge leaves them. */
const transactionKeyPrefix = /^transaction:/;
/** The index a purge finds its keys by. */
const purgeIndex = { key: { receivedAt: 1 }, name: 'receivedAt_1' } as const;
/** Deletes a purge sends in one command (the local server's bulk writes are kept small). */
const purgeChunk = 25;

/** What one insert of a grouped claim came to: stored, or its key was taken already (nothing written). */
type InsertFate = 'inserted' | 'duplicate';

/**
 * Idempotency the Mojaloop way: the first claim of a key wins; a later claim with the same payload
 * hash is a duplicate (answer as the first time), with another hash a conflict. One insert by `_id` on
 * the happy path, in one command with the other claims made at the same moment (a group commit); a
 * second round trip only when the key is already there.
 */
export class IdempotencyRepository {
  readonly #collection: Collection<IdempotencyDocument>;
  readonly #limits: StoreLimits;
  /** Each request: the documents of one `claim` or `claimBoth`, never split between commands. */
  readonly #claims: GroupCommit<readonly IdempotencyDocument[], InsertFate[]>;

  constructor(collection: Collection<IdempotencyDocument>, limits: StoreLimits) {
    this.#collection = collection;
    this.#limits = limits;
    this.#claims = new GroupCommit((requests) => this.#insertGroup(requests), {
      maxBatch: limits.bulkInsertSize,
      maxInFlight: Math.max(1, Math.floor(limits.writeConcurrency / 4)),
      weight: (documents) => documents.length,
    });
  }

  async claim(claim: IdempotencyClaim): Promise<ClaimOutcome> {
    checkClaim(claim);
    const [fate] = await this.#claims.submit([toDocument(claim)]);
    return fate === 'inserted' ? { outcome: 'new' } : this.#existing(claim);
  }

  /**
   * Two claims in one command: `first`, and `second` only when `first` is new (a message's claim, then
   * the UETR of the transaction it starts). `second` is undefined when `first` was not new: it counts as
   * not attempted (the claim this call made of it is taken back, so a UETR is only held by a message that
   * was claimed), and the caller claims it on its own if it still needs it (a first attempt may have
   * stopped between the two). Same outcomes as two `claim` calls in a row, one round trip fewer on the
   * happy path.
   */
  async claimBoth(
    first: IdempotencyClaim,
    second: IdempotencyClaim,
  ): Promise<{ first: ClaimOutcome; second?: ClaimOutcome }> {
    checkClaim(first);
    checkClaim(second);
    const [firstFate, secondFate] = await this.#claims.submit([toDocument(first), toDocument(second)]);
    if (firstFate === 'inserted') {
      return {
        first: { outcome: 'new' },
        second: secondFate === 'inserted' ? { outcome: 'new' } : await this.#existing(second),
      };
    }
    if (secondFate === 'inserted') await this.#release(second);
    return { first: await this.#existing(first) };
  }

  /** Takes back a claim this repository made, only if it is still that claim (its hash and instant). */
  async #release(claim: IdempotencyClaim): Promise<void> {
    try {
      await this.#collection.deleteOne(
        { _id: claim.key, payloadHash: claim.payloadHash, receivedAt: claim.receivedAt },
        { maxTimeMS: this.#limits.operationMaxTimeMs },
      );
    } catch (error) {
      throw toStoreError(error, `take back idempotency key ${claim.key}`);
    }
  }

  /**
   * One unordered insert of every request's documents. A duplicate key is an answer, not a failure; any
   * other error the server names for a document fails that document's request alone. An error without
   * per-document detail (the connection, a timeout) fails them all: a retried claim of a document that
   * went in comes back as a duplicate with its own hash.
   */
  async #insertGroup(
    requests: readonly (readonly IdempotencyDocument[])[],
  ): Promise<Settled<InsertFate[]>[]> {
    const documents = requests.flat();
    let refused = new Map<number, { code?: number; errmsg?: string }>();
    try {
      await this.#collection.insertMany(documents, {
        ordered: false,
        maxTimeMS: this.#limits.operationMaxTimeMs,
      });
    } catch (error) {
      refused = perDocumentErrors(error) ?? fail(error);
    }
    let index = 0;
    return requests.map((request) => {
      const fates: InsertFate[] = [];
      let failure: unknown;
      for (const document of request) {
        const writeError = refused.get(index);
        index += 1;
        if (writeError === undefined) fates.push('inserted');
        else if (writeError.code === DUPLICATE_KEY || writeError.code === 11001) fates.push('duplicate');
        else
          failure ??= toStoreError(
            // As a server error, so that its code (or a backing-database failure in its message) is classified.
            new MongoServerError({ message: writeError.errmsg ?? '', code: writeError.code }),
            `claim idempotency key ${document._id}`,
          );
      }
      return failure === undefined ? { ok: true, value: fates } : { ok: false, error: failure };
    });

    function fail(error: unknown): never {
      throw toStoreError(error, `claim ${documents.length} idempotency keys`);
    }
  }

  /**
   * Claims many keys without their outcomes, in one unordered insert command per `bulkInsertSize`: for
   * keys whose later claims need no answer (the ingress's "produced" markers). A key taken already is
   * left as it is. Resolves once every claim is in; a failure leaves the claims that went in in place.
   */
  async claimMany(claims: readonly IdempotencyClaim[]): Promise<void> {
    for (const claim of claims) checkClaim(claim);
    for (const group of chunk(claims, this.#limits.bulkInsertSize)) {
      try {
        await this.#collection.insertMany(group.map(toDocument), {
          ordered: false,
          maxTimeMS: this.#limits.operationMaxTimeMs,
        });
      } catch (error) {
        if (!onlyDuplicateKeys(error)) throw toStoreError(error, `claim ${group.length} idempotency keys`);
      }
    }
  }

  /**
   * The outcome of a claim whose key is taken: a duplicate with the same payload hash, else a conflict.
   * A key gone between the insert and the read was purged past its retention at that moment: it is
   * claimed again, once.
   */
  async #existing(claim: IdempotencyClaim, again = true): Promise<ClaimOutcome> {
    const record = await this.get(claim.key);
    if (record === null) {
      if (again) {
        const [fate] = await this.#claims.submit([toDocument(claim)]);
        return fate === 'inserted' ? { outcome: 'new' } : this.#existing(claim, false);
      }
      // Gone twice in a row: something removes keys behind the store's back. Refuse rather than accept
      // the message twice.
      throw new StoreError(
        'inconsistent',
        `idempotency key ${claim.key} reported as duplicate but not found`,
      );
    }
    return record.payloadHash === claim.payloadHash
      ? { outcome: 'duplicate', record }
      : { outcome: 'conflict', record };
  }

  /**
   * Deletes at most `limit` message claims and "produced" markers received before `before`; returns how
   * many. The keys of UETRs (`transactionKey`) stay whatever their age: they keep a UETR to the one
   * transaction it names, and admit the banks' reports on it without reading its snapshot. A message sent
   * again after its claim went is taken as new (a message that starts a transaction is still known by its
   * UETR's key). Found by the index `ensurePurgeIndex` makes on MongoDB (the local stand-in scans), deleted
   * by `_id` under the same filter 25 a command, so a key claimed again after another purge took it stays.
   */
  async purge(before: Date, limit: number): Promise<number> {
    try {
      return await deleteFoundById(
        this.#collection,
        { receivedAt: { $lt: before }, _id: { $not: transactionKeyPrefix } },
        { limit, chunkSize: purgeChunk, limits: this.#limits },
      );
    } catch (error) {
      throw toStoreError(error, `purge idempotency keys received before ${before.toISOString()}`);
    }
  }

  /** Creates the index the purge finds its keys by (`receivedAt_1`), unless it is there: only for a purge. */
  async ensurePurgeIndex(): Promise<void> {
    await ensureIndexOnce(this.#collection, purgeIndex, this.#limits, 'the idempotency keys purge index');
  }

  async get(key: string): Promise<IdempotencyRecord | null> {
    try {
      const document = await this.#collection.findOne(
        { _id: key },
        { maxTimeMS: this.#limits.operationMaxTimeMs },
      );
      return document === null
        ? null
        : {
            key: document._id,
            payloadHash: document.payloadHash,
            uetr: document.uetr,
            receivedAt: document.receivedAt,
            ...(document.transaction ? { transaction: claimedTransactionOf(document.transaction) } : {}),
          };
    } catch (error) {
      throw toStoreError(error, `read idempotency key ${key}`);
    }
  }
}

function checkClaim(claim: IdempotencyClaim): void {
  if (!claim.key || !claim.payloadHash) {
    throw new StoreError('invalid-input', 'idempotency claim needs a key and a payload hash');
  }
}

function toDocument(claim: IdempotencyClaim): IdempotencyDocument {
  return {
    _id: claim.key,
    payloadHash: claim.payloadHash,
    uetr: claim.uetr,
    receivedAt: claim.receivedAt,
    ...(claim.transaction ? { transaction: claimedTransactionOf(claim.transaction) } : {}),
  };
}

/** Only the members a claimed transaction has (a stored document may carry others; they are not read). */
function claimedTransactionOf(transaction: ClaimedTransaction): ClaimedTransaction {
  const { kind, debtorAgentMemberId, creditorAgentMemberId } = transaction;
  return {
    kind,
    ...(debtorAgentMemberId === undefined ? {} : { debtorAgentMemberId }),
    ...(creditorAgentMemberId === undefined ? {} : { creditorAgentMemberId }),
  };
}

/**
 * The documents an unordered insert refused, by index; undefined when the error says nothing per document
 * (or the write concern failed, which puts every document in doubt).
 */
function perDocumentErrors(error: unknown): Map<number, { code?: number; errmsg?: string }> | undefined {
  if (!(error instanceof MongoBulkWriteError) || error.err !== undefined) return undefined;
  const writeErrors = Array.isArray(error.writeErrors) ? error.writeErrors : [error.writeErrors];
  if (writeErrors.length === 0) return undefined;
  return new Map(writeErrors.map((writeError) => [writeError.index, writeError]));
}

export type { IdempotencyDocument };
