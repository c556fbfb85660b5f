import { createHash } from 'node:crypto';

/** The namespace of the engine's name-based (v5) UUIDs. */
const namespace = Buffer.from('6f0c6a3e4d1b5e8a9c2f7b1d3e5a7c90', 'hex');

/** A name-based UUID (RFC 9562 version 5): the same name always gives the same id. */
export function uuidV5(name: string): string {
  const hash = createHash('sha1').update(namespace).update(name, 'utf8').digest();
  const bytes = hash.subarray(0, 16);
  bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x50;
  bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * The header of every rp.events.v1 record that names its posting's event id (the `webhook-id` a bank
 * gets): `EVT…` for TRANSACTION_STATE, `ESM…` for ESM_STATE, both from the state change's id. An
 * ESM_STATE posting carries no identification of its own, so without the header two state changes whose
 * ESM_STATE postings are alike would look like one.
 */
export const postingIdHeader = 'rp-posting-id';

/**
 * The stable id of a transaction's state change. The transition table has no cycles, so an event type
 * happens at most once per transaction: re-processing an input re-emits the same id, and the tracker and
 * the banks drop the repeat.
 */
export function stateEventId(uetr: string, eventType: string): string {
  return uuidV5(`state:${uetr}:${eventType}`);
}
