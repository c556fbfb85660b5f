import { MAX_ACCOUNT_VALUE, type Modulus } from './arithmetic.ts';
import { type CsvRecord, type ProblemList, readCsvDocument } from './csv.ts';
import {
  type ExceptionRule,
  type ExceptionRuleRegistry,
  exceptionCodePattern,
  type ParameterRow,
} from './exception-rules.ts';
import { parseWeights } from './weights.ts';

export const PARAMETER_FORMAT = 'rp-cdv-parameters/1';

export const parameterColumns = [
  'branch_from',
  'branch_to',
  'account_type',
  'account_from',
  'account_to',
  'verifiable',
  'weights',
  'modulus',
  'fudge',
  'exception',
] as const;

/**
 * What to do with a row whose exception code has no registered rule. `reject` (the default) fails the
 * load; `skip` loads the file and returns SKIPPED for accounts under such rows, for an operator who would
 * rather not verify those accounts than refuse every table until all codes are implemented.
 */
export type UnknownExceptionPolicy = 'reject' | 'skip';

export const branchCodePattern = /^\d{6}$/;
export const accountTypePattern = /^[0-9A-Z]{1,2}$/;
const accountBoundPattern = /^\d{1,11}$/;
const fudgePattern = /^\d{1,3}$/;

export interface ParsedParameterRow {
  readonly row: ParameterRow;
  /** The rule for the row's exception code; `undefined` when it has none or the code is unknown. */
  readonly rule: ExceptionRule | undefined;
  /** The row names a code with no registered rule and the policy is `skip`. */
  readonly unknownException: boolean;
}

export interface ParsedParameterFile {
  readonly metadata: ReadonlyMap<string, string>;
  readonly rows: readonly ParsedParameterRow[];
  readonly unknownExceptionCodes: readonly string[];
}

export function parseParameterFile(
  text: string,
  exceptionRules: ExceptionRuleRegistry,
  unknownExceptions: UnknownExceptionPolicy,
  problems: ProblemList,
): ParsedParameterFile {
  const document = readCsvDocument(text, { format: PARAMETER_FORMAT, header: parameterColumns }, problems);
  const rows: ParsedParameterRow[] = [];
  const unknownCodes = new Set<string>();
  for (const record of document.records) {
    const parsed = parseRow(record, exceptionRules, unknownExceptions, problems);
    if (parsed === undefined) continue;
    if (parsed.unknownException && parsed.row.exceptionCode !== undefined) {
      unknownCodes.add(parsed.row.exceptionCode);
    }
    rows.push(parsed);
  }
  checkOverlaps(rows, problems);
  return { metadata: document.metadata, rows, unknownExceptionCodes: [...unknownCodes].sort() };
}

