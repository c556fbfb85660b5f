/** The closed list of error codes this package raises. */
export type ContractErrorCode =
  | 'INVALID_DECIMAL'
  | 'UNKNOWN_CURRENCY'
  | 'INVALID_DATE'
  | 'INVALID_MESSAGE'
  | 'INVALID_SCHEMA'
  | 'ILLEGAL_TRANSITION'
  | 'INCOMPATIBLE_SCHEMA'
  | 'SCHEMA_REGISTRY_UNAVAILABLE'
  | 'SCHEMA_REGISTRY_REFUSED';

export type ContractError = Error & { code: ContractErrorCode; retriable: boolean };

export function contractError(
  code: ContractErrorCode,
  message: string,
  options: { cause?: unknown; retriable?: boolean } = {},
): ContractError {
  const error = new Error(message, { cause: options.cause }) as ContractError;
  error.name = 'ContractError';
  error.code = code;
  error.retriable = options.retriable ?? false;
  return error;
}

export function isContractError(error: unknown, code?: ContractErrorCode): error is ContractError {
  return (
    error instanceof Error &&
    'code' in error &&
    (code === undefined || (error as ContractError).code === code)
  );
}
