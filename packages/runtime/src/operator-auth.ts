import type { MiddlewareHandler } from 'hono';
import type { JWTPayload } from 'jose';
import {
  type AccessTokenOptions,
  type AccessTokenVerifier,
  accessTokenVerifier,
  bearerChallenge,
  stringClaim,
} from './access-token.ts';
import { type Config, defineConfig, oneOf, str, url } from './config.ts';
import { AppError } from './errors.ts';
import type { AppEnv } from './http.ts';

/**
 * The operators' roles, as the identity provider grants them (a `roles` claim, or `scope`):
 * - `operator.read`: every admin read (transactions, dead letters, deliveries, lanes, windows, queue,
 *   reconciliation, audit) and the console;
 * - `operator.replay`: the actions as well: replay postings, redrive dead letters, open or close windows.
 *   It includes `operator.read`.
 */
export const operatorRoles = ['operator.read', 'operator.replay'] as const;
export type OperatorRole = (typeof operatorRoles)[number];

/** Who is calling an admin route: the audit trail's actor. */
export interface Operator {
  /** The token's subject (`sub`, else its client): written as the actor of every action audited. */
  readonly id: string;
  readonly roles: ReadonlySet<OperatorRole>;
}

/** With `ADMIN_AUTH=none` (development only): everyone may do everything, and nothing says who. */
export const unauthenticatedOperator: Operator = {
  id: 'unauthenticated',
  roles: new Set(operatorRoles),
};

export type OperatorAuthentication =
  | { readonly ok: true; readonly operator: Operator }
  | { readonly ok: false; readonly status: 401 | 503; readonly error: string; readonly detail: string };

/** Verifies an operator's access token and says who it is and what it may do. */
export type OperatorAuthenticator = (
  authorization: string | null | undefined,
) => Promise<OperatorAuthentication>;

/** The roles a token grants: its `roles` array, else the words of its `scope`; replay includes read. */
export function rolesOf(payload: JWTPayload): Set<OperatorRole> {
  const granted = Array.isArray(payload.roles)
    ? payload.roles.filter((role): role is string => typeof role === 'string')
    : (stringClaim(payload, 'scope') ?? '').split(/\s+/);
  const roles = new Set<OperatorRole>();
  for (const role of granted) {
    if ((operatorRoles as readonly string[]).includes(role)) roles.add(role as OperatorRole);
  }
  if (roles.has('operator.replay')) roles.add('operator.read');
  return roles;
}

/** Operators' JWT access tokens (RFC 9068) from the identity provider, for the admin API's audience. */
export function jwtOperatorAuthenticator(options: AccessTokenOptions): OperatorAuthenticator {
  const verify: AccessTokenVerifier = accessTokenVerifier(options, 'an operator');
  return async (authorization) => {
    const check = await verify(authorization);
    if (!check.ok) return check;
    const id =
      stringClaim(check.payload, 'sub') ??
      stringClaim(check.payload, 'client_id') ??
      stringClaim(check.payload, 'azp');
    if (id === undefined) {
      return {
        ok: false,
        status: 401,
        error: 'invalid_token',
        detail: 'The access token names nobody (no sub)',
      };
    }
    return { ok: true, operator: { id, roles: rolesOf(check.payload) } };
  };
}

/** The role a request needs: reads (GET, HEAD) need `operator.read`, anything else `operator.replay`. */
export function requiredRole(method: string): OperatorRole {
  return method === 'GET' || method === 'HEAD' ? 'operator.read' : 'operator.replay';
}

/**
 * The admin routes' guard: the caller's access token must verify (401 with `WWW-Authenticate` otherwise,
 * 503 when the provider's keys cannot be fetched) and grant the method's role (403 naming the role).
 * The operator is then `c.var.operator` for the audit trail. Without an authenticator every caller is
 * `unauthenticatedOperator`.
 */
