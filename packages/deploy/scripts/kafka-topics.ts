/**
 * Writes infra/k8s/base/kafka-topics.yaml from the topic catalogue of @rp/contracts.
 *
 *   node --conditions=source scripts/kafka-topics.ts          write it if it changed
 *   node --conditions=source scripts/kafka-topics.ts --check  exit 1 if it is stale, write nothing
 *   ... --file <path>                                         another file than the committed one
 */
import { writeGenerated } from '../src/generated-file.ts';
import { renderKafkaTopics } from '../src/kafka-topics.ts';
import { kafkaTopicsFile } from '../src/paths.ts';

writeGenerated(kafkaTopicsFile, renderKafkaTopics(), process.argv.slice(2));
