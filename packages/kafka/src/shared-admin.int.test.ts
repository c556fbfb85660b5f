import { type Admin, Kafka, logLevel } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { endpoints, uniqueName } from '../test/fixtures.ts';
import { metadataSafeAdmin } from './shared-admin.ts';

let kafka: Kafka;
let setup: Admin;
const offsetTopics = Array.from({ length: 6 }, () => uniqueName('shared-admin-offsets'));
const metadataTopics = Array.from({ length: 6 }, () => uniqueName('shared-admin-metadata'));

beforeAll(async () => {
  kafka = new Kafka({
    clientId: 'kafka-test-shared-admin',
    brokers: (await endpoints()).brokers,
    logLevel: logLevel.NOTHING,
  });
  setup = kafka.admin();
  await setup.connect();
  await setup.createTopics({
    waitForLeaders: true,
    topics: [...offsetTopics, ...metadataTopics].map((topic) => ({ topic, numPartitions: 3 })),
  });
  // A new topic's partitions can answer "not the leader" for a moment after their leaders are known.
  const deadline = Date.now() + 30_000;
  for (const topic of [...offsetTopics, ...metadataTopics]) {
    for (;;) {
      try {
        await setup.fetchTopicOffsets(topic);
        break;
      } catch (error) {
        if (Date.now() > deadline) throw error;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  }
});

afterAll(async () => {
  await setup?.deleteTopics({ topics: [...offsetTopics, ...metadataTopics] }).catch(() => {});
  await setup?.disconnect();
});

/** A connected admin whose calls are recorded as they start and end, then guarded. */
async function recordedAdmin(): Promise<{ admin: Admin; raw: Admin; log: string[] }> {
  const raw = kafka.admin();
  await raw.connect();
  const log: string[] = [];
  const recorded: Admin = { ...raw };
  const record =
    <A extends unknown[], R>(name: string, call: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      const label = `${name}(${String((args[0] as { topics?: string[] })?.topics?.[0] ?? args[0])})`;
      log.push(`start ${label}`);
      try {
        return await call(...args);
      } finally {
        log.push(`end ${label}`);
      }
    };
  recorded.fetchTopicOffsets = record('offsets', raw.fetchTopicOffsets);
  recorded.fetchTopicMetadata = record('metadata', raw.fetchTopicMetadata);
  return { admin: metadataSafeAdmin(recorded), raw, log };
}

describe('an admin shared by a process', () => {
  test("reads topics' offsets while other callers read other topics' metadata, and none fails", async () => {
    // Unguarded, this churn fails most offset reads on kafkajs 2.2 ("Cannot destructure property
    // 'partitions' of 'low.pop(...)'"): each metadata read replaces the client's map with one topic.
    const raw = kafka.admin();
    await raw.connect();
    const admin = metadataSafeAdmin(raw);
    try {
      await Promise.all(offsetTopics.map((topic) => admin.fetchTopicOffsets(topic)));
      let stop = false;
      let metadataReads = 0;
      const churn = (async () => {
        for (let index = 0; !stop; index += 1) {
          const topic = metadataTopics[index % metadataTopics.length] as string;
          const metadata = await admin.fetchTopicMetadata({ topics: [topic] });
          expect(metadata.topics.map((entry) => entry.name)).toEqual([topic]);
          metadataReads += 1;
        }
      })();
      const failures: string[] = [];
      let reads = 0;
      try {
        for (let round = 0; round < 15; round += 1) {
          const results = await Promise.allSettled(
            offsetTopics.map((topic) => admin.fetchTopicOffsets(topic)),
          );
          for (const result of results) {
            if (result.status === 'rejected') failures.push(String(result.reason));
            else {
              reads += 1;
              expect(result.value.map((entry) => entry.partition).sort()).toEqual([0, 1, 2]);
            }
          }
        }
      } finally {
        stop = true;
        await churn;
      }
      expect(failures).toEqual([]);
      expect(reads).toBe(15 * offsetTopics.length);
      expect(metadataReads).toBeGreaterThan(0);
    } finally {
      await raw.disconnect();
    }
  });

  test('a metadata read waits for the calls before it, the calls after it wait for it, the others run side by side', async () => {
    const { admin, raw, log } = await recordedAdmin();
    const [first, second, third] = offsetTopics as [string, string, string];
    const [named] = metadataTopics as [string];
    try {
      await Promise.all([
        admin.fetchTopicOffsets(first),
        admin.fetchTopicOffsets(second),
        admin.fetchTopicMetadata({ topics: [named] }),
        admin.fetchTopicOffsets(third),
      ]);
      const at = (entry: string) => {
        const index = log.indexOf(entry);
        expect(index, `${entry} in ${log.join(', ')}`).toBeGreaterThanOrEqual(0);
        return index;
      };
      // The two before it overlap ...
      expect(at(`start offsets(${second})`)).toBeLessThan(at(`end offsets(${first})`));
      // ... and both end before it starts; the one after it starts once it has ended.
      expect(at(`end offsets(${first})`)).toBeLessThan(at(`start metadata(${named})`));
      expect(at(`end offsets(${second})`)).toBeLessThan(at(`start metadata(${named})`));
      expect(at(`end metadata(${named})`)).toBeLessThan(at(`start offsets(${third})`));
    } finally {
      await raw.disconnect();
    }
  });
});
