import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { avroSchema } from './avro/codec.ts';
import type { RawObjectSchema, RawSchema } from './avro/raw-schema.ts';
import type { MessageName } from './generated/types.ts';
import { checkCompatibility } from './registry.ts';
import { schemaSet } from './schema-set.ts';

const releasedDir = new URL('../../../avro/released/', import.meta.url);

/** The last released version of each message (avro/released/<Name>.v<N>.avsc). */
function latestReleases(): Map<string, { version: number; schema: RawSchema }> {
  const latest = new Map<string, { version: number; schema: RawSchema }>();
  for (const file of readdirSync(releasedDir)) {
    const match = /^(.+)\.v([0-9]+)\.avsc$/.exec(file);
    if (!match) continue;
    const version = Number(match[2]);
    if ((latest.get(match[1] ?? '')?.version ?? 0) < version) {
      latest.set(match[1] ?? '', {
        version,
        schema: JSON.parse(readFileSync(new URL(file, releasedDir), 'utf8')),
      });
    }
  }
  return latest;
}

const kafkaMessages = schemaSet()
  .messages.filter((message) => message.kind === 'message')
  .map((message) => message.name as MessageName);
const releases = latestReleases();

describe('schema evolution against the released versions', () => {
  it('has a released version of every Kafka message', () => {
    expect([...releases.keys()].sort()).toEqual([...kafkaMessages].sort());
  });

  it.each(kafkaMessages)('%s reads every record its last released version wrote (BACKWARD)', (name) => {
    const released = releases.get(name);
    if (!released) throw new Error(`${name} has no released version`);
    expect(checkCompatibility(avroSchema(name), released.schema)).toEqual({ compatible: true });
  });

  const withDirectDebitField = (field: Record<string, unknown>): RawSchema => {
    const current = structuredClone(avroSchema('DirectDebit')) as RawObjectSchema;
    current.fields = [
      ...(current.fields ?? []),
      field as RawObjectSchema['fields'] extends (infer F)[] | undefined ? F : never,
    ];
    return current;
  };

  it('detects a breaking change: a new field without a default', () => {
    const result = checkCompatibility(
      withDirectDebitField({ name: 'channel', type: 'string' }),
      releases.get('DirectDebit')?.schema ?? 'null',
    );
    expect(result.compatible).toBe(false);
    if (!result.compatible) expect(result.reason).toMatch(/channel/);
  });

  it('detects a breaking change: an enum symbol removed from a type without a default', () => {
    const current = structuredClone(avroSchema('DeliveryOutcome')) as RawObjectSchema;
    const operation = current.fields?.find((field) => field.name === 'operation')?.type as RawObjectSchema;
    operation.symbols = (operation.symbols ?? []).filter((symbol) => symbol !== 'inboundDirectDebit');
    delete operation.default;
    expect(checkCompatibility(current, releases.get('DeliveryOutcome')?.schema ?? 'null').compatible).toBe(
      false,
    );
  });

  it('accepts a compatible change: a new optional field', () => {
    const result = checkCompatibility(
      withDirectDebitField({ name: 'channel', type: ['null', 'string'], default: null }),
      releases.get('DirectDebit')?.schema ?? 'null',
    );
    expect(result).toEqual({ compatible: true });
  });
});
