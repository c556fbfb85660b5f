import type { Collection } from 'mongodb';
import { isDuplicateKey, StoreError, toStoreError } from './errors.ts';
import type { StoreLimits } from './limits.ts';

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
    if (!claim.key || !claim.payloadHash) {
      throw new StoreError('invalid-input', 'idempotency claim needs a key and a payload hash');
    }
    try {
      await this.#collection.insertOne(
        { _id: claim.key, payloadHash: claim.payloadHash, uetr: claim.uetr, receivedAt: claim.receivedAt },
        { maxTimeMS: this.#limits.operationMaxTimeMs },
      );
      return { outcome: 'new' };
    } catch (error) {
      if (!isDuplicateKey(error)) throw toStoreError(error, `claim idempotency key ${claim.key}`);
    }
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

export type { IdempotencyDocument };
