import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  branchText,
  loadSyntheticTables,
  parameterText,
  syntheticBranchFile,
  syntheticParameterFile,
} from '../test/synthetic-tables.ts';
import { checkDigitFor } from './arithmetic.ts';
import { CdvTableError } from './errors.ts';
import { ExceptionRuleRegistry, verdicts } from './exception-rules.ts';
import type { CdvFailureReason, CdvOutcome } from './outcome.ts';
import { syntheticExceptionRules } from './synthetic-rules.ts';
import { CdvTables } from './tables.ts';

let tables: CdvTables;
beforeAll(async () => {
  tables = await loadSyntheticTables();
});

type Expected = 'PASSED' | 'SKIPPED' | CdvFailureReason;

interface WorkedExample {
  readonly branch: string;
  readonly account: string;
  readonly type?: string;
  readonly expected: Expected;
  readonly bank?: string;
  readonly resolvedType?: string;
  readonly why: string;
}

/*
 * Worked examples against test-data/synthetic-*.csv. Arithmetic by hand for some (account zero-filled to
 * 11 digits, position by position against the row's weights):
 *
 * Aloe 1 (00987654321 mod 11): 1234567899 -> 0 1 2 3 4 5 6 7 8 9 9
 *   0*0 + 1*0 + 2*9 + 3*8 + 4*7 + 5*6 + 6*5 + 7*4 + 8*3 + 9*2 + 9*1 = 209 = 11 x 19, remainder 0: PASSED.
 *   1234567890 ends in 0 instead: 209 - 9 = 200, 200 mod 11 = 2: CHECK_DIGIT_FAILED.
 * Aloe 2 (00121212121 mod 10): 9000000125 -> 0 9 0 0 0 0 0 0 1 2 5
 *   9*0 (position 2 has weight 0) + 1*1 + 2*2 + 5*1 = 10, remainder 0: PASSED.
 * Baobab 1 (0A987654321 mod 11, fudge 3): 40521009 -> 0 0 0 4 0 5 2 1 0 0 9
 *   4*8 + 5*6 + 2*5 + 1*4 + 9*1 = 85, + 3 = 88 = 11 x 8: PASSED.
 * Cycad 1 (00000B37137 mod 10, B = 11): 123459 -> 0 0 0 0 0 1 2 3 4 5 9
 *   1*11 + 2*3 + 3*7 + 4*1 + 5*3 + 9*7 = 120: PASSED.
 * Disa, 7-digit legacy under SYN-LEN (00001234567 mod 10): 1234567
 *   1*1 + 2*2 + 3*3 + 4*4 + 5*5 + 6*6 + 7*7 = 140: PASSED.
 * Disa, 10 digits with the row (00175329876 mod 11): 3456789018 -> 0 3 4 5 6 7 8 9 0 1 8
 *   4*1 + 5*7 + 6*5 + 7*3 + 8*2 + 9*9 + 0*8 + 1*7 + 8*6 = 242 = 11 x 22: PASSED.
 * Erica under SYN-LEAD (0029876543A mod 11, fudge 1, first 2 significant digits ignored): 451234560
 *   9 significant digits, so positions 4..10 count: 1*8 + 2*7 + 3*6 + 4*5 + 5*4 + 6*3 + 0*10 = 98,
 *   + 1 = 99 = 11 x 9: PASSED. The plain test would add 4*2 + 5*9 = 53: 152 mod 11 = 9.
 * Fynbos 2 (00000212121 mod 10, fudge 7): 543219 -> 5*2 + 4*1 + 3*2 + 2*1 + 1*2 + 9*1 = 33, + 7 = 40: PASSED.
 * Gazania (00765432765 mod 11, fudge 9): 12345008 -> 1*6 + 2*5 + 3*4 + 4*3 + 5*2 + 8*5 = 90, + 9 = 99: PASSED.
 */
