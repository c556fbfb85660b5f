import type { InfraEndpoints } from './endpoints.ts';

/** Images used when a Docker engine answers. Same products and versions as the local stack. */
export const containerImages = {
  kafka: 'confluentinc/cp-kafka:7.9.0',
  registry: 'apicurio/apicurio-registry:3.3.3',
  mongodb: 'mongo:7.0',
} as const;

export interface StartedContainers {
  endpoints: InfraEndpoints;
  stop(): Promise<void>;
}

/** True when testcontainers can reach a container runtime; quick to say no on machines without one. */
export async function dockerAnswers(): Promise<boolean> {
  if (process.env.RP_TEST_NO_DOCKER === '1') return false;
  const { getContainerRuntimeClient } = await import('testcontainers');
  try {
    await getContainerRuntimeClient();
    return true;
  } catch {
    return false;
  }
}

/** Kafka in KRaft mode, an Apicurio registry (Confluent API) and a MongoDB replica set. */
export async function startContainers(): Promise<StartedContainers> {
  const [{ GenericContainer, Wait }, { KafkaContainer }, { MongoDBContainer }] = await Promise.all([
    import('testcontainers'),
    import('@testcontainers/kafka'),
    import('@testcontainers/mongodb'),
  ]);
  const [kafka, registry, mongodb] = await Promise.all([
    new KafkaContainer(containerImages.kafka).withKraft().start(),
    new GenericContainer(containerImages.registry)
      .withExposedPorts(8080)
      .withWaitStrategy(Wait.forHttp('/apis/ccompat/v7/subjects', 8080).forStatusCode(200))
      .start(),
    new MongoDBContainer(containerImages.mongodb).start(),
  ]);
  const mongoUri = new URL(mongodb.getConnectionString());
  mongoUri.searchParams.set('directConnection', 'true');
  return {
    endpoints: {
      kafkaBrokers: [`${kafka.getHost()}:${kafka.getMappedPort(9093)}`],
      schemaRegistryUrl: `http://${registry.getHost()}:${registry.getMappedPort(8080)}/apis/ccompat/v7`,
      mongodbUri: mongoUri.toString(),
      source: 'testcontainers',
    },
    async stop() {
      await Promise.allSettled([kafka.stop(), registry.stop(), mongodb.stop()]);
    },
  };
}
