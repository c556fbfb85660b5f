import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EndToEnd, root, startEndToEnd } from './pipeline.ts';
import { runProgram } from './process.ts';
import { type Schemathesis, schemathesis } from './schemathesis.ts';

// The served OpenAPI document against the running ingress, by schemathesis (property-based: examples,
// the schema's boundaries and random data, valid and not): no 5xx, and every status, content type,
// header and body as the document says. Bank operations run with a bank's access token, the
// scheme-facing ones with the clearing house's token, as each is called in production.

const bank = '250655';
const reports = join(root, 'test', '.test-results', 'schemathesis');
/** Test cases per operation; more for a longer, deeper run (RP_SCHEMATHESIS_EXAMPLES). */
const examples = process.env.RP_SCHEMATHESIS_EXAMPLES ?? '40';
/** A fixed seed, so that a failure seen in CI comes back on a developer's machine (RP_SCHEMATHESIS_SEED). */
const seed = process.env.RP_SCHEMATHESIS_SEED ?? '20261124';

let e2e: EndToEnd;
let st: Schemathesis;

beforeAll(async () => {
  [st, e2e] = await Promise.all([schemathesis(), startEndToEnd()]);
  rmSync(reports, { recursive: true, force: true });
  mkdirSync(reports, { recursive: true });
});

afterAll(async () => {
  await e2e?.stop();
});

async function run(name: string, operations: readonly string[], authorization: string) {
  const origin = new URL(e2e.pipeline.apiUrl).origin;
  const result = await runProgram(
    st.program,
    [
      'run',
      `${e2e.pipeline.apiUrl}/openapi.json`,
      '--url',
      origin,
      ...operations.flatMap((operation) => ['--include-operation-id', operation]),
      '--header',
      `Authorization: ${authorization}`,
      '--checks',
      'all',
      // Data that the schema allows can still be refused by the rules beyond it (a creditor account the
      // CDV refuses, a bank that is no participant): those answers are documented 4xx, not failures.
      '--exclude-checks',
      'positive_data_acceptance',
      '--phases',
      'examples,coverage,fuzzing',
      '--max-examples',
      examples,
      '--seed',
      seed,
      // No example database carried between runs: the same seed gives the same run.
      '--generation-database',
      'none',
      // Threads only where the interpreter parses source safely from several at once.
      '--workers',
      String(st.workers),
      '--request-timeout',
      '30',
      '--no-color',
      '--report',
      'junit',
      '--report-dir',
      join(reports, name),
    ],
    {
      env: {
        ...process.env,
        SCHEMATHESIS_TELEMETRY: 'false',
        // No __pycache__ beside the hooks in the source tree.
        PYTHONDONTWRITEBYTECODE: '1',
        // Valid messages name a participant where the engine looks one up (the token's bank as the
        // instructing agent, a participant as a scheme message's debtor or creditor agent), so that they
        // get past those refusals to the rules behind them.
        SCHEMATHESIS_HOOKS: join(root, 'test', 'schemathesis', 'participant_hooks.py'),
        RP_SCHEMATHESIS_BANK: bank,
      },
      timeoutMs: 20 * 60_000,
    },
  );
  return result;
}

describe('the served OpenAPI document, by schemathesis against the running ingress', () => {
  it('bank-facing operations, with a bank access token: no 5xx, every response as documented', async () => {
    const result = await run(
      'bank',
      [
        'outboundDirectDebit',
        'inboundDirectDebitResponse',
        'inboundCreditTransferAuthorizationResponse',
        // Reads: random UUIDs name no transaction of the bank's (404), other strings are not UUIDs (422).
        'getTransaction',
      ],
      await e2e.pipeline.bankAuthorization(bank),
    );
    expect(result.output).toMatch(/\d+ generated/);
    // The hooks worked: no operation was answered only with 401 or 403.
    expect(result.output).not.toMatch(/Authentication failed/);
    expect(result.code, result.output.slice(-6_000)).toBe(0);
  }, 900_000);

  it('scheme-facing operations, with the clearing house token: no 5xx, every response as documented', async () => {
    const result = await run(
      'scheme',
      ['inboundCreditTransferAuthorization', 'inboundDirectDebitFromScheme'],
      `Bearer ${e2e.pipeline.scheme.token}`,
    );
    expect(result.output).toMatch(/\d+ generated/);
    expect(result.code, result.output.slice(-6_000)).toBe(0);
  }, 900_000);
});
