import type { ErrorObject, ValidateFunction } from 'ajv';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type {
  CreditTransfer,
  DirectDebit,
  FieldError,
  MessageName,
  Messages,
  PaymentStatusReport,
} from '../generated/types.ts';
import { currencyMinorUnits } from '../money/currencies.ts';
import { decimalPlaces, integerDigits, isDecimal, normalizeDecimal } from '../money/decimal.ts';
import { schemaSet } from '../schema-set.ts';
import { isExactNumber } from './exact-json.ts';
import { type JsonSchema, messageJsonSchema } from './json-schema.ts';

export type ValidationResult<T> = { ok: true; value: T } | { ok: false; errors: FieldError[] };

interface DecimalRule {
  precision: number;
  scale: number;
  minimum?: number;
  maxDecimalPlaces?: number;
}

type KeywordErrors = Partial<ErrorObject>[];

let ajv: Ajv2020.default | undefined;
const validators = new Map<MessageName, ValidateFunction>();

function compiler(): Ajv2020.default {
  if (ajv) return ajv;
  const instance = new Ajv2020.default({
    allErrors: true,
    strict: true,
    // The at-least-one-of rule is anyOf: [{ required: [a] }, { required: [b] }], naming properties declared beside it.
    strictRequired: false,
    discriminator: true,
  });
  addFormats.default(instance, ['date', 'date-time', 'uuid', 'uri-reference']);
  instance.addKeyword({
    keyword: 'x-decimal',
    schemaType: 'object',
    modifying: true,
    errors: true,
    validate: function decimal(rule: DecimalRule, data: unknown, _schema, context): boolean {
      const problem = checkDecimal(rule, data);
      if (problem) {
        (decimal as unknown as { errors: KeywordErrors }).errors = [
          { keyword: 'x-decimal', message: problem, params: {} },
        ];
        return false;
      }
      // Hand the rest of the engine the canonical decimal string (the x-decimal contract).
      if (context?.parentData && context.parentDataProperty !== undefined) {
        (context.parentData as Record<string | number, unknown>)[context.parentDataProperty] =
          normalizeDecimal(numberText(data));
      }
      return true;
    },
  });
  instance.addKeyword({
    keyword: 'x-currency-amount',
    schemaType: 'object',
    errors: true,
    validate: function currencyAmount(rule: { value: string; currency: string }, data: unknown): boolean {
      // Not an object (null, a string): the schema's type keyword reports it; nothing to compare here.
      if (typeof data !== 'object' || data === null || Array.isArray(data)) return true;
      const amount = data as Record<string, unknown>;
      const currency = amount[rule.currency];
      const value = amount[rule.value];
      if (typeof currency !== 'string' || !/^[A-Z]{3}$/.test(currency)) return true;
      const places = currencyMinorUnits(currency);
      const errors: KeywordErrors = [];
      if (places === undefined) {
        errors.push({
          keyword: 'x-currency-amount',
          message: 'is not an ISO 4217 currency',
          params: { member: rule.currency },
        });
      } else if (isNumeric(value) && decimalPlaces(numberText(value)) > places) {
        errors.push({
          keyword: 'x-currency-amount',
          message: `must have at most ${places} decimal places for ${currency}`,
          params: { member: rule.value },
        });
      }
      (currencyAmount as unknown as { errors: KeywordErrors }).errors = errors;
      return errors.length === 0;
    },
  });
  ajv = instance;
  return instance;
}

function isNumeric(value: unknown): boolean {
  return (
    (typeof value === 'number' && Number.isFinite(value)) ||
    isExactNumber(value) ||
    (typeof value === 'string' && isDecimal(value))
  );
}

function numberText(value: unknown): string {
  if (isExactNumber(value)) return value.rawJSON;
  return String(value);
}

function checkDecimal(rule: DecimalRule, data: unknown): string | undefined {
  if (typeof data === 'number' && !Number.isSafeInteger(data)) {
    // A float parsed by JSON.parse has already lost the sender's digits; only parseJsonExact keeps them.
    return 'must be parsed exactly: a non-integer amount reached validation as a binary float';
  }
  if (typeof data !== 'number' && !isExactNumber(data)) return 'must be a number';
  const text = numberText(data);
  const integerLimit = rule.precision - rule.scale;
  if (integerDigits(text) > integerLimit)
    return `must have at most ${integerLimit} digits before the decimal point`;
  const places = decimalPlaces(text);
  const maxPlaces = Math.min(rule.scale, rule.maxDecimalPlaces ?? rule.scale);
  if (places > maxPlaces) return `must have at most ${maxPlaces} decimal places`;
  if (rule.minimum !== undefined && normalizeDecimal(text).startsWith('-'))
    return `must be >= ${rule.minimum}`;
  return undefined;
}

function validatorFor(name: MessageName): ValidateFunction {
  let validator = validators.get(name);
  if (!validator) {
    validator = compiler().compile(messageJsonSchema(schemaSet(), name, 'validator') as JsonSchema);
    validators.set(name, validator);
  }
  return validator;
}

/**
 * Validates a request body parsed by parseJsonExact against a message's JSON Schema and reports every
 * invalid member, not just the first. On success the same object is returned typed, its amounts
 * converted in place to canonical decimal strings. Unknown members are refused.
 */
export function validate<N extends MessageName>(name: N, json: unknown): ValidationResult<Messages[N]> {
  const validator = validatorFor(name);
  if (validator(json)) return { ok: true, value: json as Messages[N] };
  return { ok: false, errors: fieldErrors(validator.errors ?? []) };
}

