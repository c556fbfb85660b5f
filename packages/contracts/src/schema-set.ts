import { assembleSchemas, type SchemaSet } from './avro/schema-set.ts';
import { avroFiles } from './generated/avro-files.ts';

let assembled: SchemaSet | undefined;

/** The project's schemas, assembled once on first use from the .avsc files embedded at generation time. */
export function schemaSet(): SchemaSet {
  assembled ??= assembleSchemas(avroFiles);
  return assembled;
}
