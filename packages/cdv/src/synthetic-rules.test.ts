import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { branchText, parameterText } from '../test/synthetic-tables.ts';
import { ExceptionContext, ExceptionRuleRegistry, type ParameterRow } from './exception-rules.ts';
import {
  alternativeWeightsRule,
  ignoreLeadingDigitsRule,
  specialLengthRule,
  syntheticExceptionRules,
} from './synthetic-rules.ts';
import { CdvTables } from './tables.ts';
import { parseWeights } from './weights.ts';

function row(weights: string, modulus: 10 | 11, fudge: number, verifiable = true): ParameterRow {
  const parsed = parseWeights(weights);
  if (!parsed.ok) throw new Error(parsed.problem);
  return {
    line: 1,
    branchFrom: 0,
    branchTo: 999_999,
    accountType: '1',
    accountFrom: 0,
    accountTo: 99_999_999_999,
    verifiable,
    weights: parsed.weights,
    modulus,
    fudge,
    exceptionCode: 'T',
  };
}

const bank = { code: 'TEST', name: 'Test bank' };

function context(account: string, parameters: ParameterRow): ExceptionContext {
  return new ExceptionContext(account, Number(account), '123456', bank, parameters);
}

describe('ExceptionContext', () => {
  it('sees the account right-justified and zero-filled', () => {
    const ctx = context('00345', row('00000000000', 10, 0));
    expect(ctx.significantLength).toBe(3);
    expect([...Array(11).keys()].map((p) => ctx.digitAt(p))).toEqual([0, 0, 0, 0, 0, 0, 0, 0, 3, 4, 5]);
    expect(context('10000000000', row('00000000000', 10, 0)).significantLength).toBe(11);
    expect(context('9', row('00000000000', 10, 0)).significantLength).toBe(1);
  });

  it('its weighted sum from position 0 is the engine weighted sum', () => {
    fc.assert(
      fc.property(
        fc.stringMatching(/^[1-9]\d{0,10}$/),
        fc.stringMatching(/^[0-9A-Z]{11}$/),
        (account, weights) => {
          const r = row(weights, 11, 0);
          const ctx = context(account, r);
          const reference = account
            .padStart(11, '0')
            .split('')
            .reduce((sum, digit, p) => sum + Number(digit) * Number.parseInt(weights[p]!, 36), 0);
          expect(ctx.weightedSum(r.weights)).toBe(reference);
          expect(ctx.passesRow()).toBe(reference % 11 === 0);
        },
      ),
    );
  });
});

describe('synthetic alternative weights rule', () => {
  const rule = alternativeWeightsRule({
    code: 'T-ALT',
    alternatives: [
      { weights: '00000000001', modulus: 10, fudge: 0 },
      { weights: '00000000001', modulus: 10, fudge: 5 },
    ],
  });
  // Row: the last two digits must add up to a multiple of 11.
  const parameters = row('00000000011', 11, 0);

  it('tries the row, then each alternative in order', () => {
    expect(rule.verify(context('29', parameters)).status).toBe('PASSED'); // row: 2 + 9 = 11
    expect(rule.verify(context('20', parameters)).status).toBe('PASSED'); // row 2; first alternative 0 mod 10
    expect(rule.verify(context('25', parameters)).status).toBe('PASSED'); // row 7, first 5; second 5 + 5 = 10
    expect(rule.verify(context('23', parameters))).toEqual({
      status: 'FAILED',
      reason: 'CHECK_DIGIT_FAILED',
    });
  });

  it('refuses bad alternatives when it is built', () => {
    expect(() => alternativeWeightsRule({ code: 'X', alternatives: [] })).toThrow(/at least one/);
    expect(() =>
      alternativeWeightsRule({ code: 'X', alternatives: [{ weights: '123', modulus: 10, fudge: 0 }] }),
    ).toThrow(/11 characters/);
  });
});

