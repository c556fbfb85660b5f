import { describe, expect, it } from 'vitest';
import { staleOutputs } from '../scripts/generate.ts';

describe('generated files', () => {
  it('match the .avsc files and the catalogues (run npm run generate -w @rp/contracts if not)', () => {
    expect(staleOutputs()).toEqual([]);
  });
});
