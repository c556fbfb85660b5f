/**
 * Records a release of the message schemas: for every Kafka message whose expanded schema differs from
 * its last released version, writes avro/released/<Name>.v<N+1>.avsc. The compatibility test then holds
 * every later change to these snapshots. Run it when cutting a release, not on every change.
 *
 *   node scripts/release-schemas.ts
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { assembleSchemas } from '../src/avro/schema-set.ts';
import { avroDir, readAvroFiles } from './generate.ts';

export const releasedDir = join(avroDir, 'released');

/** The last released version of each message: its number, file and text. */
export function latestReleases(): Map<string, { version: number; file: string; text: string }> {
  const latest = new Map<string, { version: number; file: string; text: string }>();
  if (!existsSync(releasedDir)) return latest;
  for (const file of readdirSync(releasedDir)) {
    const match = /^(.+)\.v([0-9]+)\.avsc$/.exec(file);
    if (!match) continue;
    const [, name = '', versionText = '0'] = match;
    const version = Number(versionText);
    if ((latest.get(name)?.version ?? 0) < version) {
      latest.set(name, { version, file, text: readFileSync(join(releasedDir, file), 'utf8') });
    }
  }
  return latest;
}

export function releasedText(schema: unknown): string {
  return `${JSON.stringify(schema, null, 2)}\n`;
}

function main(): void {
  const set = assembleSchemas(readAvroFiles());
  const latest = latestReleases();
  mkdirSync(releasedDir, { recursive: true });
  for (const message of set.messages.filter((candidate) => candidate.kind === 'message')) {
    const text = releasedText(set.expand(message.name));
    const previous = latest.get(message.name);
    if (previous?.text === text) continue;
    const file = `${message.name}.v${(previous?.version ?? 0) + 1}.avsc`;
    writeFileSync(join(releasedDir, file), text);
    console.info(`released ${file}`);
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) main();