function parseRow(
  record: CsvRecord,
  exceptionRules: ExceptionRuleRegistry,
  unknownExceptions: UnknownExceptionPolicy,
  problems: ProblemList,
): ParsedParameterRow | undefined {
  const { line } = record;
  const field = (column: (typeof parameterColumns)[number]): string =>
    record.fields[parameterColumns.indexOf(column)] ?? '';
  const before = problems.count;
  const problem = (message: string) => problems.add(line, message);

  const branchFrom = field('branch_from');
  const branchTo = field('branch_to');
  if (!branchCodePattern.test(branchFrom)) problem(`branch_from must be 6 digits, got '${branchFrom}'`);
  if (!branchCodePattern.test(branchTo)) problem(`branch_to must be 6 digits, got '${branchTo}'`);
  if (branchCodePattern.test(branchFrom) && branchCodePattern.test(branchTo) && branchFrom > branchTo) {
    problem(`branch_from ${branchFrom} is after branch_to ${branchTo}`);
  }

  const accountType = field('account_type');
  if (!accountTypePattern.test(accountType)) {
    problem(`account_type must be 1-2 characters 0-9 or A-Z, got '${accountType}'`);
  }

  const accountFromText = field('account_from');
  const accountToText = field('account_to');
  let accountFrom = 0;
  let accountTo = MAX_ACCOUNT_VALUE;
  if (accountFromText !== '' || accountToText !== '') {
    if (!accountBoundPattern.test(accountFromText) || !accountBoundPattern.test(accountToText)) {
      problem(
        `account_from and account_to must both be 1-11 digits or both be empty, got '${accountFromText}' and '${accountToText}'`,
      );
    } else {
      accountFrom = Number(accountFromText);
      accountTo = Number(accountToText);
      if (accountFrom > accountTo)
        problem(`account_from ${accountFromText} is after account_to ${accountToText}`);
    }
  }

  const verifiableText = field('verifiable');
  if (verifiableText !== 'Y' && verifiableText !== 'N') {
    problem(`verifiable must be Y or N, got '${verifiableText}'`);
  }

  const weights = parseWeights(field('weights'));
  if (!weights.ok) problem(weights.problem);

  const modulusText = field('modulus');
  if (modulusText !== '10' && modulusText !== '11') problem(`modulus must be 10 or 11, got '${modulusText}'`);

  const fudgeText = field('fudge');
  if (!fudgePattern.test(fudgeText)) problem(`fudge must be an integer 0-999, got '${fudgeText}'`);

  const exceptionText = field('exception');
  let exceptionCode: string | undefined;
  let rule: ExceptionRule | undefined;
  let unknownException = false;
  if (exceptionText !== '') {
    if (!exceptionCodePattern.test(exceptionText)) {
      problem(`exception code must be 1-16 characters A-Z, 0-9, '_' or '-', got '${exceptionText}'`);
    } else {
      exceptionCode = exceptionText;
      rule = exceptionRules.get(exceptionText);
      if (rule === undefined) {
        if (unknownExceptions === 'reject') {
          problem(
            `unknown exception code '${exceptionText}' (registered: ${exceptionRules.codes.join(', ') || 'none'})`,
          );
        } else {
          unknownException = true;
        }
      }
    }
  }

  if (problems.count > before || !weights.ok) return undefined;
  const row: ParameterRow = Object.freeze({
    line,
    branchFrom: Number(branchFrom),
    branchTo: Number(branchTo),
    accountType,
    accountFrom,
    accountTo,
    verifiable: verifiableText === 'Y',
    weights: weights.weights,
    modulus: Number(modulusText) as Modulus,
    fudge: Number(fudgeText),
    exceptionCode,
  });
  if (rule?.validateRow !== undefined) {
    for (const message of rule.validateRow(row)) problem(message);
    if (problems.count > before) return undefined;
  }
  return { row, rule, unknownException };
}

/**
 * Two rows conflict when a typed lookup could land on both: same account type, intersecting branch
 * ranges and intersecting account ranges. Rows of different types may overlap; untyped lookups take the
 * first in file order.
 */
function checkOverlaps(rows: readonly ParsedParameterRow[], problems: ProblemList): void {
  const byType = new Map<string, ParameterRow[]>();
  for (const { row } of rows) {
    const group = byType.get(row.accountType);
    if (group === undefined) byType.set(row.accountType, [row]);
    else group.push(row);
  }
  const conflicts: { later: ParameterRow; earlier: ParameterRow }[] = [];
  for (const group of byType.values()) {
    group.sort((a, b) => a.branchFrom - b.branchFrom || a.line - b.line);
    for (let i = 0; i < group.length; i++) {
      const a = group[i]!;
      for (let j = i + 1; j < group.length && group[j]!.branchFrom <= a.branchTo; j++) {
        const b = group[j]!;
        if (a.accountFrom <= b.accountTo && b.accountFrom <= a.accountTo) {
          conflicts.push(a.line < b.line ? { later: b, earlier: a } : { later: a, earlier: b });
        }
      }
    }
  }
  conflicts.sort((x, y) => x.later.line - y.later.line || x.earlier.line - y.earlier.line);
  for (const { later, earlier } of conflicts) {
    problems.add(
      later.line,
      `overlaps the row on line ${earlier.line}: account type ${later.accountType}, branches ${describeRange(later.branchFrom, later.branchTo, 6)} and ${describeRange(earlier.branchFrom, earlier.branchTo, 6)}, with intersecting account ranges`,
    );
  }
}

function describeRange(from: number, to: number, width: number): string {
  return `${String(from).padStart(width, '0')}-${String(to).padStart(width, '0')}`;
}
