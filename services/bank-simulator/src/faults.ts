import { AppError } from '@rp/runtime';

/**
 * The bank endpoints a fault can target; '*' is every one of them. `inbound` is the inbound direct
 * debit, `credit` the credit transfer authorisation.
 */
export type FaultRoute = 'events' | 'outbound' | 'inbound' | 'credit';
export const faultRoutes: readonly FaultRoute[] = ['events', 'outbound', 'inbound', 'credit'];

/** The routes whose messages the bank answers with a status report of its own. */
export type ReportingRoute = 'inbound' | 'credit';
export const reportingRoutes: readonly ReportingRoute[] = ['inbound', 'credit'];

export type FaultMode =
  /** Answer normally (a rule that overrides older ones). */
  | { mode: 'ok' }
  /** Destroy the connection without answering. */
  | { mode: 'drop' }
  /** Answer normally after `ms`. */
  | { mode: 'delay'; ms: number }
  /** Answer `status` (default 503) to a `rate` share (0-1, default 1) of the requests. */
  | { mode: 'error'; status?: number; rate?: number; retryAfterSeconds?: number }
  /** Never answer; the request hangs until the client gives up. */
  | { mode: 'no-response' }
  /**
   * Inbound debits and credit transfer authorisations only: acknowledge the message (202) as usual but
   * never send the bank's own status report (spec section 7 row 9: no PaymentStatusReport from the
   * actioning bank; likewise a creditor bank that never answers an authorisation).
   */
  | { mode: 'no-report' };

export type FaultRule = FaultMode & {
  /** Only this bank; absent: every bank. */
  memberId?: string;
  /** Only this endpoint; absent or '*': every endpoint. */
  route?: FaultRoute | '*';
  /** Only requests about this transaction (the message's or the posting's UETR); absent: every one. */
  uetr?: string;
  /** The rule clears itself after applying this many times; absent: until cleared. */
  count?: number;
};

/** What to do with one request. */
export type FaultAction =
  | { kind: 'pass' }
  | { kind: 'drop' }
  | { kind: 'delay'; ms: number }
  | { kind: 'error'; status: number; retryAfterSeconds?: number }
  | { kind: 'hang' }
  /** Answer the inbound debit or credit normally, but send no status report for it. */
  | { kind: 'no-report' };

interface ActiveRule {
  readonly rule: FaultRule;
  remaining: number | undefined;
}

/**
 * The injected faults. The newest rule that matches a request decides (so a later `ok` rule for one bank
 * carves it out of an older rule for every bank). A rule with `count` clears itself once it has applied
 * that many times; an `error` rule with a rate below 1 counts only the requests it failed.
 */
export class FaultTable {
  #rules: ActiveRule[] = [];
  readonly #random: () => number;

  constructor(random: () => number = Math.random) {
    this.#random = random;
  }

  add(rule: FaultRule): void {
    this.#rules.push({ rule, remaining: rule.count });
  }

  clear(): void {
    this.#rules = [];
  }

  /** Whether any rule targets a UETR (only then does a request's UETR need to be read before deciding). */
  targetsUetr(): boolean {
    return this.#rules.some(({ rule }) => rule.uetr !== undefined);
  }

  list(): FaultRule[] {
    return this.#rules.map(({ rule, remaining }) => ({
      ...rule,
      ...(remaining === undefined ? {} : { count: remaining }),
    }));
  }

  /** What to do with a request to `route` of bank `memberId`, about transaction `uetr` when known. */
  decide(memberId: string, route: FaultRoute, uetr?: string): FaultAction {
    for (let index = this.#rules.length - 1; index >= 0; index -= 1) {
      const active = this.#rules[index] as ActiveRule;
      const { rule } = active;
      if (rule.memberId !== undefined && rule.memberId !== memberId) continue;
      if (rule.route !== undefined && rule.route !== '*' && rule.route !== route) continue;
      if (rule.uetr !== undefined && rule.uetr !== uetr) continue;
      const action = actionOf(rule, this.#random);
      if (action.kind === 'pass' && rule.mode !== 'ok') return action;
      if (active.remaining !== undefined) {
        active.remaining -= 1;
        if (active.remaining <= 0) this.#rules.splice(index, 1);
      }
      return action;
    }
    return { kind: 'pass' };
  }
}