describe('synthetic special length rule', () => {
  const rule = specialLengthRule({
    code: 'T-LEN',
    specialLength: 4,
    special: { weights: '00000001111', modulus: 10, fudge: 0 },
    regularLength: 6,
  });
  const parameters = row('00000111111', 11, 0);

  it('uses its own weights for the special length and the row for the regular one', () => {
    expect(rule.verify(context('1234', parameters)).status).toBe('PASSED'); // 1 + 2 + 3 + 4 = 10, mod 10
    expect(rule.verify(context('1235', parameters)).status).toBe('FAILED'); // 11 mod 10 = 1
    expect(rule.verify(context('100019', parameters)).status).toBe('PASSED'); // row: 1 + 1 + 9 = 11, mod 11
    expect(rule.verify(context('123455', parameters)).status).toBe('FAILED'); // row: 20 mod 11 = 9
  });

  it('rejects other lengths as not valid for the branch', () => {
    expect(rule.verify(context('12345', parameters))).toMatchObject({
      status: 'FAILED',
      reason: 'ACCOUNT_NOT_VALID_FOR_BRANCH',
    });
  });
});

describe('synthetic ignore leading digits rule', () => {
  const rule = ignoreLeadingDigitsRule({ code: 'T-LEAD', count: 1 });

  it('makes the leading digit irrelevant whatever the length', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 9 }), fc.stringMatching(/^\d{1,9}$/), (lead, rest) => {
        const parameters = row('98765432198', 11, 3);
        const a = rule.verify(context(`${lead}${rest}`, parameters));
        const b = rule.verify(context(`${lead === 9 ? 1 : lead + 1}${rest}`, parameters));
        expect(a).toEqual(b);
      }),
    );
  });

  it('refuses an account that is only the ignored prefix, and a non-verifiable row at load', () => {
    expect(rule.verify(context('7', row('98765432198', 11, 3)))).toMatchObject({
      reason: 'ACCOUNT_NOT_VALID_FOR_BRANCH',
    });
    expect(rule.validateRow?.(row('98765432198', 11, 3, false))).toEqual([
      'exception T-LEAD needs a verifiable row (indicator Y)',
    ]);
    expect(() => ignoreLeadingDigitsRule({ code: 'X', count: 11 })).toThrow(RangeError);
  });
});

describe('ExceptionRuleRegistry', () => {
  it('holds the synthetic examples under SYN- codes', () => {
    const registry = new ExceptionRuleRegistry(syntheticExceptionRules());
    expect(registry.codes).toEqual(['SYN-ALT', 'SYN-LEAD', 'SYN-LEN']);
    expect(registry.get('SYN-ALT')?.description).toMatch(/^synthetic:/);
  });

  it('refuses duplicate and malformed codes', () => {
    const registry = new ExceptionRuleRegistry(syntheticExceptionRules());
    expect(() => registry.register(syntheticExceptionRules()[0]!)).toThrow(/already registered/);
    expect(() =>
      registry.register({ code: 'lower', description: '', verify: () => ({ status: 'PASSED' }) }),
    ).toThrow(/must be 1-16 characters/);
  });

  it('a rule may answer SKIPPED, and a row with a rule is evaluated by it alone', () => {
    const registry = new ExceptionRuleRegistry([
      { code: 'SKIP-ME', description: 'never verifiable', verify: () => ({ status: 'SKIPPED' }) },
    ]);
    const tables = CdvTables.fromContents({
      parameters: { path: 'p', content: parameterText(['100000,199999,1,,,Y,00000000001,10,0,SKIP-ME']) },
      branches: { path: 'b', content: branchText(['123456,TEST,Test,Main']) },
      exceptionRules: registry,
    });
    expect(tables.verify({ branchCode: '123456', accountNumber: '3' })).toEqual({
      status: 'SKIPPED',
      bank: { code: 'TEST', name: 'Test' },
      accountType: '1',
    });
  });
});
