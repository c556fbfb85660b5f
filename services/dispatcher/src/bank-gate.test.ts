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
    expect(await gate.admit()).toEqual({ admitted: false, reason: 'bank-busy' });
  });

  test('a bank that stopped answering is paused, then gets one probe', async () => {
    let now = 0;
    const gate = new BankGate({ concurrency: 4, maxWaitMs: 10, cooldownMs: 5_000, now: () => now });
    admitted(await gate.admit()).release({ kind: 'unresponsive' });
    expect(await gate.admit()).toEqual({ admitted: false, reason: 'bank-unresponsive' });
    now = 5_000;
    const probe = admitted(await gate.admit());
    expect(await gate.admit()).toEqual({ admitted: false, reason: 'bank-unresponsive' });
    probe.release({ kind: 'answered' });
    admitted(await gate.admit());
    admitted(await gate.admit());
  });

  test("a bank's Retry-After pauses it", async () => {
    let now = 0;
    const gate = new BankGate({ concurrency: 4, maxWaitMs: 10, cooldownMs: 5_000, now: () => now });
    admitted(await gate.admit()).release({ kind: 'paused', forMs: 2_000 });
    expect(await gate.admit()).toEqual({ admitted: false, reason: 'bank-unresponsive' });
    now = 2_000;
    admitted(await gate.admit());
  });
});
