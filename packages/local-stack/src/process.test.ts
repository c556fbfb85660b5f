import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { diskUsageKb, lastLines, tailFile } from './process.ts';

const dir = mkdtempSync(join(tmpdir(), 'rp-tail-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

describe('reading the end of a log', () => {
  it('answers every line of a log shorter than the window, empty lines left out', () => {
    expect(lastLines(file('short.log', 'one\ntwo\n\nthree\n'))).toEqual(['one', 'two', 'three']);
  });

  it('leaves out the first line the window cuts, never a fragment', () => {
    const path = file('long.log', 'aaaaaaaaaa\nbbbb\ncccc\n');
    // The last 12 bytes are two of the first line, then "bbbb\ncccc\n".
    expect(lastLines(path, 12)).toEqual(['bbbb', 'cccc']);
    // A window that starts exactly at a line keeps it; one that starts inside it does not.
    expect(lastLines(path, 10)).toEqual(['bbbb', 'cccc']);
    expect(lastLines(path, 9)).toEqual(['cccc']);
  });

  it('tails the last lines, and says so when there is no log', () => {
    const path = file(
      'many.log',
      `${Array.from({ length: 100 }, (_, index) => `line ${index}`).join('\n')}\n`,
    );
    expect(tailFile(path, 3)).toBe('line 97\nline 98\nline 99');
    expect(tailFile(join(dir, 'absent.log'))).toBe(`(no log at ${join(dir, 'absent.log')})`);
    expect(() => lastLines(join(dir, 'absent.log'))).toThrow();
  });
});

describe('the disk a folder takes', () => {
  it('counts the files of every folder below it, not what a link points to', () => {
    const top = join(dir, 'usage');
    mkdirSync(join(top, 'a', 'b'), { recursive: true });
    const before = diskUsageKb(top) as number;
    writeFileSync(join(top, 'a', 'one.bin'), randomBytes(64 * 1024));
    writeFileSync(join(top, 'a', 'b', 'two.bin'), randomBytes(128 * 1024));
    symlinkSync(join(top, 'a'), join(top, 'link'));
    const after = diskUsageKb(top) as number;
    // 192 kB of random data (no file system compresses it); a link is a few bytes at most, and a file system may allocate a block more.
    expect(after - before).toBeGreaterThanOrEqual(192);
    expect(after - before).toBeLessThan(192 + 64);
  });

  it('answers undefined for a folder that is not there', () => {
    expect(diskUsageKb(join(dir, 'nothing-here'))).toBe(undefined);
  });
});