function actionOf(rule: FaultRule, random: () => number): FaultAction {
  switch (rule.mode) {
    case 'ok':
      return { kind: 'pass' };
    case 'drop':
      return { kind: 'drop' };
    case 'delay':
      return { kind: 'delay', ms: rule.ms };
    case 'no-response':
      return { kind: 'hang' };
    case 'no-report':
      return { kind: 'no-report' };
    case 'error': {
      const rate = rule.rate ?? 1;
      if (rate < 1 && random() >= rate) return { kind: 'pass' };
      return {
        kind: 'error',
        status: rule.status ?? 503,
        ...(rule.retryAfterSeconds === undefined ? {} : { retryAfterSeconds: rule.retryAfterSeconds }),
      };
    }
  }
}

/** Reads a rule from JSON (the admin endpoint and the config); names the bad field. */
export function parseFaultRule(json: unknown): FaultRule {
  if (typeof json !== 'object' || json === null || Array.isArray(json))
    throw invalid('', 'expected an object');
  const raw = json as Record<string, unknown>;
  const common: { memberId?: string; route?: FaultRoute | '*'; uetr?: string; count?: number } = {};
  if (raw.memberId !== undefined) {
    if (typeof raw.memberId !== 'string' || raw.memberId === '')
      throw invalid('/memberId', 'expected a member id');
    common.memberId = raw.memberId;
  }
  if (raw.route !== undefined) {
    if (raw.route !== '*' && !faultRoutes.includes(raw.route as FaultRoute)) {
      throw invalid('/route', `expected one of ${[...faultRoutes, '*'].join(', ')}`);
    }
    common.route = raw.route as FaultRoute | '*';
  }
  if (raw.uetr !== undefined) {
    if (typeof raw.uetr !== 'string' || raw.uetr === '') throw invalid('/uetr', 'expected a UETR');
    common.uetr = raw.uetr;
  }
  if (raw.count !== undefined) {
    if (!Number.isSafeInteger(raw.count) || (raw.count as number) < 1)
      throw invalid('/count', 'expected a positive integer');
    common.count = raw.count as number;
  }
  switch (raw.mode) {
    case 'ok':
    case 'drop':
    case 'no-response':
      return { ...common, mode: raw.mode };
    case 'no-report': {
      // Only inbound debits and credits are answered by a report. Without a route the rule means the
      // inbound debits, as it did before banks answered credits.
      const route = common.route ?? 'inbound';
      if (!reportingRoutes.includes(route as ReportingRoute))
        throw invalid('/route', "mode 'no-report' applies to route 'inbound' or 'credit' only");
      return { ...common, route, mode: 'no-report' };
    }
    case 'delay': {
      const ms = raw.ms;
      if (!Number.isSafeInteger(ms) || (ms as number) < 0)
        throw invalid('/ms', 'expected milliseconds (an integer >= 0)');
      return { ...common, mode: 'delay', ms: ms as number };
    }
    case 'error': {
      const rule: FaultRule = { ...common, mode: 'error' };
      if (raw.status !== undefined) {
        if (
          !Number.isSafeInteger(raw.status) ||
          (raw.status as number) < 400 ||
          (raw.status as number) > 599
        ) {
          throw invalid('/status', 'expected an HTTP error status (400-599)');
        }
        rule.status = raw.status as number;
      }
      if (raw.rate !== undefined) {
        if (typeof raw.rate !== 'number' || raw.rate < 0 || raw.rate > 1)
          throw invalid('/rate', 'expected a number from 0 to 1');
        rule.rate = raw.rate;
      }
      if (raw.retryAfterSeconds !== undefined) {
        if (!Number.isSafeInteger(raw.retryAfterSeconds) || (raw.retryAfterSeconds as number) < 0) {
          throw invalid('/retryAfterSeconds', 'expected whole seconds');
        }
        rule.retryAfterSeconds = raw.retryAfterSeconds as number;
      }
      return rule;
    }
    default:
      throw invalid('/mode', "expected 'ok', 'drop', 'delay', 'error', 'no-response' or 'no-report'");
  }
}

function invalid(pointer: string, detail: string): AppError {
  return new AppError('VALIDATION_FAILED', `fault rule: ${pointer || 'body'} ${detail}`, {
    details: [{ pointer, detail }],
  });
}