export function validateDirectDebit(json: unknown): ValidationResult<DirectDebit> {
  return validate('DirectDebit', json);
}

export function validatePaymentStatusReport(json: unknown): ValidationResult<PaymentStatusReport> {
  return validate('PaymentStatusReport', json);
}

export function validateCreditTransfer(json: unknown): ValidationResult<CreditTransfer> {
  return validate('CreditTransfer', json);
}

const escapePointer = (segment: string) => segment.replace(/~/g, '~0').replace(/\//g, '~1');

/** Turns ajv's errors into one { pointer, detail } per invalid member, merging what alternatives report. */
export function fieldErrors(errors: readonly ErrorObject[]): FieldError[] {
  const consumed = new Set<ErrorObject>();
  const result: FieldError[] = [];
  const alternatives = errors.filter((error) => error.keyword === 'anyOf' || error.keyword === 'oneOf');
  const inside = (outer: ErrorObject, error: ErrorObject) =>
    error !== outer &&
    error.schemaPath.startsWith(`${outer.schemaPath}/`) &&
    (error.instancePath === outer.instancePath || error.instancePath.startsWith(`${outer.instancePath}/`));
  const merged = new Map<ErrorObject, FieldError[]>();
  for (const outer of alternatives) {
    const branchErrors = errors.filter((error) => inside(outer, error));
    for (const error of branchErrors) consumed.add(error);
    merged.set(outer, mergeAlternatives(outer, branchErrors));
  }
  for (const error of errors) {
    if (consumed.has(error)) continue;
    const replacement = merged.get(error);
    if (replacement) result.push(...replacement);
    else result.push(fieldError(error));
  }
  // One entry per member: several rules broken by the same member share it.
  const byPointer = new Map<string, string[]>();
  for (const error of result) {
    const details = byPointer.get(error.pointer) ?? [];
    if (!details.includes(error.detail)) details.push(error.detail);
    byPointer.set(error.pointer, details);
  }
  return [...byPointer].map(([pointer, details]) => ({ pointer, detail: details.join('; ') }));
}

function mergeAlternatives(outer: ErrorObject, branchErrors: ErrorObject[]): FieldError[] {
  if (branchErrors.length > 0 && branchErrors.every((error) => error.keyword === 'required')) {
    // An at-least-one-of rule (PaymentAccount: identification or proxy).
    const names = branchErrors.map((error) => String(error.params.missingProperty));
    return [
      {
        pointer: `${outer.instancePath}/${escapePointer(names[0] ?? '')}`,
        detail: `at least one of ${names.join(', ')} is required`,
      },
    ];
  }
  const specific = branchErrors.filter((error) => error.keyword !== 'type');
  if (specific.length > 0) return specific.map(fieldError);
  const types = branchErrors.map((error) => withArticle(String(error.params.type)));
  return [
    {
      pointer: outer.instancePath,
      detail: types.length > 0 ? `must be ${types.join(' or ')}` : (outer.message ?? 'is invalid'),
    },
  ];
}

function withArticle(type: string): string {
  return `${/^[aeiou]/.test(type) ? 'an' : 'a'} ${type}`;
}

const formatNames: Readonly<Record<string, string>> = {
  date: 'a date (YYYY-MM-DD, RFC 3339 full-date)',
  'date-time': 'an RFC 3339 date-time with a time zone offset',
  uuid: 'a UUID',
  'uri-reference': 'a URI reference',
};

function fieldError(error: ErrorObject): FieldError {
  const params = error.params as Record<string, unknown>;
  const at = error.instancePath;
  switch (error.keyword) {
    case 'required':
      return { pointer: `${at}/${escapePointer(String(params.missingProperty))}`, detail: 'is required' };
    case 'additionalProperties':
      return {
        pointer: `${at}/${escapePointer(String(params.additionalProperty))}`,
        detail: 'is not a member of this object (unknown members are refused)',
      };
    case 'discriminator':
      return {
        pointer: `${at}/${escapePointer(String(params.tag))}`,
        detail:
          params.error === 'tag' ? 'is required and must be a string' : 'is not one of the allowed values',
      };
    case 'x-currency-amount':
      return {
        pointer: `${at}/${escapePointer(String(params.member))}`,
        detail: error.message ?? 'is invalid',
      };
    case 'type':
      return { pointer: at, detail: `must be ${withArticle(String(params.type))}` };
    case 'format':
      return {
        pointer: at,
        detail: `must be ${formatNames[String(params.format)] ?? String(params.format)}`,
      };
    case 'const':
      return { pointer: at, detail: `must be ${JSON.stringify(params.allowedValue)}` };
    case 'enum':
      return { pointer: at, detail: `must be one of ${(params.allowedValues as unknown[]).join(', ')}` };
    case 'pattern':
      return { pointer: at, detail: `must match ${String(params.pattern)}` };
    case 'maxLength':
      return { pointer: at, detail: `must be at most ${String(params.limit)} characters long` };
    case 'minLength':
      return {
        pointer: at,
        detail:
          params.limit === 1
            ? 'must not be empty'
            : `must be at least ${String(params.limit)} characters long`,
      };
    case 'maxItems':
      return { pointer: at, detail: `must have at most ${String(params.limit)} items` };
    case 'minItems':
      return {
        pointer: at,
        detail: `must have at least ${String(params.limit)} item${params.limit === 1 ? '' : 's'}`,
      };
    case 'minimum':
    case 'maximum':
      return { pointer: at, detail: `must be ${String(params.comparison)} ${String(params.limit)}` };
    default:
      return { pointer: at, detail: error.message ?? 'is invalid' };
  }
}
