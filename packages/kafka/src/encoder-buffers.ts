import { createRequire } from 'node:module';

/**
 * The members of kafkajs's protocol Encoder (kafkajs 2.2.4, `src/protocol/encoder.js`) that the change
 * below reads and replaces. Every request kafkajs sends, and every record it produces, is written by
 * encoders: one for the request, one for each topic and partition a fetch names, two for each record
 * and one for each of its headers.
 */
export interface EncoderInternals {
  /** The bytes written so far are `buf[0, offset)`; nothing past `offset` is ever read. */
  buf: Buffer;
  offset: number;
  readonly buffer: Buffer;
  ensureAvailable(length: number): void;
  writeUVarInt(value: number): EncoderInternals;
}

export interface EncoderClass {
  new (): EncoderInternals;
  nextPowerOfTwo(value: number): number;
  readonly prototype: EncoderInternals;
}

const require = createRequire(import.meta.url);

/** kafkajs's Encoder class: its prototype and its static sizing are where the change goes. */
export function encoderClass(): EncoderClass {
  return require('kafkajs/src/protocol/encoder.js') as EncoderClass;
}

/** kafkajs's first buffer for an encoder (its `nextPowerOfTwo(511)`). */
const firstBufferBytes = 512;

/** The power of two above `value`, as kafkajs sizes its buffers (512 for 511, 1,024 for 512). */
function powerOfTwoAbove(value: number): number {
  return 2 ** (32 - Math.clz32(value));
}

/**
 * Room for `length` more bytes, in a buffer from Node's pool (`Buffer.allocUnsafe`) rather than a fresh
 * zero-filled one (`Buffer.alloc`): an encoder only ever reads back what it wrote, so the zeros were never
 * read. Node hands buffers under 4 kB out of one shared 8 kB slab, where `Buffer.alloc` made each its own
 * backing store, which V8 tracks and frees one by one.
 */
function ensureAvailable(this: EncoderInternals, length: number): void {
  const needed = this.offset + length;
  if (needed <= this.buf.length) return;
  const grown = Buffer.allocUnsafe(Math.max(firstBufferBytes, powerOfTwoAbove(needed)));
  this.buf.copy(grown, 0, 0, this.offset);
  this.buf = grown;
}

/**
 * An unsigned varint (LEB128) written in place: the same bytes as kafkajs's, which collects them in an
 * array and copies them in through a `Buffer.from` of their own, for every length and count of a record.
 */
function writeUVarInt(this: EncoderInternals, value: number): EncoderInternals {
  this.ensureAvailable(5); // a 32-bit value takes at most five
  const buf = this.buf;
  let offset = this.offset;
  let rest = value;
  while ((rest & 0xffffff80) !== 0) {
    buf[offset] = (rest & 0x7f) | 0x80;
    offset += 1;
    rest >>>= 7;
  }
  buf[offset] = rest & 0x7f;
  this.offset = offset + 1;
  return this;
}

/** The constructor sizes its first buffer with `nextPowerOfTwo`; 0 makes it an empty one (nothing allocated). */
function noFirstBuffer(): number {
  return 0;
}

let patched = false;

/**
 * Takes kafkajs's encoders off fresh zero-filled buffers, once per process: each encoder began with a
 * `Buffer.alloc(512)` of its own and grew by new zero-filled ones, so a fetch naming 48 partitions made
 * 50 of them, and a produced record three or more. Now an encoder allocates nothing until it writes,
 * and then takes its room from Node's buffer pool (`ensureAvailable`, the one place kafkajs grows a
 * buffer, and the only other caller of `nextPowerOfTwo`). What is written does not change, byte for
 * byte; encoding a fetch of 48 partitions takes about a third of the time it did, a produced record about
 * three quarters (the bench's codec part, `bench/src/kafka-encoding.ts`, times both side by side).
 */
export function patchEncoder(): void {
  if (patched) return;
  patched = true;
  const Encoder = encoderClass();
  Encoder.prototype.ensureAvailable = ensureAvailable;
  Encoder.prototype.writeUVarInt = writeUVarInt;
  Encoder.nextPowerOfTwo = noFirstBuffer;
}
