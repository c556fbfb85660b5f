import { createMetrics } from '@rp/runtime';
import { describe, expect, test } from 'vitest';
import { validatorMetrics } from './metrics.ts';

/** The value of the sample whose name and labels are given (labels in exposition order), else undefined. */
function sample(body: string, name: string, labels: string): number | undefined {
  const line = body.split('\n').find((entry) => entry.startsWith(`${name}{${labels}`));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

describe('validator metrics', () => {
  test("credits are counted apart from debits, whose counters the console's overview reads", async () => {
    const registry = createMetrics({ service: 'validator', defaultMetrics: false });
    const metrics = validatorMetrics(registry);
    metrics.received('debit', 3);
    metrics.received('credit', 2);
    metrics.validated('debit', 'accepted', []);
    metrics.validated('credit', 'rejected', ['AC03', 'AG01']);
    metrics.validated('credit', 'accepted', []);
    metrics.skipped('credit', 'past-validation');
    metrics.cdv('credit', 'creditor', 'FAILED');
    const { body } = await registry.render();

    expect(body).toMatch(/^rp_validator_debits_received_total\{service="validator"\} 3$/m);
    expect(body).toMatch(/^rp_validator_credits_received_total\{service="validator"\} 2$/m);
    expect(sample(body, 'rp_validator_debits_validated_total', 'outcome="accepted"')).toBe(1);
    expect(sample(body, 'rp_validator_debits_validated_total', 'outcome="rejected"')).toBeUndefined();
    expect(sample(body, 'rp_validator_credits_validated_total', 'outcome="rejected"')).toBe(1);
    expect(sample(body, 'rp_validator_credits_validated_total', 'outcome="accepted"')).toBe(1);
    expect(sample(body, 'rp_validator_rejection_reasons_total', 'flow="credit",code="AC03"')).toBe(1);
    expect(sample(body, 'rp_validator_credits_skipped_total', 'reason="past-validation"')).toBe(1);
    expect(sample(body, 'rp_validator_debits_skipped_total', 'reason="past-validation"')).toBeUndefined();
    expect(
      sample(body, 'rp_validator_cdv_outcomes_total', 'flow="credit",role="creditor",status="FAILED"'),
    ).toBe(1);
  });
});
