import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { assertNever, errorMessage } from '@rp/runtime';
import { accountValue, passesModulus } from './arithmetic.ts';
import { type Branch, parseBranchFile } from './branch-file.ts';
import { ProblemList } from './csv.ts';
import { CdvTableError } from './errors.ts';
import {
  ExceptionContext,
  type ExceptionRule,
  ExceptionRuleRegistry,
  type ParameterRow,
} from './exception-rules.ts';
import type { Bank, CdvFailed, CdvOutcome, CdvPassed, CdvRequest, CdvSkipped } from './outcome.ts';
import {
  type ParsedParameterRow,
  parseParameterFile,
  type UnknownExceptionPolicy,
} from './parameter-file.ts';

/** Identity of one loaded file, for logs, metrics and the admin API. */
export interface CdvFileVersion {
  /** The path the operator supplied. */
  readonly path: string;
  readonly format: string;
  readonly name: string;
  readonly version: string;
  /** The `effective` metadata (YYYY-MM-DD); reported, not enforced. */
  readonly effectiveDate: string;
  /** Data rows (excluding metadata, header, comments and blank lines). */
  readonly rows: number;
  /** SHA-256 of the file's bytes, hex. */
  readonly sha256: string;
  readonly bytes: number;
}

export interface CdvTablesVersion {
  readonly parameters: CdvFileVersion;
  readonly branches: CdvFileVersion;
  readonly banks: number;
  /** When these tables were loaded (ISO 8601, UTC). */
  readonly loadedAt: string;
  /** Exception codes without a rule whose rows verify as SKIPPED (policy `skip`); empty otherwise. */
  readonly unknownExceptionCodes: readonly string[];
  /** Loadable but suspicious content, such as branches no parameter row covers. */
  readonly warnings: readonly string[];
}

export interface CdvTableOptions {
  /** Rules for the parameter file's exception codes; none by default. */
  readonly exceptionRules?: ExceptionRuleRegistry;
  /** Default `reject`: a parameter file naming an unregistered exception code does not load. */
  readonly unknownExceptionCodes?: UnknownExceptionPolicy;
  /** Source of `loadedAt`; defaults to the system clock. */
  readonly now?: () => Date;
}

export interface CdvLoadOptions extends CdvTableOptions {
  readonly parameterFile: string;
  readonly branchFile: string;
}

/** A file's content with the name used in messages (normally its path). */
export interface CdvFileContent {
  readonly path: string;
  readonly content: string | Uint8Array;
}

/**
 * A parameter row bound to one bank, with its outcomes built once at load so that verification returns
 * shared frozen objects instead of allocating.
 */
interface RowBinding {
  readonly row: ParameterRow;
  readonly rule: ExceptionRule | undefined;
  readonly skip: boolean;
  readonly passed: CdvPassed;
  readonly skipped: CdvSkipped;
  readonly checkDigitFailed: CdvFailed;
}

interface BranchEntry {
  readonly branch: Branch;
  readonly bindings: RowBinding[];
  readonly invalidAccount: CdvFailed;
  readonly notValidForBranch: CdvFailed;
}

const invalidBranch: CdvFailed = Object.freeze({
  status: 'FAILED',
  reason: 'INVALID_BRANCH',
  bank: undefined,
  accountType: undefined,
  detail: 'branch code is not in the branch file',
});

/**
 * One validated, immutable pair of parameter and branch tables with the indexes verification needs:
 * a Map from branch code to the rows covering it (in file order) with pre-parsed weights.
 */
export class CdvTables {
  readonly version: CdvTablesVersion;
  readonly #branches: ReadonlyMap<string, BranchEntry>;

  private constructor(version: CdvTablesVersion, branches: ReadonlyMap<string, BranchEntry>) {
    this.version = version;
    this.#branches = branches;
  }

  /** Reads and validates both files; throws `CdvTableError` listing every problem. */
  static async load(options: CdvLoadOptions): Promise<CdvTables> {
    const [parameters, branches] = await Promise.all([
      readTableFile(options.parameterFile),
      readTableFile(options.branchFile),
    ]);
    return CdvTables.fromContents({ ...options, parameters, branches });
  }

