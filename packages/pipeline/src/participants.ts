import { readFileSync } from 'node:fs';

/** A participating bank, as the operator configures it. */
export interface Participant {
  /** Clearing member id (e.g. the universal branch code "250655"): how messages name the bank. */
  memberId: string;
  name: string;
  /** Where the engine delivers the bank's messages: `{baseUrl}/outbound/direct-debit-response`, ... */
  baseUrl: string;
  /** Where the engine posts events (`{eventsUrl}/events`); absent: the bank receives no events. */
  eventsUrl?: string;
  /** Event classes the bank subscribes to (TRANSACTION_STATE, ESM_STATE). */
  eventClasses: string[];
  /** Maximum amount of one debit per currency, as exact decimal strings (e.g. { ZAR: "500000" }). */
  debitLimits: Record<string, string>;
  /** The bank's OAuth2 client id at the identity provider; default: its member id. */
  clientId?: string;
}

export type Participants = ReadonlyMap<string, Participant>;

/**
 * Reads the participants from JSON (a file path, or the JSON itself): `[{ memberId, name, baseUrl, ... }]`.
 * Fails with a message naming the bad entry and field, so a broken file stops the service at start-up.
 */
export function parseParticipants(json: string): Participants {
  const raw: unknown = JSON.parse(json);
  if (!Array.isArray(raw)) throw new Error('participants: expected a JSON array of banks');
  const participants = new Map<string, Participant>();
  raw.forEach((entry: unknown, index) => {
    const where = `participants[${index}]`;
    if (typeof entry !== 'object' || entry === null) throw new Error(`${where}: expected an object`);
    const value = entry as Record<string, unknown>;
    const text = (field: string, required: boolean): string | undefined => {
      const v = value[field];
      if (v === undefined && !required) return undefined;
      if (typeof v !== 'string' || v.length === 0)
        throw new Error(`${where}.${field}: expected a non-empty string`);
      return v;
    };
    const memberId = text('memberId', true) as string;
    if (participants.has(memberId)) throw new Error(`${where}.memberId: ${memberId} is listed twice`);
    const baseUrl = text('baseUrl', true) as string;
    const eventsUrl = text('eventsUrl', false);
    const clientId = text('clientId', false);
    for (const [field, url] of [
      ['baseUrl', baseUrl],
      ['eventsUrl', eventsUrl],
    ] as const) {
      if (url !== undefined && !URL.canParse(url)) throw new Error(`${where}.${field}: not a URL`);
    }
    const eventClasses = value.eventClasses ?? ['TRANSACTION_STATE'];
    if (!Array.isArray(eventClasses) || !eventClasses.every((c) => typeof c === 'string')) {
      throw new Error(`${where}.eventClasses: expected an array of class names`);
    }
    const debitLimits = (value.debitLimits ?? {}) as Record<string, unknown>;
    for (const [currency, limit] of Object.entries(debitLimits)) {
      if (!/^[A-Z]{3}$/.test(currency) || typeof limit !== 'string' || !/^[0-9]+(\.[0-9]+)?$/.test(limit)) {
        throw new Error(`${where}.debitLimits.${currency}: expected a currency code and a decimal string`);
      }
    }
    participants.set(memberId, {
      memberId,
      name: text('name', false) ?? memberId,
      baseUrl: baseUrl.replace(/\/+$/, ''),
      ...(eventsUrl ? { eventsUrl: eventsUrl.replace(/\/+$/, '') } : {}),
      eventClasses: eventClasses as string[],
      debitLimits: debitLimits as Record<string, string>,
      ...(clientId ? { clientId } : {}),
    });
  });
  return participants;
}

/** `value` is a path to a JSON file, or the JSON itself when it starts with '['. */
export function loadParticipants(value: string): Participants {
  return parseParticipants(value.trimStart().startsWith('[') ? value : readFileSync(value, 'utf8'));
}
