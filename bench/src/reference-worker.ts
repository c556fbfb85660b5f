import { parentPort, workerData } from 'node:worker_threads';
import type { RoundRequest } from './reference.ts';
import { referencePass, referenceWarmUp } from './reference-pass.ts';

/** A thread of the all-cores CPU reference (`startCpuReferences`). */
const { texts, gate } = workerData as { texts: string[]; gate: SharedArrayBuffer };
const port = parentPort;
if (!port) throw new Error('the CPU reference thread runs as a worker');
const arrived = new Int32Array(gate);
const pass = referencePass(texts);
for (let warm = 0; warm < referenceWarmUp; warm += 1) pass();
port.postMessage(0);

port.on('message', ({ passes, threads }: RoundRequest) => {
  // The gate: every thread of the round starts once the last has arrived.
  let seen = Atomics.add(arrived, 0, 1) + 1;
  if (seen >= threads) Atomics.notify(arrived, 0);
  while (seen < threads) {
    Atomics.wait(arrived, 0, seen);
    seen = Atomics.load(arrived, 0);
  }
  const started = performance.now();
  for (let index = 0; index < passes; index += 1) pass();
  port.postMessage(((performance.now() - started) * 1_000) / passes);
});
