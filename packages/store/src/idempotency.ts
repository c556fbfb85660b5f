import { type Collection, MongoBulkWriteError } from 'mongodb';
import { isDuplicateKey, onlyDuplicateKeys, StoreError, toStoreError } from './errors.ts';
import { chunk, type StoreLimits } from './limits.ts';

export interface IdempotencyClaim {
  /** The message identification (or another key the caller scopes, e.g. `${memberId}:${msgId}`). */
  key: string;
  /** Hash of the canonical payload: same key with another hash is a conflict. */
  payloadHash: string;
  uetr: string;
  receivedAt: Date;
}

export interface IdempotencyRecord {
  key: string;
  payloadHash: string;
  uetr: string;
  receivedAt: Date;
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
}

/**
 * Idempotency the Mojaloop way: the first claim of a key wins; a later claim with the same payload
 * hash is a duplicate (answer as the first time), with another hash a conflict. One insert by `_id` on
 * the happy path; a second round trip only when the key is already there.
 */
export class IdempotencyRepository {
  readonly #collection: Collection<IdempotencyDocument>;
  readonly #limits: StoreLimits;

  constructor(collection: Collection<IdempotencyDocument>, limits: StoreLimits) {
    this.#collection = collection;
    this.#limits = limits;
  }

  async claim(claim: IdempotencyClaim): Promise<ClaimOutcome> {
    checkClaim(claim);
    try {
      await this.#collection.insertOne(toDocument(claim), { maxTimeMS: this.#limits.operationMaxTimeMs });
      return { outcome: 'new' };
    } catch (error) {
      if (!isDuplicateKey(error)) throw toStoreError(error, `claim idempotency key ${claim.key}`);
    }
    return this.#existing(claim);
  }

  /**
   * Two claims in one insert command, in order: `first`, and `second` only when `first` is new (a
   * message's claim, then the UETR of the transaction it starts). `second` is undefined when `first`
   * was not new: it was not attempted, and the caller claims it on its own if it still needs it (a
   * first attempt may have stopped between the two). Same outcomes as two `claim` calls in a row, one
   * round trip fewer on the happy path.
   */
  async claimBoth(
    first: IdempotencyClaim,
    second: IdempotencyClaim,
  ): Promise<{ first: ClaimOutcome; second?: ClaimOutcome }> {
    checkClaim(first);
    checkClaim(second);
    try {
      await this.#collection.insertMany([toDocument(first), toDocument(second)], {
        ordered: true,
        maxTimeMS: this.#limits.operationMaxTimeMs,
      });
      return { first: { outcome: 'new' }, second: { outcome: 'new' } };
    } catch (error) {
      if (!isDuplicateKey(error))
        throw toStoreError(error, `claim idempotency keys ${first.key}, ${second.key}`);
      const refused = firstRefusedIndex(error);
      if (refused === 0) return { first: await this.#existing(first) };
      if (refused === 1) return { first: { outcome: 'new' }, second: await this.#existing(second) };
      throw toStoreError(error, `claim idempotency keys ${first.key}, ${second.key}: which one was refused`);
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

  /** The outcome of a claim whose key is taken: a duplicate with the same payload hash, else a conflict. */
  async #existing(claim: IdempotencyClaim): Promise<ClaimOutcome> {
    const record = await this.get(claim.key);
    if (record === null) {
      // Keys are never deleted while their claims can still arrive, so a vanished key means the data
      // was removed behind the store's back: refuse rather than accept the message twice.
      throw new StoreError(
        'inconsistent',
        `idempotency key ${claim.key} reported as duplicate but not found`,
      );
    }
    return record.payloadHash === claim.payloadHash
      ? { outcome: 'duplicate', record }
      : { outcome: 'conflict', record };
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
  return { _id: claim.key, payloadHash: claim.payloadHash, uetr: claim.uetr, receivedAt: claim.receivedAt };
}

/** The index of the first document an ordered insert refused (a single insert's error counts as 0). */
function firstRefusedIndex(error: unknown): number | undefined {
  if (!(error instanceof MongoBulkWriteError)) return 0;
  const [refused] = Array.isArray(error.writeErrors) ? error.writeErrors : [error.writeErrors];
  return refused?.index;
}

export type { IdempotencyDocument };