  /** Validates file contents already in memory (the core of `load`). */
  static fromContents(
    options: CdvTableOptions & { readonly parameters: CdvFileContent; readonly branches: CdvFileContent },
  ): CdvTables {
    const exceptionRules = options.exceptionRules ?? new ExceptionRuleRegistry();
    const parameterProblems = new ProblemList(options.parameters.path);
    const branchProblems = new ProblemList(options.branches.path);
    const parameterFile = parseParameterFile(
      decode(options.parameters.content, parameterProblems),
      exceptionRules,
      options.unknownExceptionCodes ?? 'reject',
      parameterProblems,
    );
    const branchFile = parseBranchFile(decode(options.branches.content, branchProblems), branchProblems);
    const problems = [...parameterProblems.problems, ...branchProblems.problems];
    if (problems.length > 0) {
      throw new CdvTableError(problems, parameterProblems.dropped + branchProblems.dropped);
    }

    const index = buildIndex(branchFile.branches, parameterFile.rows);
    const uncovered = branchFile.branches.filter((b) => index.get(b.code)!.bindings.length === 0);
    const warnings: string[] = [];
    if (uncovered.length > 0) {
      const sample = uncovered.slice(0, 10).map((b) => b.code);
      warnings.push(
        `${uncovered.length} branch(es) have no parameter row and fail as ACCOUNT_NOT_VALID_FOR_BRANCH: ${sample.join(', ')}${uncovered.length > sample.length ? ', ...' : ''}`,
      );
    }
    if (parameterFile.unknownExceptionCodes.length > 0) {
      warnings.push(
        `exception code(s) without a rule, verified as SKIPPED: ${parameterFile.unknownExceptionCodes.join(', ')}`,
      );
    }
    const version: CdvTablesVersion = Object.freeze({
      parameters: fileVersion(options.parameters, parameterFile.metadata, parameterFile.rows.length),
      branches: fileVersion(options.branches, branchFile.metadata, branchFile.branches.length),
      banks: branchFile.banks.length,
      loadedAt: (options.now?.() ?? new Date()).toISOString(),
      unknownExceptionCodes: Object.freeze([...parameterFile.unknownExceptionCodes]),
      warnings: Object.freeze(warnings),
    });
    return new CdvTables(version, index);
  }

  /** The branch as the branch file lists it. */
  branch(code: string): Branch | undefined {
    return this.#branches.get(code)?.branch;
  }

  /** The parameter rows covering a branch, in file order. */
  rowsFor(branchCode: string): readonly ParameterRow[] {
    return this.#branches.get(branchCode)?.bindings.map((binding) => binding.row) ?? [];
  }

  get branchCount(): number {
    return this.#branches.size;
  }

  /**
   * Verifies one account. Steps: the branch must be in the branch file; the account must be 1 to 11
   * digits and not zero; the row is the first (file order) covering the branch whose account range holds
   * the account and, when the caller gave one, whose account type matches; a row with indicator N gives
   * SKIPPED; a row with an exception code defers to its rule; otherwise (weighted sum + fudge) mod
   * modulus must be 0.
   */
  verify(request: CdvRequest): CdvOutcome {
    const entry = this.#branches.get(request.branchCode);
    if (entry === undefined) return invalidBranch;
    const account = request.accountNumber;
    const value = accountValue(account);
    if (value <= 0) return entry.invalidAccount;
    const accountType = request.accountType;
    const typed = accountType !== undefined && accountType !== '';
    const bindings = entry.bindings;
    for (let index = 0; index < bindings.length; index++) {
      const binding = bindings[index]!;
      const row = binding.row;
      if (typed && row.accountType !== accountType) continue;
      if (value < row.accountFrom || value > row.accountTo) continue;
      if (binding.skip) return binding.skipped;
      if (binding.rule !== undefined) return applyRule(binding, binding.rule, entry.branch, account, value);
      return passesModulus(account, row.weights, row.modulus, row.fudge)
        ? binding.passed
        : binding.checkDigitFailed;
    }
    return entry.notValidForBranch;
  }
}

function applyRule(
  binding: RowBinding,
  rule: ExceptionRule,
  branch: Branch,
  account: string,
  value: number,
): CdvOutcome {
  const verdict = rule.verify(new ExceptionContext(account, value, branch.code, branch.bank, binding.row));
  switch (verdict.status) {
    case 'PASSED':
      return binding.passed;
    case 'SKIPPED':
      return binding.skipped;
    case 'FAILED':
      if (verdict.reason === 'CHECK_DIGIT_FAILED' && verdict.detail === undefined)
        return binding.checkDigitFailed;
      return {
        status: 'FAILED',
        reason: verdict.reason,
        bank: branch.bank,
        accountType: binding.row.accountType,
        detail: `exception ${rule.code} (parameter line ${binding.row.line}): ${verdict.detail ?? verdict.reason}`,
      };
    default:
      return assertNever(verdict);
  }
}

