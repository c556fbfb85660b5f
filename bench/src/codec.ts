import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  decodeAvro,
  encodeAvro,
  type MessageName,
  type Messages,
  parseJsonExact,
  toJson,
  validate,
} from '@rp/contracts';
import type { Row } from './report.ts';

/** The messages of a journey's records, each from its example in avro/examples. */
const examples: readonly (readonly [MessageName, string])[] = [
  ['TransactionStateChanged', 'TransactionStateChanged.json'],
  ['TransactionStatePosting', 'TransactionStatePosting.debit-queued.json'],
  ['EsmStatePosting', 'EsmStatePosting.json'],
  ['DirectDebit', 'DirectDebit.za-eft-on-us.json'],
  ['PaymentStatusReport', 'PaymentStatusReport.accp.json'],
  ['DeliveryOutcome', 'DeliveryOutcome.acknowledged.json'],
];

/**
 * The messages that arrive as HTTP bodies, and the schema each is checked against there: a bank's
 * messages at the ingress, the postings at the bank (the bank simulator checks either class as an
 * EventPosting).
 */
const checkedOnArrival: Partial<Record<MessageName, MessageName>> = {
  DirectDebit: 'DirectDebit',
  PaymentStatusReport: 'PaymentStatusReport',
  TransactionStatePosting: 'EventPosting',
  EsmStatePosting: 'EventPosting',
};

/** Microseconds per call of `work`: the best of `rounds` rounds of `calls` calls, after a warm-up round. */
export function microseconds(work: () => void, calls: number, rounds: number): number {
  let best = Number.POSITIVE_INFINITY;
  for (let round = 0; round <= rounds; round += 1) {
    const started = performance.now();
    for (let call = 0; call < calls; call += 1) work();
    const each = ((performance.now() - started) * 1_000) / calls;
    if (round > 0) best = Math.min(best, each);
  }
  return Math.round(best * 10) / 10;
}

/** The example of each message of a journey, valid, with its Avro encoding. */
export function loadExamples(root: string) {
  return examples.map(([name, file]) => {
    const text = readFileSync(join(root, 'avro', 'examples', file), 'utf8');
    const checked = validate(name, parseJsonExact(text));
    if (!checked.ok) throw new Error(`${file} is not a valid ${name}: ${JSON.stringify(checked.errors)}`);
    const value = checked.value as Messages[typeof name];
    return { name, value, bytes: encodeAvro(name, value) };
  });
}

/** The texts of a journey's example messages, as the CPU reference works on them (`reference.ts`). */
export function exampleTexts(root: string): string[] {
  return examples.map(([, file]) => readFileSync(join(root, 'avro', 'examples', file), 'utf8'));
}

/**
 * What the contracts package costs a service per record, on this machine's CPU alone (no I/O): the Avro
 * encoding of a message (conversion from its plain shape and avsc's binary encoding), its decoding, its
 * JSON rendering (an event posting's body), the exact parse of that JSON (how a request body or a
 * message stored as JSON text is read), and that parse with the message's schema check (how the ingress
 * takes a request body, and the bank simulator a posting). A journey writes 34 Kafka records and reads
 * each of them once or more, so these figures times the records say how much of a service's CPU is its
 * messages; inside a service, between its other work, the same calls cost more than in this tight loop.
 */
export function codecBench(options: { root: string; calls: number; rounds: number }): Row[] {
  const rows: Row[] = [];
  for (const { name, value, bytes } of loadExamples(options.root)) {
    const encode = microseconds(() => encodeAvro(name, value), options.calls, options.rounds);
    const decode = microseconds(() => decodeAvro(name, bytes), options.calls, options.rounds);
    const json = microseconds(() => toJson(name, value), options.calls, options.rounds);
    const body = toJson(name, value);
    const parse = microseconds(() => parseJsonExact(body), options.calls, options.rounds);
    const checkedAs = checkedOnArrival[name];
    // The check turns amounts into decimal strings in place, so each call checks a fresh parse.
    const check =
      checkedAs === undefined
        ? undefined
        : microseconds(
            () => {
              if (!validate(checkedAs, parseJsonExact(body)).ok)
                throw new Error(`${name}'s JSON rendering is not a valid ${checkedAs}`);
            },
            options.calls,
            options.rounds,
          );
    const detail = `${bytes.length} bytes of Avro; best of ${options.rounds} rounds of ${options.calls}`;
    rows.push(
      { group: 'codec', name: `${name}: Avro encode`, value: encode, unit: 'µs', detail },
      { group: 'codec', name: `${name}: Avro decode`, value: decode, unit: 'µs', detail },
      { group: 'codec', name: `${name}: JSON rendering`, value: json, unit: 'µs', detail },
      {
        group: 'codec',
        name: `${name}: exact JSON parse`,
        value: parse,
        unit: 'µs',
        detail: `${body.length} bytes of JSON, amounts kept exact (a request body, a stored message); best of ${options.rounds} rounds of ${options.calls}`,
      },
    );
    if (check !== undefined) {
      rows.push({
        group: 'codec',
        name: `${name}: exact JSON parse and schema check`,
        value: check,
        unit: 'µs',
        detail: `the parse above and the ${checkedAs} schema's check, as the ${checkedAs === 'EventPosting' ? 'bank simulator takes a posting' : 'ingress takes a request body'}; best of ${options.rounds} rounds of ${options.calls}`,
      });
    }
  }
  return rows;
}
