import { describe, expect, test } from 'vitest';
import { type Admission, BankGate } from './bank-gate.ts';

function admitted(admission: Admission) {
  if (!admission.admitted) throw new Error(`not admitted: ${admission.reason}`);
  return admission;
}

describe('a bank gate', () => {
  test('caps calls in flight; a waiting call takes the next free slot', async () => {
    const gate = new BankGate({ concurrency: 2, maxWaitMs: 10_000, cooldownMs: 1_000 });
    const first = admitted(await gate.admit());
    admitted(await gate.admit());
    const third = gate.admit();
    expect(gate.inFlight).toBe(2);
    first.release({ kind: 'answered' });
    admitted(await third);
    expect(gate.inFlight).toBe(2);
  });

  test('a call that waits too long for a slot is deferred', async () => {
    const gate = new BankGate({ concurrency: 1, maxWaitMs: 10, cooldownMs: 1_000 });
    admitted(await gate.admit());
    expect(await gate.admit()).toEqual({ admitted: false, reason: 'bank-busy', retryInMs: 0 });
  });

  test('a bank that stopped answering is paused, then gets one probe', async () => {
    let now = 0;
    const gate = new BankGate({ concurrency: 4, maxWaitMs: 10, cooldownMs: 5_000, now: () => now });
    admitted(await gate.admit()).release({ kind: 'unresponsive' });
    now = 1_000;
    expect(await gate.admit()).toEqual({ admitted: false, reason: 'bank-unresponsive', retryInMs: 4_000 });
    now = 5_000;
    const probe = admitted(await gate.admit());
    expect(await gate.admit()).toEqual({ admitted: false, reason: 'bank-unresponsive', retryInMs: 5_000 });
    probe.release({ kind: 'answered' });
    admitted(await gate.admit());
    admitted(await gate.admit());
  });

  test("a bank's Retry-After pauses it", async () => {
    let now = 0;
    const gate = new BankGate({ concurrency: 4, maxWaitMs: 10, cooldownMs: 5_000, now: () => now });
    admitted(await gate.admit()).release({ kind: 'paused', forMs: 2_000 });
    expect(await gate.admit()).toEqual({ admitted: false, reason: 'bank-unresponsive', retryInMs: 2_000 });
    now = 2_000;
    admitted(await gate.admit());
  });

  test('retryable refusals in a row pause the bank like a timeout; an answer in between resets the count', async () => {
    let now = 0;
    const gate = new BankGate({
      concurrency: 4,
      maxWaitMs: 10,
      cooldownMs: 5_000,
      failureThreshold: 3,
      now: () => now,
    });
    admitted(await gate.admit()).release({ kind: 'failing' });
    admitted(await gate.admit()).release({ kind: 'failing' });
    admitted(await gate.admit()).release({ kind: 'answered' });
    admitted(await gate.admit()).release({ kind: 'failing' });
    admitted(await gate.admit()).release({ kind: 'failing' });
    admitted(await gate.admit()).release({ kind: 'failing' });
    expect(await gate.admit()).toEqual({ admitted: false, reason: 'bank-unresponsive', retryInMs: 5_000 });
    // The probe refused again: another pause; then answered: open to all.
    now = 5_000;
    admitted(await gate.admit()).release({ kind: 'failing' });
    expect((await gate.admit()).admitted).toBe(false);
    now = 10_000;
    admitted(await gate.admit()).release({ kind: 'answered' });
    admitted(await gate.admit());
    admitted(await gate.admit());
  });
});
