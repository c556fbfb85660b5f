import { dropOwned } from '@rp/local-stack';
import { Kafka, logLevel } from 'kafkajs';
import { MongoClient } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { infra } from './index.ts';
import { madeInRun, testRunVariable, uniqueName } from './names.ts';

// The run's own setup drops what this file leaves (every name here carries the run's mark).
const endpoints = await infra();
const kafka = new Kafka({
  clientId: 'prune-test',
  brokers: endpoints.kafkaBrokers,
  logLevel: logLevel.NOTHING,
});
const admin = kafka.admin();
const mongo = new MongoClient(endpoints.mongodbUri);

beforeAll(async () => {
  await admin.connect();
  await mongo.connect();
});
afterAll(async () => {
  await admin.disconnect();
  await mongo.close();
});

async function databaseNames(): Promise<string[]> {
  const listed = await mongo.db('admin').admin().listDatabases({ nameOnly: true });
  return listed.databases.map((database) => database.name);
}

describe('a test run', () => {
  it("marks every name its workers make with the run's mark", () => {
    const mark = process.env[testRunVariable];
    expect(mark).toMatch(/^[a-z0-9]{5}$/);
    expect(madeInRun(uniqueName('topic'), mark as string)).toBe(true);
    expect(madeInRun(uniqueName('db').replace(/-/g, '_'), mark as string)).toBe(true);
  });
});

const registry = endpoints.schemaRegistryUrl;

async function register(subject: string): Promise<void> {
  const response = await fetch(`${registry}/subjects/${encodeURIComponent(subject)}/versions`, {
    method: 'POST',
    headers: { 'content-type': 'application/vnd.schemaregistry.v1+json' },
    body: JSON.stringify({ schema: JSON.stringify({ type: 'record', name: 'PruneCheck', fields: [] }) }),
  });
  expect(response.status, await response.text()).toBe(200);
}

/** Every subject, those marked deleted too. */
async function everySubject(): Promise<string[]> {
  const response = await fetch(`${registry}/subjects?deleted=true`);
  return (await response.json()) as string[];
}

describe('dropOwned', () => {
  it('deletes the topics, subjects and databases it is told are owned, and nothing else', async () => {
    const gone = uniqueName('gone');
    const kept = uniqueName('kept');
    const topics = {
      gone: [`${gone}.rp.events.v1`, `tracker.${gone}.rp.events.v1.retry.1`],
      kept: [`${kept}.rp.events.v1`],
    };
    await admin.createTopics({
      topics: [...topics.gone, ...topics.kept].map((topic) => ({ topic, numPartitions: 2 })),
      waitForLeaders: true,
    });
    const databases = { gone: gone.replace(/-/g, '_'), kept: kept.replace(/-/g, '_') };
    for (const name of Object.values(databases)) await mongo.db(name).collection('items').insertOne({ n: 1 });
    const subjectsOf = {
      gone: topics.gone.slice(0, 1).map((t) => `${t}-value`),
      kept: [`${topics.kept[0]}-value`],
    };
    for (const subject of [...subjectsOf.gone, ...subjectsOf.kept]) await register(subject);

    const dropped = await dropOwned(
      endpoints,
      (name) => name.includes(gone) || name.includes(databases.gone),
    );

    expect([...dropped.topics].sort()).toEqual([...topics.gone].sort());
    expect(dropped.databases).toEqual([databases.gone]);
    expect(dropped.subjects).toEqual(subjectsOf.gone);
    const left = await admin.listTopics();
    for (const topic of topics.gone) expect(left).not.toContain(topic);
    for (const topic of topics.kept) expect(left).toContain(topic);
    const leftDatabases = await databaseNames();
    expect(leftDatabases).not.toContain(databases.gone);
    expect(leftDatabases).toContain(databases.kept);
    expect(await mongo.db(databases.kept).collection('items').countDocuments()).toBe(1);
    // Gone for good (not only marked deleted); the other stays.
    const listed = await everySubject();
    for (const subject of subjectsOf.gone) expect(listed).not.toContain(subject);
    for (const subject of subjectsOf.kept) expect(listed).toContain(subject);

    // Nothing owned left: a second drop finds nothing.
    expect(
      await dropOwned(endpoints, (name) => name.includes(gone) || name.includes(databases.gone)),
    ).toEqual({
      topics: [],
      databases: [],
      subjects: [],
    });
  });
});
