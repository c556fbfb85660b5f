import type { FieldError, ProblemDetails } from '../generated/types.ts';

/** Media type of every error response (RFC 9457). */
export const problemContentType = 'application/problem+json';

/**
 * The problem types the engine's HTTP API answers with. `type` is a URI reference resolved against the
 * API's base URL; the OpenAPI document describes each one.
 */
export const problemTypes = {
  malformedJson: {
    type: '/problems/malformed-json',
    title: 'The request body is not valid JSON',
    status: 400,
  },
  unauthorized: {
    type: '/problems/unauthorized',
    title: 'The request does not carry valid credentials',
    status: 401,
  },
  forbidden: {
    type: '/problems/forbidden',
    title: 'The caller may not make this request',
    status: 403,
  },
  notFound: {
    type: '/problems/not-found',
    title: 'There is no such resource for this caller',
    status: 404,
  },
  duplicateMessage: {
    type: '/problems/duplicate-message',
    title: 'A different message with this messageIdentification was already received',
    status: 409,
  },
  duplicateTransaction: {
    type: '/problems/duplicate-transaction',
    title: 'Another message already started a transaction with this UETR',
    status: 409,
  },
  payloadTooLarge: {
    type: '/problems/payload-too-large',
    title: 'The request body is larger than allowed',
    status: 413,
  },
  unsupportedMediaType: {
    type: '/problems/unsupported-media-type',
    title: 'The request body must be application/json',
    status: 415,
  },
  validationFailed: {
    type: '/problems/validation-failed',
    title: 'The request does not match its schema',
    status: 422,
  },
  rateLimited: {
    type: '/problems/rate-limited',
    title: 'The caller has made more requests than its rate allows; retry later',
    status: 429,
  },
  unavailable: {
    type: '/problems/unavailable',
    title: 'The request cannot be served right now; retry later',
    status: 503,
  },
} as const satisfies Record<string, { type: string; title: string; status: number }>;

export type ProblemKind = keyof typeof problemTypes;

/** An RFC 9457 problem body of one of the engine's problem types. */
export function problem(kind: ProblemKind, detail?: string, instance?: string): ProblemDetails {
  const { type, title, status } = problemTypes[kind];
  return {
    type,
    title,
    status,
    ...(detail === undefined ? {} : { detail }),
    ...(instance === undefined ? {} : { instance }),
  };
}

/** The 422 body for a message that failed validation: every invalid member under errors. */
export function validationProblem(errors: readonly FieldError[], instance?: string): ProblemDetails {
  const count = errors.length;
  const first = errors[0];
  const detail =
    count === 1 && first
      ? `${first.pointer || 'The body'} ${first.detail}`
      : `${count} members are invalid; see errors`;
  return { ...problem('validationFailed', detail, instance), errors: [...errors] };
}
