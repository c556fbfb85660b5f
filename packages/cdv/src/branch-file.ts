import { type ProblemList, readCsvDocument } from './csv.ts';
import type { Bank } from './outcome.ts';
import { branchCodePattern } from './parameter-file.ts';

export const BRANCH_FORMAT = 'rp-cdv-branches/1';

export const branchColumns = ['branch_code', 'bank_code', 'bank_name', 'branch_name'] as const;

const bankCodePattern = /^[A-Z0-9][A-Z0-9_-]{0,15}$/;

/** One row of the branch file. */
export interface Branch {
  readonly line: number;
  readonly code: string;
  readonly name: string;
  readonly bank: Bank;
}

export interface ParsedBranchFile {
  readonly metadata: ReadonlyMap<string, string>;
  readonly branches: readonly Branch[];
  readonly banks: readonly Bank[];
}

export function parseBranchFile(text: string, problems: ProblemList): ParsedBranchFile {
  const document = readCsvDocument(text, { format: BRANCH_FORMAT, header: branchColumns }, problems);
  const branches: Branch[] = [];
  const firstLineOfBranch = new Map<string, number>();
  const banks = new Map<string, { bank: Bank; line: number }>();

  for (const { line, fields } of document.records) {
    const [code = '', bankCode = '', bankName = '', branchName = ''] = fields;
    const before = problems.count;
    if (!branchCodePattern.test(code)) problems.add(line, `branch_code must be 6 digits, got '${code}'`);
    if (!bankCodePattern.test(bankCode)) {
      problems.add(line, `bank_code must be 1-16 characters A-Z, 0-9, '_' or '-', got '${bankCode}'`);
    }
    if (bankName === '') problems.add(line, 'bank_name is empty');
    const firstLine = firstLineOfBranch.get(code);
    if (firstLine !== undefined) problems.add(line, `duplicate branch ${code} (first on line ${firstLine})`);
    const known = banks.get(bankCode);
    if (known !== undefined && bankName !== '' && known.bank.name !== bankName) {
      problems.add(
        line,
        `bank ${bankCode} is named '${bankName}' here but '${known.bank.name}' on line ${known.line}`,
      );
    }
    if (problems.count > before) continue;

    firstLineOfBranch.set(code, line);
    let bank = known?.bank;
    if (bank === undefined) {
      bank = Object.freeze({ code: bankCode, name: bankName });
      banks.set(bankCode, { bank, line });
    }
    branches.push(Object.freeze({ line, code, name: branchName, bank }));
  }
  return {
    metadata: document.metadata,
    branches,
    banks: [...banks.values()].map((entry) => entry.bank),
  };
}
