/** Consumer group of a service reading one topic: `<service>.<topic>`. */
export function consumerGroupName(service: string, topic: string): string {
  return `${service}.${topic}`;
}

/** Client id of one of a service's Kafka clients: `<service>-<role>` (e.g. `ingress-producer`). */
export function clientIdFor(service: string, role: string): string {
  return `${service}-${role}`;
}

/** Schema registry subject for a topic's values (Confluent TopicNameStrategy): `<topic>-value`. */
export function valueSubject(topic: string): string {
  return `${topic}-value`;
}

/** Retry tier `tier` (1-based) of a consumer group: `<group>.retry.<tier>`. */
export function retryTopicName(groupId: string, tier: number): string {
  return `${groupId}.retry.${tier}`;
}

/** Dead-letter topic of a consumer group: `<group>.dlq`. */
export function deadLetterTopicName(groupId: string): string {
  return `${groupId}.dlq`;
}

const legalTopicName = /^[a-zA-Z0-9._-]{1,249}$/;

export function isLegalTopicName(name: string): boolean {
  return legalTopicName.test(name) && name !== '.' && name !== '..';
}
