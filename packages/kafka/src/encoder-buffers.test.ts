import { createRequire } from 'node:module';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { type EncoderClass, type EncoderInternals, encoderClass, patchEncoder } from './encoder-buffers.ts';
import { withShippedKafkajs } from './shipped-kafkajs.ts';

const require = createRequire(import.meta.url);

/** A copy of kafkajs's Encoder as shipped: the module evaluated again, outside the require cache. */
function shippedEncoderClass(): EncoderClass {
  return withShippedKafkajs(() => require('kafkajs/src/protocol/encoder.js') as EncoderClass);
}

/** The writes kafkajs makes, by name and argument, for an encoder of either class to replay. */
type Write = readonly [method: string, value: unknown];

const writes: fc.Arbitrary<Write> = fc.oneof(
  fc.tuple(fc.constant('writeInt8'), fc.integer({ min: -128, max: 127 })),
  fc.tuple(fc.constant('writeInt16'), fc.integer({ min: -32_768, max: 32_767 })),
  fc.tuple(fc.constant('writeInt32'), fc.integer()),
  fc.tuple(fc.constant('writeUInt32'), fc.nat({ max: 0xffff_ffff })),
  fc.tuple(
    fc.constant('writeInt64'),
    fc.oneof(fc.maxSafeInteger(), fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }).map(String)),
  ),
  fc.tuple(fc.constant('writeDouble'), fc.double({ noNaN: true })),
  fc.tuple(fc.constant('writeBoolean'), fc.boolean()),
  fc.tuple(fc.constant('writeString'), fc.option(fc.string({ unit: 'grapheme', maxLength: 40 }))),
  fc.tuple(fc.constant('writeVarIntString'), fc.option(fc.string({ maxLength: 40 }))),
  fc.tuple(fc.constant('writeUVarIntString'), fc.option(fc.string({ maxLength: 40 }))),
  fc.tuple(fc.constant('writeVarInt'), fc.integer()),
  fc.tuple(fc.constant('writeUVarInt'), fc.oneof(fc.nat({ max: 0xffff_ffff }), fc.integer())),
  fc.tuple(fc.constant('writeVarLong'), fc.oneof(fc.integer(), fc.maxSafeInteger())),
  // Byte strings past 4 kB too: Node allocates those outside its pool.
  ...(['writeBytes', 'writeVarIntBytes', 'writeUVarIntBytes'] as const).map((method) =>
    fc.tuple(
      fc.constant(method),
      fc.option(
        fc.oneof(
          fc.uint8Array({ maxLength: 600 }).map(Buffer.from),
          fc.uint8Array({ minLength: 4_000, maxLength: 9_000 }).map(Buffer.from),
          fc.string({ maxLength: 40 }),
        ),
      ),
    ),
  ),
  fc.tuple(fc.constant('writeBuffer'), fc.uint8Array({ maxLength: 600 }).map(Buffer.from)),
  fc.tuple(fc.constant('writeArray'), fc.array(fc.integer(), { maxLength: 20 })),
  fc.tuple(fc.constant('writeVarIntArray'), fc.array(fc.integer(), { maxLength: 20 })),
);

/** Writes, in order; a nested list is an encoder of its own, written in with writeEncoder. */
type Script = readonly (Write | Script)[];

function encode(Encoder: EncoderClass, script: Script): EncoderInternals {
  const encoder = new Encoder();
  const methods = encoder as unknown as Record<string, (value: unknown) => unknown>;
  for (const step of script) {
    if (isWrite(step)) methods[step[0]]?.call(encoder, step[1]);
    else methods.writeEncoder?.call(encoder, encode(Encoder, step));
  }
  return encoder;
}

function isWrite(step: Write | Script): step is Write {
  return typeof step[0] === 'string';
}

describe("kafkajs's encoder", () => {
  test('as shipped, every encoder starts with a zero-filled buffer of its own (if not, the change can go)', () => {
    const Shipped = shippedEncoderClass();
    const encoder = new Shipped();
    expect(encoder.buf.length).toBe(512);
    expect(encoder.buf.buffer.byteLength).toBe(512);
    expect(encoder.buf.every((byte) => byte === 0)).toBe(true);
  });

  test('changed, an encoder allocates nothing until it writes, then takes its room from the buffer pool', () => {
    patchEncoder();
    patchEncoder(); // once per process, however often it is called
    const Encoder = encoderClass();
    const encoder = new Encoder();
    expect(encoder.buf.length).toBe(0);
    encoder.writeUVarInt(300);
    expect(encoder.buf.length).toBe(512);
    expect(encoder.buf.buffer.byteLength).toBe(Buffer.poolSize);
    expect([...encoder.buffer]).toEqual([0xac, 0x02]);
  });

  test('changed, it writes the same bytes as shipped, for every write kafkajs makes', () => {
    patchEncoder();
    const Shipped = shippedEncoderClass();
    const Changed = encoderClass();
    expect(Changed).not.toBe(Shipped);
    const scripts: fc.Arbitrary<Script> = fc.array(fc.oneof(writes, fc.array(writes, { maxLength: 8 })), {
      maxLength: 30,
    });
    fc.assert(
      fc.property(scripts, (script) => {
        const changed = encode(Changed, script).buffer;
        const shipped = encode(Shipped, script).buffer;
        expect(changed.toString('hex')).toBe(shipped.toString('hex'));
      }),
      { numRuns: 300 },
    );
  });
});
