import { createHash } from 'node:crypto';
import { isExactNumber, stringifyJsonExact } from '@rp/contracts';

/**
 * The idempotency key of a bank's message: message identifications are unique per sender (point to
 * point), so the same identification from two banks is two messages.
 */
export function idempotencyKey(memberId: string, messageIdentification: string): string {
  return `${memberId}:${messageIdentification}`;
}

/**
 * The idempotency key of a payment scheme's message. A scheme numbers its messages independently of the
 * banks, so its keys live apart from theirs: the same identification from a scheme and from a bank is two
 * messages.
 */
export function schemeIdempotencyKey(schemeId: string, messageIdentification: string): string {
  return `scheme:${schemeId}:${messageIdentification}`;
}

/**
 * The key of the marker written once a message's records were acknowledged by the broker. A claim
 * without its marker is a message whose first attempt may not have reached Kafka, so a resend produces
 * it again. Claim keys start with a participant's member id or `scheme:`; the prefix keeps them apart.
 */
export function producedMarkerKey(claimKey: string): string {
  return `produced:${claimKey}`;
}

/**
 * The message in canonical form: object members sorted by name at every depth, arrays in order, amounts
 * as the canonical decimal strings validation leaves them. Two bodies that differ only in member order,
 * white space or the spelling of a number (1500.0 and 1500) are the same message.
 */
export function canonicalJson(value: unknown): string {
  return stringifyJsonExact(sortMembers(value));
}

function sortMembers(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortMembers);
  if (value === null || typeof value !== 'object' || isExactNumber(value)) return value;
  const sorted: Record<string, unknown> = {};
  for (const name of sortNames(Object.keys(value))) {
    const member = (value as Record<string, unknown>)[name];
    if (member !== undefined) sorted[name] = sortMembers(member);
  }
  return sorted;
}

/** Names up to which `sortNames` sorts by insertion; a message's objects have a handful of members. */
const insertionSortLimit = 32;

/**
 * `names` sorted in place as `Array.prototype.sort` sorts them (by UTF-16 code units, as `<` compares
 * strings; an object's names are distinct), by insertion while they are few: the built-in sort allocates
 * a work copy for every call, a tenth of what the ingress allocated for all its messages, and V8 kept the
 * copies past its scavenges.
 */
export function sortNames(names: string[]): string[] {
  if (names.length > insertionSortLimit) return names.sort();
  for (let index = 1; index < names.length; index += 1) {
    const name = names[index] as string;
    let at = index - 1;
    while (at >= 0 && (names[at] as string) > name) {
      names[at + 1] = names[at] as string;
      at -= 1;
    }
    names[at + 1] = name;
  }
  return names;
}

/** SHA-256 (hex) of the canonical JSON: the payload hash an idempotency claim carries. */
export function payloadHash(value: unknown): string {
  return createHash('sha256').update(canonicalJson(value), 'utf8').digest('hex');
}
