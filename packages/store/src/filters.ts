/**
 * A condition on a field beside `_id` (`{ _id, status: besideId('queued') }`), checked on the document the
 * `_id` finds. The local MongoDB-compatible server pushes an equality condition down to PostgreSQL, and
 * when the field leads an index (`status` does, in the debit queue and the reconciliation items) the
 * planner joins that index's match to the `_id` lookup: it reads every entry with the status, a cost that
 * grows with the queue (measured: 6.3-6.8 ms of PostgreSQL a debit instead of 1.2 in a catch-up of 3,000
 * awaiting debits, bench/FINDINGS.md). A one-value `$in` is not pushed down: the `_id` index alone serves the
 * write, and the server checks the value. MongoDB reads the two the same.
 */
export function besideId<T>(value: T): { $in: T[] } {
  return { $in: [value] };
}
