import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { cpuReference, startCpuReferences } from './reference.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));

describe('the CPU reference', () => {
  it("times one pass over a journey's example messages, in microseconds", () => {
    const reference = cpuReference(root);
    const each = reference(20, 2);
    expect(each).toBeGreaterThan(0);
    expect(Number.isFinite(each)).toBe(true);
  });

  it('fails when the examples cannot be read, rather than timing nothing', () => {
    expect(() => cpuReference('/nonexistent')).toThrow(/ENOENT/);
  });
});

describe('the CPU reference on every core at once', () => {
  it('reads a pass on one thread and on a thread a core, each in microseconds', async () => {
    const references = await startCpuReferences(root, 2);
    try {
      expect(references.threads).toBe(2);
      const first = await references.read({ passes: 20, rounds: 2, allCoresRounds: 3 });
      expect(first.oneThread).toBeGreaterThan(0);
      // Every round, in the thread's own CPU time.
      expect(first.oneThreadCpu).toBeGreaterThan(0);
      expect(Number.isFinite(first.oneThreadCpu)).toBe(true);
      expect(first.allCores).toBeGreaterThan(0);
      expect(Number.isFinite(first.allCores)).toBe(true);
      // The threads stay for the next reading: a window's reference is read before it and after it.
      const second = await references.read({ passes: 20, rounds: 2, allCoresRounds: 3 });
      expect(second.allCores).toBeGreaterThan(0);
    } finally {
      await references.close();
    }
  });

  it('fails when the examples cannot be read, and leaves no thread behind', async () => {
    await expect(startCpuReferences('/nonexistent', 2)).rejects.toThrow(/ENOENT/);
  });

  it('fails a reading whose threads have ended, rather than waiting for them', async () => {
    const references = await startCpuReferences(root, 2);
    await references.close();
    await expect(references.read({ passes: 20, rounds: 1, allCoresRounds: 1 })).rejects.toThrow(
      /thread ended/,
    );
  });

  it('refuses fewer than one thread, which would read nothing', async () => {
    await expect(startCpuReferences(root, 0)).rejects.toThrow(/at least one thread/);
  });
});
