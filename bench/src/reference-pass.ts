import { createHash } from 'node:crypto';

/**
 * One pass of the CPU reference's fixed work over `texts` (a journey's example messages): each parsed and
 * printed by V8's JSON, hashed with FNV-1a in plain JavaScript and with SHA-256; pure CPU, no I/O. Each
 * pass folds its hashes into one that outlives it, so no compiler may leave the work out.
 */
export function referencePass(texts: readonly string[]): () => void {
  const sink = { hash: 0 };
  return () => {
    for (const text of texts) {
      const printed = JSON.stringify(JSON.parse(text));
      let hash = 0x811c9dc5;
      for (let index = 0; index < printed.length; index += 1) {
        hash = Math.imul(hash ^ printed.charCodeAt(index), 0x01000193);
      }
      sink.hash ^= hash ^ (createHash('sha256').update(printed).digest()[0] ?? 0);
    }
  };
}

/** Passes each reference's pass runs before it is first timed, so no reading is the interpreter's. */
export const referenceWarmUp = 2_000;
