import { describe, expect, it } from 'vitest';
import { KeyedSerial } from './keyed-serial.ts';

const tick = () => new Promise((resolve) => setTimeout(resolve, 1));

describe('KeyedSerial', () => {
  it('runs the work of one key one at a time, in call order, and other keys side by side', async () => {
    const serial = new KeyedSerial();
    const log: string[] = [];
    let inFlight = 0;
    let most = 0;
    const work = (name: string) => async () => {
      inFlight += 1;
      most = Math.max(most, inFlight);
      log.push(`start ${name}`);
      await tick();
      log.push(`end ${name}`);
      inFlight -= 1;
      return name;
    };
    const results = await Promise.all([
      serial.run('a', work('a1')),
      serial.run('a', work('a2')),
      serial.run('b', work('b1')),
      serial.run('a', work('a3')),
    ]);
    expect(results).toEqual(['a1', 'a2', 'b1', 'a3']);
    const ofA = log.filter((line) => line.endsWith('a1') || line.endsWith('a2') || line.endsWith('a3'));
    expect(ofA).toEqual(['start a1', 'end a1', 'start a2', 'end a2', 'start a3', 'end a3']);
    expect(most).toBe(2);
    expect(serial.size).toBe(0);
  });

  it('goes on with the next work of a key after a failure, and passes the failure to its caller', async () => {
    const serial = new KeyedSerial();
    const failed = serial.run('a', async () => {
      await tick();
      throw new Error('boom');
    });
    const next = serial.run('a', async () => 'next');
    await expect(failed).rejects.toThrow('boom');
    await expect(next).resolves.toBe('next');
    await tick();
    expect(serial.size).toBe(0);
  });

  it('runs work for several keys after the earlier work of each, before the later, and holds up no other key', async () => {
    const serial = new KeyedSerial();
    const log: string[] = [];
    const work = (name: string) => async () => {
      log.push(`start ${name}`);
      await tick();
      log.push(`end ${name}`);
      return name;
    };
    const results = await Promise.all([
      serial.run('a', work('a1')),
      serial.run('b', work('b1')),
      serial.runAll(['a', 'b', 'a'], work('ab')),
      serial.run('c', work('c1')),
      serial.run('b', work('b2')),
    ]);
    expect(results).toEqual(['a1', 'b1', 'ab', 'c1', 'b2']);
    const position = (line: string) => log.indexOf(line);
    expect(position('start ab')).toBeGreaterThan(position('end a1'));
    expect(position('start ab')).toBeGreaterThan(position('end b1'));
    expect(position('start b2')).toBeGreaterThan(position('end ab'));
    // c is not held up by the work of a and b.
    expect(position('start c1')).toBeLessThan(position('end a1'));
    await tick();
    expect(serial.size).toBe(0);
  });
});
