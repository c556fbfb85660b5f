/**
 * Writes infra/k8s/base/kafka-topics.yaml from the topic catalogue of @rp/contracts.
 *
 *   node --conditions=source scripts/kafka-topics.ts          write it if it changed
 *   node --conditions=source scripts/kafka-topics.ts --check  exit 1 if it is stale, write nothing
 *   ... --file <path>                                         another file than the committed one
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { renderKafkaTopics } from '../src/kafka-topics.ts';
import { kafkaTopicsFile, repoRoot } from '../src/paths.ts';

const args = process.argv.slice(2);
const check = args.includes('--check');
const fileIndex = args.indexOf('--file');
const file = fileIndex === -1 ? kafkaTopicsFile : resolve(args[fileIndex + 1] ?? '');
const wanted = renderKafkaTopics();
const current = existsSync(file) ? readFileSync(file, 'utf8') : undefined;
const name = relative(repoRoot, file);

if (current === wanted) {
  console.log(`${name} is current`);
} else if (check) {
  console.error(`${name} is stale: run \`npm run manifests -w @rp/deploy\` and commit the result`);
  process.exitCode = 1;
} else {
  writeFileSync(file, wanted);
  console.log(`wrote ${name}`);
}
