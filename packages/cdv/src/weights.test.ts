import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatWeights, MAX_WEIGHT, parseWeights, weightCharacter, weightValue } from './weights.ts';

const weightAlphabet = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ';

describe('weight characters', () => {
  it('reads 0-9 as themselves and A..Z as 10..35', () => {
    expect(weightValue('0')).toBe(0);
    expect(weightValue('9')).toBe(9);
    expect(weightValue('A')).toBe(10);
    expect(weightValue('K')).toBe(20);
    expect(weightValue('Z')).toBe(35);
  });

  it('rejects lower case, punctuation and multi-character input', () => {
    for (const bad of ['a', 'z', ' ', '-', '', 'AB', '@', '[']) expect(weightValue(bad)).toBeUndefined();
    expect(() => weightCharacter(36)).toThrow(RangeError);
    expect(() => weightCharacter(-1)).toThrow(RangeError);
  });

  it('parses an 11-character weight string into integers', () => {
    const parsed = parseWeights('0A987654321');
    expect(parsed.ok && [...parsed.weights]).toEqual([0, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1]);
  });

  it('explains a wrong weight count and a bad character', () => {
    expect(parseWeights('987654321')).toEqual({
      ok: false,
      problem: 'weights must have 11 characters (one per digit), got 9',
    });
    expect(parseWeights('0a987654321')).toEqual({
      ok: false,
      problem: "weight character 'a' at position 2 is not 0-9 or A-Z",
    });
  });

  it('round-trips every value through its character', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: MAX_WEIGHT }), (value) => {
        expect(weightValue(weightCharacter(value))).toBe(value);
      }),
    );
  });

  it('round-trips weight arrays and weight strings', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: MAX_WEIGHT }), { minLength: 11, maxLength: 11 }),
        (values) => {
          const parsed = parseWeights(formatWeights(values));
          expect(parsed.ok && [...parsed.weights]).toEqual(values);
        },
      ),
    );
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(...weightAlphabet), { minLength: 11, maxLength: 11 }),
        (characters) => {
          const text = characters.join('');
          const parsed = parseWeights(text);
          expect(parsed.ok && formatWeights(parsed.weights)).toBe(text);
        },
      ),
    );
  });
});
