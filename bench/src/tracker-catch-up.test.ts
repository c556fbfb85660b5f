import { fileURLToPath } from 'node:url';
import { completedDebitJourney, decodeAvro, encodeAvro } from '@rp/contracts';
import { describe, expect, it } from 'vitest';
import { interleaved } from './tracker-catch-up.ts';
import { debitJourneys } from './tracker-memory.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));

describe("the tracker catch-up's backlog", () => {
  it('makes each debit a valid completed journey, every change from the state the one before reached', () => {
    const journeys = debitJourneys(root, 3);
    expect(new Set(journeys.map((journey) => journey[0]?.uetr)).size).toBe(3);
    for (const journey of journeys) {
      expect(journey.map((change) => change.eventType)).toEqual(completedDebitJourney);
      expect(journey[0]?.fromState).toBeUndefined();
      journey.forEach((change, index) => {
        // As the tracker reads it: through the record's Avro.
        const read = decodeAvro('TransactionStateChanged', encodeAvro('TransactionStateChanged', change));
        expect(read).toMatchObject({
          uetr: change.uetr,
          eventType: change.eventType,
          toState: change.toState,
        });
        expect(change.transaction?.transactionIdentifiers.uetr).toBe(change.uetr);
        if (index > 0) expect(change.fromState).toBe(journey[index - 1]?.toState);
      });
    }
  });

  it('interleaves the journeys as they reach the topic, each journey in its own order', () => {
    const journeys = debitJourneys(root, 4);
    // 2 a second, each over 1 s: a journey's changes 0.125 s apart, the next journey 0.5 s later.
    const order = interleaved(journeys, 2, 1);
    expect(order).toHaveLength(36);
    const uetrs = journeys.map((journey) => journey[0]?.uetr);
    // The second journey begins (at 0.5 s) before the first ends (at 1 s).
    const secondStarts = order.findIndex((change) => change.uetr === uetrs[1]);
    const firstEnds = order.findLastIndex((change) => change.uetr === uetrs[0]);
    expect(secondStarts).toBeGreaterThan(0);
    expect(secondStarts).toBeLessThan(firstEnds);
    for (const uetr of uetrs) {
      expect(order.filter((change) => change.uetr === uetr).map((change) => change.eventType)).toEqual(
        completedDebitJourney,
      );
    }
  });
});
