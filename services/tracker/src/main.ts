import { applyDotenv, runAlone } from '@rp/runtime';
import { startTracker } from './start.ts';

// Without Kafka settings in the environment, use the local stack's endpoints (real variables win).
if (!process.env.KAFKA_BROKERS) applyDotenv(new URL('../../../.local/stack.env', import.meta.url).pathname);

await runAlone(startTracker);
