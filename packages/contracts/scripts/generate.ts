/**
 * Generates everything derived from avro/**: the embedded schemas and TypeScript types (src/generated),
 * the OpenAPI documents (the bank-facing API, and the operators' API, whose shapes are written in
 * src/docs/admin), the AsyncAPI document, and the event type catalogue in Markdown.
 *
 *   node scripts/generate.ts          write what changed
 *   node scripts/generate.ts --check  exit 1 listing the stale files, write nothing
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stringify } from 'yaml';
import type { AvroFile, RawSchema } from '../src/avro/raw-schema.ts';
import { assembleSchemas } from '../src/avro/schema-set.ts';
import { buildAdminOpenApiDocument } from '../src/docs/admin-openapi.ts';
import { buildAsyncApiDocument } from '../src/docs/asyncapi.ts';
import { buildOpenApiDocument } from '../src/docs/openapi.ts';
import { renderEventTypesMarkdown } from './render/event-types-markdown.ts';
import { renderTypes } from './render/typescript.ts';

export const packageDir = fileURLToPath(new URL('..', import.meta.url));
export const avroDir = fileURLToPath(new URL('../../../avro/', import.meta.url));

/** The schema files: avro/*.avsc, avro/types/*.avsc and avro/http/*.avsc, in a stable order. */
export function readAvroFiles(): AvroFile[] {
  const files: AvroFile[] = [];
  for (const folder of ['types', 'http', '']) {
    const names = readdirSync(join(avroDir, folder))
      .filter((name) => name.endsWith('.avsc'))
      .sort();
    for (const name of names) {
      const path = folder ? `${folder}/${name}` : name;
      files.push({ path, schema: JSON.parse(readFileSync(join(avroDir, path), 'utf8')) as RawSchema });
    }
  }
  return files;
}

function yaml(document: unknown): string {
  return stringify(document, { aliasDuplicateObjects: false, lineWidth: 0 });
}

/** Every generated file by path relative to the package, with its content. */
export function renderAll(): Map<string, string> {
  const files = readAvroFiles();
  const set = assembleSchemas(files);
  const embedded = [
    '// Generated from avro/**/*.avsc by packages/contracts/scripts/generate.ts. Do not edit.',
    '',
    "import type { AvroFile } from '../avro/raw-schema.ts';",
    '',
    `export const avroFiles: readonly AvroFile[] = ${JSON.stringify(files, null, 2)};`,
    '',
  ].join('\n');
  return new Map([
    ['src/generated/avro-files.ts', embedded],
    ['src/generated/types.ts', renderTypes(set)],
    ['openapi/openapi.yaml', yaml(buildOpenApiDocument(set))],
    ['openapi/admin.yaml', yaml(buildAdminOpenApiDocument())],
    ['asyncapi/asyncapi.yaml', yaml(buildAsyncApiDocument(set))],
    ['docs/event-types.md', renderEventTypesMarkdown()],
  ]);
}

function read(path: string): string | undefined {
  try {
    return readFileSync(join(packageDir, path), 'utf8');
  } catch {
    return undefined;
  }
}

/** Paths (relative to the package) whose committed content differs from what the schemas generate. */
export function staleOutputs(): string[] {
  return [...renderAll()].filter(([path, content]) => read(path) !== content).map(([path]) => path);
}

function main(): void {
  if (process.argv.includes('--check')) {
    const stale = staleOutputs();
    if (stale.length > 0) {
      console.error(
        `Generated files are stale; run npm run generate -w @rp/contracts:\n  ${stale.join('\n  ')}`,
      );
      process.exit(1);
    }
    console.info('Generated files are up to date.');
    return;
  }
  for (const [path, content] of renderAll()) {
    if (read(path) === content) continue;
    mkdirSync(dirname(join(packageDir, path)), { recursive: true });
    writeFileSync(join(packageDir, path), content);
    console.info(`wrote ${path}`);
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) main();
