import { describe, expect, test } from 'vitest';
import { KafkaError } from './errors.ts';
import { body, frame, readSchemaId } from './wire-format.ts';

describe('Confluent wire format', () => {
  test('magic byte 0, big-endian schema id, then the body', () => {
    const framed = frame(0x01020304, Buffer.from([9, 8]));
    expect([...framed]).toEqual([0, 1, 2, 3, 4, 9, 8]);
    expect(readSchemaId(framed)).toBe(0x01020304);
    expect([...body(framed)]).toEqual([9, 8]);
  });

  test('ids up to 2^32-1 survive', () => {
    expect(readSchemaId(frame(4_294_967_295, Buffer.alloc(0)))).toBe(4_294_967_295);
  });

  test('anything else is not wire format, and says so without retrying', () => {
    for (const bytes of [null, Buffer.alloc(0), Buffer.from([0, 0, 0]), Buffer.from('{"json":true}')]) {
      let caught: unknown;
      try {
        readSchemaId(bytes);
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(KafkaError);
      expect((caught as KafkaError).reason).toBe('AVRO_NOT_WIRE_FORMAT');
      expect((caught as KafkaError).retriable).toBe(false);
    }
  });
});
