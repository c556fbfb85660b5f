import { describe, expect, it } from 'vitest';
import { BankGate, type BankGateOptions, BankGates } from './bank-gate.ts';

function gate(now: { value: number }, options: Partial<BankGateOptions> = {}) {
  return new BankGate({
    concurrency: 2,
    failureThreshold: 3,
    baseCooldownMs: 1_000,
    maxCooldownMs: 4_000,
    now: () => now.value,
    ...options,
  });
}

describe('bank gate', () => {
  it('pauses a bank after failures in a row, probes it once the pause is over, and doubles the pause', () => {
    const now = { value: 0 };
    const subject = gate(now);
    for (let failure = 0; failure < 2; failure += 1) subject.report(subject.admit()!, { kind: 'failed' });
    subject.report(subject.admit()!, { kind: 'answered' });
    for (let failure = 0; failure < 3; failure += 1) subject.report(subject.admit()!, { kind: 'failed' });
    expect(subject.isOpen).toBe(true);
    expect(subject.admit()).toBeUndefined();
    expect(subject.probeDue).toBe(false);

    now.value = 1_000;
    expect(subject.probeDue).toBe(true);
    const probe = subject.admit();
    expect(probe).toEqual({ probe: true });
    expect(subject.admit()).toBeUndefined();
    subject.report(probe!, { kind: 'failed' });
    expect(subject.resumeInMs).toBe(2_000);

    now.value = 3_000;
    subject.report(subject.admit()!, { kind: 'failed' });
    expect(subject.resumeInMs).toBe(4_000);
    now.value = 7_000;
    subject.report(subject.admit()!, { kind: 'failed' });
    expect(subject.resumeInMs).toBe(4_000);
  });

  it('closes when the probe is answered and tells who listens', () => {
    const now = { value: 0 };
    const gates = new BankGates({
      concurrency: 1,
      failureThreshold: 1,
      baseCooldownMs: 10,
      maxCooldownMs: 10,
      now: () => now.value,
    });
    const recovered: string[] = [];
    gates.onRecovered((memberId) => recovered.push(memberId));
    const subject = gates.of('250655');
    subject.report(subject.admit()!, { kind: 'failed' });
    expect(subject.isOpen).toBe(true);
    now.value = 10;
    subject.report(subject.admit()!, { kind: 'answered' });
    expect(subject.isOpen).toBe(false);
    expect(recovered).toEqual(['250655']);
    expect(subject.admit()).toEqual({ probe: false });
  });

  it("pauses for a bank's Retry-After at once", () => {
    const now = { value: 0 };
    const subject = gate(now);
    subject.report(subject.admit()!, { kind: 'paused', forMs: 30_000 });
    expect(subject.isOpen).toBe(true);
    expect(subject.resumeInMs).toBe(30_000);
  });

  it('counts a pause once however many requests in flight come back refused, and doubles it per failed probe only', () => {
    const now = { value: 0 };
    const subject = gate(now, { concurrency: 32, failureThreshold: 5, maxCooldownMs: 60_000 });
    // Thirty requests out at once; half of them come back 503 with Retry-After: 1.
    const tickets = Array.from({ length: 30 }, () => subject.admit()!);
    for (const ticket of tickets.slice(0, 15)) subject.report(ticket, { kind: 'paused', forMs: 1_000 });
    expect(subject.resumeInMs).toBe(1_000);
    now.value = 1_000;
    const probe = subject.admit()!;
    expect(probe.probe).toBe(true);
    subject.report(probe, { kind: 'failed' });
    expect(subject.resumeInMs).toBe(2_000);
  });

  it('pauses for the Retry-After a probe is answered with, not for the doubled cooldown', () => {
    const now = { value: 0 };
    const subject = gate(now);
    for (let failure = 0; failure < 3; failure += 1) subject.report(subject.admit()!, { kind: 'failed' });
    for (const at of [1_000, 3_000, 7_000]) {
      now.value = at;
      subject.report(subject.admit()!, { kind: 'failed' });
    }
    expect(subject.resumeInMs).toBe(4_000);
    now.value = 11_000;
    subject.report(subject.admit()!, { kind: 'paused', forMs: 1_000 });
    expect(subject.isOpen).toBe(true);
    expect(subject.resumeInMs).toBe(1_000);
    now.value = 12_000;
    subject.report(subject.admit()!, { kind: 'answered' });
    expect(subject.isOpen).toBe(false);
  });

  it('lets at most `concurrency` requests in at a time, the next one as soon as one ends', async () => {
    const subject = gate({ value: 0 });
    const first = await subject.slot();
    const second = await subject.slot();
    let thirdIn = false;
    const third = subject.slot().then((release) => {
      thirdIn = true;
      return release;
    });
    await Promise.resolve();
    expect(thirdIn).toBe(false);
    expect(subject.inFlight).toBe(2);
    first();
    first();
    (await third)();
    second();
    expect(subject.inFlight).toBe(0);
  });
});