// biome-ignore format: one example per line reads as a table
const workedExamples: readonly WorkedExample[] = [
  { branch: '632005', account: '1234567899', expected: 'PASSED', bank: 'ALOE', resolvedType: '1', why: 'derived type 1' },
  { branch: '632005', account: '1234567890', expected: 'CHECK_DIGIT_FAILED', bank: 'ALOE', resolvedType: '1', why: 'remainder 2' },
  { branch: '632017', account: '01234567899', expected: 'PASSED', bank: 'ALOE', why: 'another branch in range, zero-filled' },
  { branch: '632005', account: '9000000125', expected: 'PASSED', bank: 'ALOE', resolvedType: '2', why: 'derived type 2, mod 10' },
  { branch: '632005', account: '9000000126', expected: 'CHECK_DIGIT_FAILED', bank: 'ALOE', why: 'mod 10 remainder 1' },
  { branch: '632005', account: '5000000000', expected: 'SKIPPED', bank: 'ALOE', resolvedType: '3', why: 'falls to the N row' },
  { branch: '632005', account: '1234567899', type: '1', expected: 'PASSED', bank: 'ALOE', why: 'caller type matches' },
  { branch: '632005', account: '1234567899', type: '3', expected: 'SKIPPED', bank: 'ALOE', resolvedType: '3', why: 'caller says transmission' },
  { branch: '632005', account: '5000000000', type: '1', expected: 'ACCOUNT_NOT_VALID_FOR_BRANCH', bank: 'ALOE', why: 'outside type 1 range' },
  { branch: '632005', account: '1234567899', type: '4', expected: 'ACCOUNT_NOT_VALID_FOR_BRANCH', bank: 'ALOE', why: 'no bond row' },
  { branch: '632005', account: '1234567899', type: '', expected: 'PASSED', bank: 'ALOE', resolvedType: '1', why: 'empty type derives' },
  { branch: '250655', account: '40521009', expected: 'PASSED', bank: 'BAOB', why: 'letter weight and fudge 3' },
  { branch: '250737', account: '40521008', expected: 'CHECK_DIGIT_FAILED', bank: 'BAOB', why: 'one less: 87 mod 11' },
  { branch: '250655', account: '55512348', type: '2', expected: 'PASSED', bank: 'BAOB', why: 'SYN-ALT: row weights pass' },
  { branch: '250655', account: '55512349', type: '2', expected: 'PASSED', bank: 'BAOB', why: 'SYN-ALT: alternative passes' },
  { branch: '250655', account: '55512340', type: '2', expected: 'CHECK_DIGIT_FAILED', bank: 'BAOB', why: 'SYN-ALT: neither' },
  { branch: '051001', account: '123459', expected: 'PASSED', bank: 'CYCD', why: 'B = 11 under mod 10' },
  { branch: '051001', account: '22334455', type: '2', expected: 'PASSED', bank: 'CYCD', why: 'mod 11, fudge 5' },
  { branch: '051001', account: '22334456', type: '2', expected: 'CHECK_DIGIT_FAILED', bank: 'CYCD', why: 'last digit off' },
  { branch: '198765', account: '1234567', expected: 'PASSED', bank: 'DISA', why: 'SYN-LEN legacy 7 digits' },
  { branch: '198765', account: '1234568', expected: 'CHECK_DIGIT_FAILED', bank: 'DISA', why: 'SYN-LEN legacy, 147' },
  { branch: '198765', account: '3456789018', expected: 'PASSED', bank: 'DISA', why: 'SYN-LEN 10 digits, row' },
  { branch: '198765', account: '34567890', expected: 'ACCOUNT_NOT_VALID_FOR_BRANCH', bank: 'DISA', why: 'SYN-LEN 8 digits' },
  { branch: '470010', account: '451234560', expected: 'PASSED', bank: 'ERIC', why: 'SYN-LEAD ignores 45' },
  { branch: '470010', account: '991234560', expected: 'PASSED', bank: 'ERIC', why: 'SYN-LEAD: any prefix' },
  { branch: '470010', account: '451234561', expected: 'CHECK_DIGIT_FAILED', bank: 'ERIC', why: 'SYN-LEAD: 109 mod 11' },
  { branch: '470010', account: '45', expected: 'ACCOUNT_NOT_VALID_FOR_BRANCH', bank: 'ERIC', why: 'SYN-LEAD: only a prefix' },
  { branch: '580105', account: '1', expected: 'SKIPPED', bank: 'FYNB', why: 'current accounts not verifiable' },
  { branch: '580105', account: '543219', type: '2', expected: 'PASSED', bank: 'FYNB', why: 'mod 10, fudge 7' },
  { branch: '430000', account: '12345008', expected: 'PASSED', bank: 'GAZA', why: 'mod 11, fudge 9' },
  { branch: '678910', account: '12345008', expected: 'ACCOUNT_NOT_VALID_FOR_BRANCH', bank: 'HIBI', why: 'no rows' },
  { branch: '632006', account: '1234567899', expected: 'INVALID_BRANCH', why: 'in a range, not in the branch file' },
  { branch: '63200', account: '1234567899', expected: 'INVALID_BRANCH', why: 'five digits' },
  { branch: '632005', account: '123456789012', expected: 'INVALID_ACCOUNT_NUMBER', bank: 'ALOE', why: '12 digits' },
  { branch: '632005', account: '12345-6789', expected: 'INVALID_ACCOUNT_NUMBER', bank: 'ALOE', why: 'non-digit' },
  { branch: '632005', account: '', expected: 'INVALID_ACCOUNT_NUMBER', bank: 'ALOE', why: 'empty' },
  { branch: '632005', account: '0000', expected: 'INVALID_ACCOUNT_NUMBER', bank: 'ALOE', why: 'zero' },
];