export function operatorGuard(authenticate: OperatorAuthenticator | undefined): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (authenticate === undefined) {
      c.set('operator', unauthenticatedOperator);
      return next();
    }
    const result = await authenticate(c.req.header('authorization'));
    if (!result.ok) {
      if (result.status === 503) {
        throw new AppError('DOWNSTREAM_TIMEOUT', result.detail, { status: 503, retryAfterSeconds: 5 });
      }
      c.header('WWW-Authenticate', bearerChallenge(result as { error: 'missing' | 'invalid_token' }));
      throw new AppError('UNAUTHORIZED', result.detail);
    }
    const role = requiredRole(c.req.method);
    if (!result.operator.roles.has(role)) {
      c.header('WWW-Authenticate', `${bearerChallenge({ error: 'insufficient_scope' })}, scope="${role}"`);
      throw new AppError(
        'FORBIDDEN',
        `This call needs the ${role} role; the token grants ${describe(result.operator.roles)}`,
      );
    }
    c.set('operator', result.operator);
    c.var.logger.debug({ operator: result.operator.id, role }, 'operator authenticated');
    return next();
  };
}

function describe(roles: ReadonlySet<OperatorRole>): string {
  return roles.size === 0 ? 'no operator role' : [...roles].join(' and ');
}

/** The operator of the request (set by `operatorGuard`); `unauthenticatedOperator` where none ran. */
export function operatorOf(c: { get(key: 'operator'): Operator | undefined }): Operator {
  return c.get('operator') ?? unauthenticatedOperator;
}

/** The admin API's authentication settings, for a service's config spec (`...adminAuthConfig`). */
export const adminAuthConfig = defineConfig({
  ADMIN_AUTH: oneOf(['oauth2', 'none'] as const, {
    default: 'oauth2',
    doc: "How operators prove who they are on /admin (and the console's API): oauth2 (a JWT access token from the identity provider, checked against its JWKS; roles operator.read and operator.replay from its roles or scope claim) or none (development only: anyone may read and act, audited as 'unauthenticated')",
  }),
  ADMIN_AUTH_JWKS_URL: url({
    optional: true,
    doc: "The identity provider's JWKS for operator tokens (required with ADMIN_AUTH=oauth2)",
  }),
  ADMIN_AUTH_ISSUER: str({
    optional: true,
    doc: 'The iss of operator access tokens (required with ADMIN_AUTH=oauth2)',
  }),
  ADMIN_AUTH_AUDIENCE: str({
    default: 'regulated-payments-admin',
    doc: 'The aud operator access tokens must carry: the admin API',
  }),
});

/** The authenticator `adminAuthConfig` asks for; undefined with `ADMIN_AUTH=none`. */
export function operatorAuthenticatorFrom(
  config: Config<typeof adminAuthConfig>,
): OperatorAuthenticator | undefined {
  if (config.ADMIN_AUTH === 'none') return undefined;
  const missing = (['ADMIN_AUTH_JWKS_URL', 'ADMIN_AUTH_ISSUER'] as const).filter(
    (name) => config[name] === undefined,
  );
  if (missing.length > 0) {
    throw new AppError('CONFIG_INVALID', `${missing.join(' and ')} required with ADMIN_AUTH=oauth2`, {
      details: missing.map((name) => ({ pointer: `/${name}`, detail: 'required with ADMIN_AUTH=oauth2' })),
    });
  }
  return jwtOperatorAuthenticator({
    jwks: new URL(config.ADMIN_AUTH_JWKS_URL as string),
    issuer: config.ADMIN_AUTH_ISSUER as string,
    audience: config.ADMIN_AUTH_AUDIENCE,
  });
}

/** `{ operatorAuth }` when there is an authenticator, `{}` with `ADMIN_AUTH=none`: for service options. */
export function operatorAuthOption(authenticate: OperatorAuthenticator | undefined): {
  operatorAuth?: OperatorAuthenticator;
} {
  return authenticate === undefined ? {} : { operatorAuth: authenticate };
}
