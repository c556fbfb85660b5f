import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import {
  type HeapProfile,
  type HeapProfileNode,
  heapProfileRow,
  heapProfilesMissing,
  heapSampleMinute,
  sampleHeap,
  summarizeHeapProfile,
} from './heap-profile.ts';
import { freePort, inspectOption } from './inspector.ts';

const node = (
  functionName: string,
  url: string,
  selfSize: number,
  children: HeapProfileNode[] = [],
): HeapProfileNode => ({ callFrame: { functionName, url, lineNumber: 9 }, selfSize, children });

const profile: HeapProfile = {
  head: node('(root)', '', 0, [
    node('onBatch', 'file:///app/node_modules/kafkajs/src/consumer/runner.js', 1_000_000, [
      node('set', '', 3_000_000),
    ]),
    node('toJson', 'file:///app/packages/contracts/dist/json/message-json.js', 4_000_000, [
      node('write', 'node:buffer', 2_000_000),
    ]),
    node('processTicksAndRejections', 'node:internal/process/task_queues', 500_000),
  ]),
};

describe('a heap profile summarised', () => {
  const summary = summarizeHeapProfile(profile, 'allocated', 2);

  it('counts every byte once, a second over the window', () => {
    expect(summary.mb).toBe(10.5);
    expect(summary.mbPerSecond).toBe(5.25);
  });

  it("counts a built-in's or Node's own allocation for the script that called it", () => {
    expect(summary.packages).toEqual([
      { name: 'packages/contracts', mb: 6, percent: 57.1 },
      { name: 'kafkajs', mb: 4, percent: 38.1 },
      { name: 'node', mb: 0.5, percent: 4.8 },
    ]);
    expect(summary.functions.map((share) => share.name)).toEqual([
      'toJson packages/contracts/dist/json/message-json.js:10',
      'set from onBatch kafkajs/src/consumer/runner.js:10',
      'write from toJson packages/contracts/dist/json/message-json.js:10',
      'onBatch kafkajs/src/consumer/runner.js:10',
      'processTicksAndRejections node:internal/process/task_queues:10',
    ]);
  });

  it('keeps the most at the top, as many as asked', () => {
    const two = summarizeHeapProfile(profile, 'allocated', 2, 2);
    expect(two.packages.map((share) => share.name)).toEqual(['packages/contracts', 'kafkajs']);
    expect(two.functions).toHaveLength(2);
  });

  it('makes a row of MB a second, with the kB a debit at the rate and the shares', () => {
    const row = heapProfileRow('event-publisher', 3, summary, 35);
    expect(row).toMatchObject({
      group: 'profile',
      name: 'soak: heap allocated a second in minute 3: event-publisher',
      value: 5.25,
      unit: 'MB/s',
    });
    expect(row.detail).toContain('about 150 kB a debit at 35/s');
    expect(row.detail).toContain('by package: packages/contracts 57.1%, kafkajs 38.1%, node 4.8%');
    const outlived = heapProfileRow(
      'event-publisher',
      3,
      summarizeHeapProfile(profile, 'outlived-scavenges', 2),
      35,
    );
    expect(outlived.name).toBe(
      'soak: heap that outlived the scavenges a second in minute 3: event-publisher',
    );
  });
});

describe('heap profiles that could not be taken', () => {
  it('leave a row saying why in their place', () => {
    expect(heapProfilesMissing(3, 'no inspector of the tracker to sample')).toEqual({
      group: 'profile',
      name: 'soak: heap profiles in minute 3',
      value: 0,
      unit: 'profiles',
      detail: 'none taken: no inspector of the tracker to sample',
    });
  });
});

describe("the soak's minute for a heap profile", () => {
  it('is the middle one, past the first minutes and never past the last', () => {
    expect([1, 2, 3, 6, 15, 30, 45].map(heapSampleMinute)).toEqual([1, 2, 3, 3, 8, 15, 23]);
  });
});

describe("a running process's heap, sampled over its inspector", () => {
  it('shows what it allocates, and of that only what outlives the scavenges when asked', async () => {
    const port = await freePort();
    // Every millisecond, 1 KiB strings: some kept (in a list, dropped now and then as a whole), as many
    // made and dropped at once. Without the compiler, so that no function is inlined into another and each
    // allocation is seen in the function that makes it. A scavenge every 20 ms, whatever else the machine
    // runs: on a busy machine the timers fall behind, the young generation may not fill within the window,
    // and a dropped string left for a mark-compact would count as outliving the scavenges.
    const child = spawn(
      process.execPath,
      [
        inspectOption(port),
        '--jitless',
        '--expose-gc',
        '-e',
        `const kept = [];
         let dropped = 0;
         function keepStrings() { for (let i = 0; i < 20; i += 1) kept.push('k'.repeat(1024) + i); if (kept.length > 20000) kept.length = 0; }
         function dropStrings() { for (let i = 0; i < 20; i += 1) dropped += JSON.stringify({ text: 'd'.repeat(1024), i }).length; }
         setInterval(keepStrings, 1);
         setInterval(dropStrings, 1);
         setInterval(() => gc({ type: 'minor' }), 20);
         console.log('ready');`,
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    try {
      await new Promise<void>((resolve) =>
        child.stdout.on('data', (chunk: Buffer) => chunk.toString().includes('ready') && resolve()),
      );
      const shareOf = (summary: ReturnType<typeof summarizeHeapProfile>, name: string) =>
        summary.functions
          .filter((share) => share.name.includes(name))
          .reduce((sum, share) => sum + share.percent, 0);
      const allocated = summarizeHeapProfile(await sampleHeap(port, 'allocated', 1.5), 'allocated', 1.5, 50);
      const outlived = summarizeHeapProfile(
        await sampleHeap(port, 'outlived-scavenges', 1.5),
        'outlived-scavenges',
        1.5,
        50,
      );
      expect(allocated.mbPerSecond).toBeGreaterThan(0);
      expect(shareOf(allocated, 'keepStrings')).toBeGreaterThan(5);
      expect(shareOf(allocated, 'dropStrings')).toBeGreaterThan(5);
      // The dropped strings die in the young generation: a scavenge collects them.
      expect(shareOf(outlived, 'keepStrings')).toBeGreaterThan(shareOf(outlived, 'dropStrings'));
      expect(shareOf(outlived, 'dropStrings')).toBeLessThan(shareOf(allocated, 'dropStrings'));
    } finally {
      child.kill();
      await once(child, 'exit');
    }
  });

  it('says so when nothing listens on the port', async () => {
    await expect(sampleHeap(await freePort(), 'allocated', 0.1)).rejects.toThrow();
  });
});
