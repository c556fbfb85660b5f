import {
  avroSchema,
  avroType,
  decodeAvro,
  encodeAvro,
  type MessageName,
  type Messages,
  registerSchemas,
  type TopicName,
  topics,
} from '@rp/contracts';
import { type AvroCodec, type AvroSerde, type DecodeOutcome, KafkaError } from '@rp/kafka';
import type { PipelineCodecs } from './producer.ts';
import type { TopicNames } from './topics.ts';

/**
 * Topic codecs whose values are the plain message shapes of @rp/contracts (optional members absent,
 * unions bare, amounts as decimal strings), as the pipeline's typed producer and the handlers expect.
 *
 * The serde's codecs read and write avsc's own value shape (every field present, null for absent,
 * wrapped unions), which the TransactionStateChanged union (CreditTransfer | DirectDebit) cannot be
 * written from. These codecs keep the serde's registration, wire format and schema resolution, and
 * convert at the edge with the contracts' encodeAvro / decodeAvro.
 */
export async function createPlainCodecs(
  serde: AvroSerde,
  names: TopicNames,
  only: readonly TopicName[],
  options: { registryUrl?: string } = {},
): Promise<Partial<PipelineCodecs>> {
  if (options.registryUrl) {
    // Each subject gets BACKWARD compatibility before its schema is registered, so a breaking schema
    // change is refused by the registry at start-up instead of reaching the topic.
    const subjects = Object.fromEntries(only.map((topic) => [`${names[topic]}-value`, topics[topic].value]));
    await registerSchemas({ registryUrl: options.registryUrl, subjects });
  }
  const entries = await Promise.all(
    only.map(async (topic) => {
      const message = topics[topic].value;
      const inner = await serde.codec<unknown>(`${names[topic]}-value`, avroSchema(message));
      return [topic, plainCodec(message, inner)] as const;
    }),
  );
  return Object.fromEntries(entries) as Partial<PipelineCodecs>;
}

const headerBytes = 5;

export function plainCodec<N extends MessageName>(
  name: N,
  inner: AvroCodec<unknown>,
): AvroCodec<Messages[N]> {
  const header = Buffer.alloc(headerBytes);
  header.writeUInt32BE(inner.schemaId, 1);
  const ownSchema = (buffer: Buffer | null): buffer is Buffer =>
    buffer !== null &&
    buffer.length >= headerBytes &&
    buffer[0] === 0 &&
    buffer.readUInt32BE(1) === inner.schemaId;

  async function decodeMany(buffers: readonly (Buffer | null)[]): Promise<DecodeOutcome<Messages[N]>[]> {
    const results: DecodeOutcome<Messages[N]>[] = new Array(buffers.length);
    const others: number[] = [];
    buffers.forEach((buffer, index) => {
      if (!ownSchema(buffer)) {
        others.push(index);
        return;
      }
      try {
        results[index] = { ok: true, value: decodeAvro(name, buffer.subarray(headerBytes)) };
      } catch (error) {
        results[index] = {
          ok: false,
          error: new KafkaError('AVRO_DECODE_FAILED', `Avro body unreadable: ${(error as Error).message}`, {
            cause: error,
          }),
        };
      }
    });
    if (others.length === 0) return results;
    // Another writer schema (or bytes that are not ours at all): the serde resolves or refuses them.
    const decoded = await inner.decodeMany(others.map((index) => buffers[index] ?? null));
    others.forEach((index, at) => {
      const outcome = decoded[at] as DecodeOutcome<unknown>;
      if (!outcome.ok) {
        results[index] = outcome;
        return;
      }
      try {
        results[index] = { ok: true, value: decodeAvro(name, avroType(name).toBuffer(outcome.value)) };
      } catch (error) {
        results[index] = {
          ok: false,
          error: new KafkaError(
            'AVRO_DECODE_FAILED',
            `resolved value unreadable: ${(error as Error).message}`,
            {
              cause: error,
            },
          ),
        };
      }
    });
    return results;
  }

  return {
    subject: inner.subject,
    schemaId: inner.schemaId,
    encode(value) {
      try {
        return encodeAvro(name, value, header);
      } catch (error) {
        throw new KafkaError('AVRO_INVALID_VALUE', (error as Error).message, { cause: error });
      }
    },
    async decode(buffer) {
      const [outcome] = await decodeMany([buffer]);
      if (!outcome?.ok) throw outcome?.error;
      return outcome.value;
    },
    decodeMany,
  };
}