function buildIndex(
  branches: readonly Branch[],
  rows: readonly ParsedParameterRow[],
): Map<string, BranchEntry> {
  const byBank = new Map<string, { invalidAccount: CdvFailed; notValidForBranch: CdvFailed }>();
  const bindings = new Map<string, RowBinding>();
  const index = new Map<string, BranchEntry>();
  for (const branch of branches) {
    const bank = branch.bank;
    let bankOutcomes = byBank.get(bank.code);
    if (bankOutcomes === undefined) {
      bankOutcomes = {
        invalidAccount: failed(
          'INVALID_ACCOUNT_NUMBER',
          bank,
          undefined,
          'account number must be 1 to 11 digits, not all zero',
        ),
        notValidForBranch: failed(
          'ACCOUNT_NOT_VALID_FOR_BRANCH',
          bank,
          undefined,
          'no parameter row covers this branch, account type and account number',
        ),
      };
      byBank.set(bank.code, bankOutcomes);
    }
    index.set(branch.code, { branch, bindings: [], ...bankOutcomes });
  }

  // Each row is attached to the branches inside its range by binary search over the sorted codes, so
  // loading stays fast for full-size tables; rows are visited in file order, which keeps every branch's
  // list in file order too.
  const sorted = [...branches].sort((a, b) => (a.code < b.code ? -1 : a.code > b.code ? 1 : 0));
  const codes = sorted.map((branch) => Number(branch.code));
  for (const parsed of rows) {
    const { row } = parsed;
    for (let i = lowerBound(codes, row.branchFrom); i < codes.length && codes[i]! <= row.branchTo; i++) {
      const branch = sorted[i]!;
      const key = `${branch.bank.code}\u0000${row.line}`;
      let binding = bindings.get(key);
      if (binding === undefined) {
        binding = bindRow(parsed, branch.bank);
        bindings.set(key, binding);
      }
      index.get(branch.code)!.bindings.push(binding);
    }
  }
  return index;
}

function bindRow(parsed: ParsedParameterRow, bank: Bank): RowBinding {
  const { row } = parsed;
  return {
    row,
    rule: parsed.rule,
    skip: !row.verifiable || parsed.unknownException,
    passed: Object.freeze({ status: 'PASSED', bank, accountType: row.accountType }),
    skipped: Object.freeze({ status: 'SKIPPED', bank, accountType: row.accountType }),
    checkDigitFailed: failed(
      'CHECK_DIGIT_FAILED',
      bank,
      row.accountType,
      `check digit failed: modulus ${row.modulus}, parameter line ${row.line}${row.exceptionCode === undefined ? '' : `, exception ${row.exceptionCode}`}`,
    ),
  };
}

function failed(
  reason: CdvFailed['reason'],
  bank: Bank,
  accountType: string | undefined,
  detail: string,
): CdvFailed {
  return Object.freeze({ status: 'FAILED', reason, bank, accountType, detail });
}

function lowerBound(sorted: readonly number[], target: number): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (sorted[middle]! < target) low = middle + 1;
    else high = middle;
  }
  return low;
}

async function readTableFile(path: string): Promise<CdvFileContent> {
  try {
    return { path, content: await readFile(path) };
  } catch (err) {
    throw new CdvTableError(
      [{ file: path, line: 0, message: `cannot read file: ${errorMessage(err)}` }],
      0,
      err,
    );
  }
}

/** Decodes UTF-8 strictly: a file that is not text is reported rather than read with replacement characters. */
function decode(content: string | Uint8Array, problems: ProblemList): string {
  if (typeof content === 'string') return content;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(content);
  } catch {
    problems.add(0, 'file is not valid UTF-8 text');
    return '';
  }
}

function fileVersion(
  file: CdvFileContent,
  metadata: ReadonlyMap<string, string>,
  rows: number,
): CdvFileVersion {
  const bytes = typeof file.content === 'string' ? Buffer.from(file.content, 'utf8') : file.content;
  return Object.freeze({
    path: file.path,
    format: metadata.get('format') ?? '',
    name: metadata.get('name') ?? '',
    version: metadata.get('version') ?? '',
    effectiveDate: metadata.get('effective') ?? '',
    rows,
    sha256: createHash('sha256').update(bytes).digest('hex'),
    bytes: bytes.byteLength,
  });
}