function gcd(a: number, b: number): number {
  return b === 0 ? a : gcd(b, a % b);
}

function summary(outcome: CdvOutcome): Expected {
  return outcome.status === 'FAILED' ? outcome.reason : outcome.status;
}

describe('worked examples', () => {
  it.each(workedExamples)('$branch $account type=$type -> $expected ($why)', (example) => {
    const outcome = tables.verify({
      branchCode: example.branch,
      accountNumber: example.account,
      accountType: example.type,
    });
    expect(summary(outcome)).toBe(example.expected);
    expect(outcome.bank?.code).toBe(example.bank);
    if (example.resolvedType !== undefined) expect(outcome.accountType).toBe(example.resolvedType);
  });

  it('names the parameter line in a check digit failure and never the account number', () => {
    const outcome = tables.verify({ branchCode: '632005', accountNumber: '1234567890' });
    expect(outcome).toMatchObject({
      status: 'FAILED',
      reason: 'CHECK_DIGIT_FAILED',
      detail: 'check digit failed: modulus 11, parameter line 7',
    });
    expect(outcome.status === 'FAILED' && outcome.detail).not.toContain('1234567890');
  });

  it('carries the exception rule detail when a rule fails with its own reason', () => {
    const outcome = tables.verify({ branchCode: '198765', accountNumber: '34567890' });
    expect(outcome.status === 'FAILED' && outcome.detail).toBe(
      'exception SYN-LEN (parameter line 17): account length must be 7 or 10 significant digits',
    );
  });

  it('returns shared outcome objects on the hot path instead of allocating', () => {
    const first = tables.verify({ branchCode: '632005', accountNumber: '1234567899' });
    const second = tables.verify({ branchCode: '632017', accountNumber: '1234567899' });
    expect(second).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
  });
});

/** Every branch in the synthetic branch file. */
const branchArb = fc.constantFrom(
  '632005',
  '632017',
  '250655',
  '250737',
  '051001',
  '198765',
  '470010',
  '580105',
  '430000',
  '678910',
);

describe('properties over the synthetic tables', () => {
  it('for every plain verifiable row and any prefix, the computed check digit passes and others fail', () => {
    const plainRows = ['632005', '250655', '051001', '580105', '430000'].flatMap((branch) =>
      tables
        .rowsFor(branch)
        .filter((row) => row.verifiable && row.exceptionCode === undefined)
        .map((row) => ({ branch, row })),
    );
    expect(plainRows.length).toBe(7);
    fc.assert(
      fc.property(
        fc.constantFrom(...plainRows),
        fc.double({ min: 0, max: 1, noNaN: true }),
        ({ branch, row }, at) => {
          // A 10-digit prefix whose completed account stays inside the row's account range.
          const first = Math.ceil(row.accountFrom / 10);
          const last = Math.floor(row.accountTo / 10);
          const prefix = String(first + Math.floor(at * (last - first))).padStart(10, '0');
          const digit = checkDigitFor(prefix, row.weights, row.modulus, row.fudge);
          fc.pre(digit !== undefined && Number(prefix) > 0);
          const request = {
            branchCode: branch,
            accountNumber: prefix.slice(-10) + String(digit),
            accountType: row.accountType,
          };
          expect(tables.verify(request).status).toBe('PASSED');
          expect(gcd(row.weights[10]!, row.modulus)).toBe(1);
          for (let other = 0; other <= 9; other++) {
            if (other === digit) continue;
            const wrong = { ...request, accountNumber: prefix.slice(-10) + String(other) };
            expect(tables.verify(wrong)).toMatchObject({ status: 'FAILED', reason: 'CHECK_DIGIT_FAILED' });
          }
        },
      ),
    );
  });

  it('gives the same outcome however many zeros right-justify the account', () => {
    fc.assert(
      fc.property(
        branchArb,
        fc.stringMatching(/^\d{1,11}$/),
        fc.integer({ min: 0, max: 11 }),
        fc.constantFrom(undefined, '1', '2', '3'),
        (branchCode, account, width, accountType) => {
          const padded = account.padStart(Math.max(account.length, width), '0');
          expect(tables.verify({ branchCode, accountNumber: padded, accountType })).toEqual(
            tables.verify({ branchCode, accountNumber: account, accountType }),
          );
        },
      ),
    );
  });
});

