import { infra, uniqueName } from '@rp/testkit';
import { describe, expect, it } from 'vitest';
import { avroSchema } from './avro/codec.ts';
import type { RawObjectSchema } from './avro/raw-schema.ts';
import { registerSchema, registerSchemas } from './registry.ts';
import { topicSubjects } from './topics.ts';

async function subjectConfig(registryUrl: string, subject: string): Promise<unknown> {
  const response = await fetch(`${registryUrl}/config/${encodeURIComponent(subject)}`);
  expect(response.status).toBe(200);
  return response.json();
}

describe('schema registry (real)', () => {
  it('registers every topic value schema with BACKWARD compatibility, idempotently', async () => {
    const { schemaRegistryUrl } = await infra();
    const prefix = uniqueName('contracts');
    // The catalogue's subjects, made unique to this run.
    const subjects = Object.fromEntries(
      Object.entries(topicSubjects()).map(([subject, message]) => [`${prefix}.${subject}`, message]),
    );
    const first = await registerSchemas({ registryUrl: schemaRegistryUrl, subjects });
    expect(Object.keys(first).sort()).toEqual(Object.keys(subjects).sort());
    for (const id of Object.values(first)) expect(id).toBeGreaterThan(0);

    const again = await registerSchemas({ registryUrl: schemaRegistryUrl, subjects });
    expect(again).toEqual(first);

    const subject = `${prefix}.rp.transaction.state.v1-value`;
    expect(await subjectConfig(schemaRegistryUrl, subject)).toMatchObject({ compatibilityLevel: 'BACKWARD' });
  });

  it('refuses a breaking change and accepts a compatible one', async () => {
    const { schemaRegistryUrl } = await infra();
    const subject = `${uniqueName('contracts-evolution')}-value`;
    const current = avroSchema('DirectDebit') as RawObjectSchema;
    const register = (schema: RawObjectSchema) =>
      registerSchema({ registryUrl: schemaRegistryUrl, subject, schema, compatibility: 'BACKWARD' });
    const v1 = await register(current);

    // A new field without a default: consumers on it could not read what was written before.
    const breaking = { ...current, fields: [...(current.fields ?? []), { name: 'channel', type: 'string' }] };
    await expect(register(breaking)).rejects.toMatchObject({ code: 'SCHEMA_REGISTRY_REFUSED' });

    const compatible = {
      ...current,
      fields: [...(current.fields ?? []), { name: 'channel', type: ['null', 'string'], default: null }],
    };
    const v2 = await register(compatible);
    expect(v2).not.toBe(v1);
  });
});
