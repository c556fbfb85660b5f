import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { collectGarbage, freePort, inspectOption } from './inspector.ts';

describe("a service's inspector", () => {
  it('makes the process collect its garbage: a full collection, answered once done', async () => {
    const port = await freePort();
    // A process that reports each full (mark-compact) collection it makes, and otherwise idles.
    const child = spawn(
      process.execPath,
      [
        inspectOption(port),
        '-e',
        `const { PerformanceObserver, constants } = require('node:perf_hooks');
         new PerformanceObserver((list) => {
           for (const entry of list.getEntries())
             if (entry.detail.kind === constants.NODE_PERFORMANCE_GC_MAJOR) console.log('major');
         }).observe({ entryTypes: ['gc'] });
         console.log('ready');
         setInterval(() => {}, 1000);`,
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    try {
      const lines: string[] = [];
      const waiters: (() => void)[] = [];
      child.stdout.on('data', (chunk: Buffer) => {
        lines.push(...chunk.toString().split('\n').filter(Boolean));
        for (const wake of waiters.splice(0)) wake();
      });
      const count = (line: string) => lines.filter((seen) => seen === line).length;
      const seen = async (line: string, times: number) => {
        while (count(line) < times) await new Promise<void>((resolve) => waiters.push(resolve));
      };
      await seen('ready', 1);
      const before = count('major');
      await collectGarbage(port);
      // Idle, the process makes no full collection of its own: this one is the inspector's.
      await seen('major', before + 1);
      expect(count('major')).toBeGreaterThan(before);
    } finally {
      child.kill();
      await once(child, 'exit');
    }
  });

  it('says so when nothing listens on the port', async () => {
    const port = await freePort();
    await expect(collectGarbage(port)).rejects.toThrow();
  });
});