describe('loaded version', () => {
  it('reports names, versions, effective dates, row counts and checksums', () => {
    const { version } = tables;
    expect(version.parameters).toMatchObject({
      path: syntheticParameterFile,
      format: 'rp-cdv-parameters/1',
      version: '2025.07-synthetic',
      effectiveDate: '2025-07-01',
      rows: 12,
    });
    expect(version.parameters.name).toMatch(/^SYNTHETIC/);
    expect(version.branches).toMatchObject({
      path: syntheticBranchFile,
      rows: 10,
      effectiveDate: '2025-07-01',
    });
    expect(version.parameters.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(version.branches.sha256).not.toBe(version.parameters.sha256);
    expect(version.banks).toBe(8);
    expect(version.warnings).toEqual([
      '1 branch(es) have no parameter row and fail as ACCOUNT_NOT_VALID_FOR_BRANCH: 678910',
    ]);
    expect(tables.branch('632017')).toMatchObject({
      name: 'Karoo Street, test branch',
      bank: { code: 'ALOE' },
    });
  });

  it('computes the checksum of the exact bytes', () => {
    const parameters = parameterText(['632000,632999,1,,,Y,00987654321,11,0,']);
    const branches = branchText(['632005,ALOE,Aloe,Main']);
    const a = CdvTables.fromContents({
      parameters: { path: 'p', content: parameters },
      branches: { path: 'b', content: branches },
    });
    const b = CdvTables.fromContents({
      parameters: { path: 'p', content: `${parameters}# trailing comment\n` },
      branches: { path: 'b', content: branches },
    });
    expect(a.version.parameters.sha256).not.toBe(b.version.parameters.sha256);
    expect(a.version.branches.sha256).toBe(b.version.branches.sha256);
  });
});

function problemsOf(
  parameterRows: readonly string[],
  branchRows: readonly string[] = ['632005,ALOE,Aloe,Main'],
): string[] {
  try {
    CdvTables.fromContents({
      parameters: { path: 'params.csv', content: parameterText(parameterRows) },
      branches: { path: 'branches.csv', content: branchText(branchRows) },
      exceptionRules: new ExceptionRuleRegistry(syntheticExceptionRules()),
    });
  } catch (err) {
    expect(err).toBeInstanceOf(CdvTableError);
    const error = err as CdvTableError;
    expect(error.code).toBe('CONFIG_INVALID');
    return error.problems.map((p) => `${p.file}:${p.line}: ${p.message}`);
  }
  throw new Error('expected the tables to be rejected');
}

const good = '632000,632999,1,,,Y,00987654321,11,0,';

describe('parameter file validation (data rows start on line 6)', () => {
  it.each([
    [
      '632000,632999,1,,,Y,0987654321,11,0,',
      'params.csv:6: weights must have 11 characters (one per digit), got 10',
    ],
    [
      '632000,632999,1,,,Y,009876543211,11,0,',
      'params.csv:6: weights must have 11 characters (one per digit), got 12',
    ],
    [
      '632000,632999,1,,,Y,0098765432a,11,0,',
      "params.csv:6: weight character 'a' at position 11 is not 0-9 or A-Z",
    ],
    ['632000,632999,1,,,Y,00987654321,12,0,', "params.csv:6: modulus must be 10 or 11, got '12'"],
    ['632000,632999,1,,,Y,00987654321,9,0,', "params.csv:6: modulus must be 10 or 11, got '9'"],
    ['632000,632999,1,,,Y,00987654321,11,-1,', "params.csv:6: fudge must be an integer 0-999, got '-1'"],
    [
      '632000,632999,1,,,Y,00987654321,11,0,NOPE',
      "params.csv:6: unknown exception code 'NOPE' (registered: SYN-ALT, SYN-LEAD, SYN-LEN)",
    ],
    [
      '632000,632999,1,,,Y,00987654321,11,0,bad code',
      "params.csv:6: exception code must be 1-16 characters A-Z, 0-9, '_' or '-', got 'bad code'",
    ],
    ['63200A,632999,1,,,Y,00987654321,11,0,', "params.csv:6: branch_from must be 6 digits, got '63200A'"],
    ['632999,632000,1,,,Y,00987654321,11,0,', 'params.csv:6: branch_from 632999 is after branch_to 632000'],
    [
      '632000,632999,x,,,Y,00987654321,11,0,',
      "params.csv:6: account_type must be 1-2 characters 0-9 or A-Z, got 'x'",
    ],
    [
      '632000,632999,1,100,,Y,00987654321,11,0,',
      "params.csv:6: account_from and account_to must both be 1-11 digits or both be empty, got '100' and ''",
    ],
    ['632000,632999,1,9,1,Y,00987654321,11,0,', 'params.csv:6: account_from 9 is after account_to 1'],
    ['632000,632999,1,,,y,00987654321,11,0,', "params.csv:6: verifiable must be Y or N, got 'y'"],
    ['632000,632999,1,,,Y,00987654321,11,0', 'params.csv:6: expected 10 fields, got 9'],
    ['632000,632999,1,,,Y,"00987654321,11,0,', 'params.csv:6: unterminated quoted field'],
    [
      '632000,632999,1,,,N,00987654321,11,0,SYN-LEAD',
      'params.csv:6: exception SYN-LEAD needs a verifiable row (indicator Y)',
    ],
  ])('%s', (row, message) => {
    expect(problemsOf([row])).toEqual([message]);
  });

  it('rejects rows of one account type whose branch and account ranges overlap', () => {
    expect(
      problemsOf([
        '632000,632999,1,1000000000,1999999999,Y,00987654321,11,0,',
        '632000,632999,2,,,Y,00987654321,11,0,',
        '632500,633999,1,1500000000,2999999999,Y,00987654321,11,0,',
        '632000,632999,1,2000000000,2999999999,Y,00987654321,11,0,',
      ]),
    ).toEqual([
      'params.csv:8: overlaps the row on line 6: account type 1, branches 632500-633999 and 632000-632999, with intersecting account ranges',
      'params.csv:9: overlaps the row on line 8: account type 1, branches 632000-632999 and 632500-633999, with intersecting account ranges',
    ]);
  });

  it('reports every problem in one pass', () => {
    expect(problemsOf([good, '632000,632999,2,,,Y,0987654321,12,0,', good])).toEqual([
      'params.csv:7: weights must have 11 characters (one per digit), got 10',
      "params.csv:7: modulus must be 10 or 11, got '12'",
      'params.csv:8: overlaps the row on line 6: account type 1, branches 632000-632999 and 632000-632999, with intersecting account ranges',
    ]);
  });

  it('checks the metadata and the header', () => {
    const run = (content: string) => {
      try {
        CdvTables.fromContents({
          parameters: { path: 'params.csv', content },
          branches: { path: 'branches.csv', content: branchText(['632005,ALOE,Aloe,Main']) },
        });
      } catch (err) {
        return (err as CdvTableError).problems.map((p) => `${p.line}: ${p.message}`);
      }
      return [];
    };
    expect(run(parameterText([good]).replace('rp-cdv-parameters/1', 'rp-cdv-parameters/2'))).toEqual([
      "5: format must be 'rp-cdv-parameters/1', got 'rp-cdv-parameters/2'",
    ]);
    expect(run(parameterText([good]).replace('2025-07-01', '2025-02-30'))).toEqual([
      "5: effective must be a date YYYY-MM-DD, got '2025-02-30'",
    ]);
    expect(run(parameterText([good]).replace('# version: 1\n', ''))).toEqual([
      "4: metadata '# version: ...' is missing before the header row",
    ]);
    expect(run(parameterText([good]).replace('account_type', 'type'))).toEqual([
      "5: header must be 'branch_from,branch_to,account_type,account_from,account_to,verifiable,weights,modulus,fudge,exception', got 'branch_from,branch_to,type,account_from,account_to,verifiable,weights,modulus,fudge,exception'",
    ]);
    expect(run(parameterText([]))).toEqual(['0: file has no data rows']);
    expect(run(parameterText([good]).replace('# name:', '# name: x\n# name:'))).toEqual([
      "3: metadata 'name' is given twice",
    ]);
  });

  it('reports an unreadable file and bytes that are not UTF-8', async () => {
    await expect(
      CdvTables.load({ parameterFile: '/nonexistent/cdv-parameters.csv', branchFile: syntheticBranchFile }),
    ).rejects.toThrow(/\/nonexistent\/cdv-parameters.csv: cannot read file: ENOENT/);
    expect(() =>
      CdvTables.fromContents({
        parameters: { path: 'params.csv', content: new Uint8Array([0x23, 0xff, 0xfe, 0x0a]) },
        branches: { path: 'branches.csv', content: branchText(['632005,ALOE,Aloe,Main']) },
      }),
    ).toThrow(/params\.csv: file is not valid UTF-8 text/);
  });
});

describe('branch file validation (data rows start on line 6)', () => {
  it.each([
    [['63200,ALOE,Aloe,Main'], ["branches.csv:6: branch_code must be 6 digits, got '63200'"]],
    [
      ['632005,aloe,Aloe,Main'],
      ["branches.csv:6: bank_code must be 1-16 characters A-Z, 0-9, '_' or '-', got 'aloe'"],
    ],
    [['632005,ALOE,,Main'], ['branches.csv:6: bank_name is empty']],
    [
      ['632005,ALOE,Aloe,Main', '632005,ALOE,Aloe,Again'],
      ['branches.csv:7: duplicate branch 632005 (first on line 6)'],
    ],
    [
      ['632005,ALOE,Aloe,Main', '632017,ALOE,Aloe Bank,Other'],
      ["branches.csv:7: bank ALOE is named 'Aloe Bank' here but 'Aloe' on line 6"],
    ],
    [['632005,ALOE,Aloe'], ['branches.csv:6: expected 4 fields, got 3']],
  ])('%j', (rows, messages) => {
    expect(problemsOf([good], rows)).toEqual(messages);
  });

  it('reads quoted names with commas and doubled quotes', () => {
    const loaded = CdvTables.fromContents({
      parameters: { path: 'p', content: parameterText([good]) },
      branches: { path: 'b', content: branchText(['632005,ALOE,"Aloe, ""Ltd""", Main street ']) },
    });
    expect(loaded.branch('632005')).toMatchObject({ name: 'Main street', bank: { name: 'Aloe, "Ltd"' } });
  });
});

describe('unknown exception codes', () => {
  it('can be loaded as SKIPPED rows when the operator chooses the skip policy', () => {
    const loaded = CdvTables.fromContents({
      parameters: {
        path: 'p',
        content: parameterText([
          '632000,632999,1,,,Y,00987654321,11,0,OFFICIAL-X',
          '250000,259999,1,,,Y,0A987654321,11,3,',
        ]),
      },
      branches: { path: 'b', content: branchText(['632005,ALOE,Aloe,Main', '250655,BAOB,Baobab,Main']) },
      unknownExceptionCodes: 'skip',
    });
    expect(loaded.version.unknownExceptionCodes).toEqual(['OFFICIAL-X']);
    expect(loaded.version.warnings).toEqual([
      'exception code(s) without a rule, verified as SKIPPED: OFFICIAL-X',
    ]);
    expect(loaded.verify({ branchCode: '632005', accountNumber: '1234567890' }).status).toBe('SKIPPED');
    expect(loaded.verify({ branchCode: '250655', accountNumber: '40521008' }).status).toBe('FAILED');
  });

  it('lets an operator register a rule for a code and sees it applied', () => {
    const registry = new ExceptionRuleRegistry().register({
      code: 'OPS-1',
      description: 'accepts accounts ending in 7',
      verify: (context) => (context.digitAt(10) === 7 ? verdicts.passed : verdicts.checkDigitFailed),
    });
    const loaded = CdvTables.fromContents({
      parameters: { path: 'p', content: parameterText(['632000,632999,1,,,Y,00987654321,11,0,OPS-1']) },
      branches: { path: 'b', content: branchText(['632005,ALOE,Aloe,Main']) },
      exceptionRules: registry,
    });
    expect(loaded.verify({ branchCode: '632005', accountNumber: '17' }).status).toBe('PASSED');
    expect(loaded.verify({ branchCode: '632005', accountNumber: '1234567899' }).status).toBe('FAILED');
  });
});
