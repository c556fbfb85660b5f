import { AssignerProtocol, type PartitionAssigner } from 'kafkajs';

export const coPartitionedAssignerName = 'RpCoPartitioned';

/**
 * Partition p of every topic of the group goes to the same member: member (p mod n) of the members
 * sorted by id. A consumer reads a source partition and the same partition of its retry tiers, so the
 * state that keeps a key in order (its parked records) lives in one process.
 */
export function assignCoPartitioned(
  memberIds: readonly string[],
  partitionsByTopic: ReadonlyMap<string, readonly number[]>,
): Map<string, Record<string, number[]>> {
  const members = [...memberIds].sort();
  const assignment = new Map<string, Record<string, number[]>>();
  if (members.length === 0) return assignment;
  for (const [topic, partitions] of partitionsByTopic) {
    for (const partition of [...partitions].sort((a, b) => a - b)) {
      const member = members[partition % members.length] as string;
      let topics = assignment.get(member);
      if (!topics) {
        topics = {};
        assignment.set(member, topics);
      }
      const partitionsOfTopic = topics[topic] ?? [];
      partitionsOfTopic.push(partition);
      topics[topic] = partitionsOfTopic;
    }
  }
  return assignment;
}

export const coPartitionedAssigner: PartitionAssigner = ({ cluster }) => ({
  name: coPartitionedAssignerName,
  version: 0,
  async assign({ members, topics }) {
    const partitionsByTopic = new Map<string, number[]>();
    for (const topic of topics) {
      partitionsByTopic.set(
        topic,
        cluster.findTopicPartitionMetadata(topic).map((metadata) => metadata.partitionId),
      );
    }
    const assignment = assignCoPartitioned(
      members.map((member) => member.memberId),
      partitionsByTopic,
    );
    return [...assignment].map(([memberId, memberTopics]) => ({
      memberId,
      memberAssignment: AssignerProtocol.MemberAssignment.encode({
        version: 0,
        assignment: memberTopics,
        userData: Buffer.alloc(0),
      }),
    }));
  },
  protocol({ topics }) {
    return {
      name: coPartitionedAssignerName,
      metadata: AssignerProtocol.MemberMetadata.encode({ version: 0, topics, userData: Buffer.alloc(0) }),
    };
  },
});
