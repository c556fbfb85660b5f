import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { bankSimulatorLogBench } from './simulator-memory.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));

describe("the bank simulator's log figures", () => {
  it("keeps every debit's postings and messages and reads the heap each kind grew and a full collection's stop", () => {
    const [postings, messages, collection] = bankSimulatorLogBench({ root, debits: 50 });
    expect(postings?.name).toBe('bank simulator: heap a posting keeps in its posting log');
    expect(postings?.detail).toContain('900 postings of 50 debits (18 a debit)');
    expect(postings?.value).toBeGreaterThan(0);
    expect(messages?.detail).toContain('150 messages of the same debits');
    expect(messages?.value).toBeGreaterThan(0);
    expect(collection?.unit).toBe('ms');
    expect(collection?.detail).toContain('with the 900 postings and 150 messages kept');
  });
});
