import { AppError } from './errors.ts';

/**
 * A whole-number query parameter from 1 to `max`, `fallback` when it is absent: digits only, so `1e2`,
 * `0x10`, ` 5 ` and `5.0` are refused as `1.5` is (422 naming the parameter, `/<name>`); an empty value
 * too, unless `emptyIsAbsent`.
 */
export function wholeNumberQuery(
  text: string | undefined,
  options: { name: string; fallback: number; max: number; emptyIsAbsent?: boolean },
): number {
  const { name, fallback, max } = options;
  if (text === undefined || (text === '' && options.emptyIsAbsent)) return fallback;
  const value = /^[0-9]{1,16}$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(value) || value < 1 || value > max) {
    throw new AppError('VALIDATION_FAILED', `${name} must be a whole number from 1 to ${max}`, {
      details: [{ pointer: `/${name}`, detail: `a whole number from 1 to ${max}` }],
    });
  }
  return value;
}
