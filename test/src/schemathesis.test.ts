import { describe, expect, it } from 'vitest';
import { threadSafeAst } from './schemathesis.ts';

describe('threadSafeAst', () => {
  it('is false for the CPython releases that share the AST constructor state between threads', () => {
    for (const version of ['3.11.0', '3.11.7', '3.12.0', '3.12.1'])
      expect(threadSafeAst(version), version).toBe(false);
  });

  it('is true from the releases with the fix on, and for the lines before the bug', () => {
    for (const version of ['3.10.13', '3.11.8', '3.12.2', '3.13.0', '3.14.1']) {
      expect(threadSafeAst(version), version).toBe(true);
    }
  });
});
