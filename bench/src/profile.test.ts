import { describe, expect, it } from 'vitest';
import { packageOf, summarizeProfile } from './profile.ts';

describe('CPU profile summaries', () => {
  it('names the package a script belongs to', () => {
    expect(packageOf('file:///repo/node_modules/kafkajs/src/producer/index.js')).toBe('kafkajs');
    expect(packageOf('file:///repo/node_modules/@hono/node-server/dist/index.mjs')).toBe('@hono/node-server');
    expect(packageOf('file:///repo/services/tracker/dist/app.js')).toBe('services/tracker');
    expect(packageOf('node:internal/streams/readable')).toBe('node');
    expect(packageOf('')).toBe('(engine)');
  });

  it('adds self time per function and per package, leaving idle time out', () => {
    const frame = (functionName: string, url = '', lineNumber = 0) => ({ functionName, url, lineNumber });
    const summary = summarizeProfile({
      nodes: [
        { id: 1, callFrame: frame('(root)') },
        { id: 2, callFrame: frame('(idle)') },
        { id: 3, callFrame: frame('encode', 'file:///r/node_modules/avsc/lib/types.js', 9) },
        { id: 4, callFrame: frame('decide', 'file:///r/services/tracker/dist/sequencer.js', 41) },
        { id: 5, callFrame: frame('(garbage collector)') },
      ],
      samples: [2, 3, 3, 4, 5, 2, 3],
      timeDeltas: [5000, 1000, 1000, 1000, 1000, 9000, 2000],
    });
    expect(summary.busyMs).toBe(6);
    expect(summary.functions).toEqual([
      { name: 'encode avsc/lib/types.js:10', ms: 4, percent: 66.7 },
      { name: 'decide services/tracker/dist/sequencer.js:42', ms: 1, percent: 16.7 },
      { name: '(garbage collector)', ms: 1, percent: 16.7 },
    ]);
    expect(summary.packages.map((share) => share.name)).toEqual([
      'avsc',
      'services/tracker',
      '(garbage collector)',
    ]);
  });
});
