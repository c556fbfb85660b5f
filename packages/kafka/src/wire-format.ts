import { KafkaError } from './errors.ts';

/**
 * Confluent wire format: magic byte 0, the schema id as a 4-byte big-endian unsigned integer, then the
 * Avro binary body. Readers anywhere (Java, Python confluent-kafka) find the writer schema by that id.
 */
export const magicByte = 0;
export const headerLength = 5;

export function frame(schemaId: number, body: Buffer): Buffer {
  const framed = Buffer.allocUnsafe(headerLength + body.length);
  framed.writeUInt8(magicByte, 0);
  framed.writeUInt32BE(schemaId, 1);
  body.copy(framed, headerLength);
  return framed;
}

export function readSchemaId(buffer: Buffer | null | undefined): number {
  if (!buffer || buffer.length < headerLength) {
    throw new KafkaError(
      'AVRO_NOT_WIRE_FORMAT',
      `value of ${buffer?.length ?? 0} bytes is shorter than the ${headerLength}-byte wire-format header`,
    );
  }
  const magic = buffer.readUInt8(0);
  if (magic !== magicByte) {
    throw new KafkaError('AVRO_NOT_WIRE_FORMAT', `value starts with byte ${magic}, not the magic byte 0`);
  }
  return buffer.readUInt32BE(1);
}

export function body(buffer: Buffer): Buffer {
  return buffer.subarray(headerLength);
}
