/**
 * The header on flow records of a direct debit that came from a clearing house (an inbound off-us debit)
 * rather than from a participating bank. Such a debit has no initiating bank among the participants: no
 * status report goes back, and it joins the debit queue as soon as it is accepted.
 */
export const originHeader = 'rp-origin';

/** The value of `originHeader` for a message a payment scheme (clearing house) sent. */
export const schemeOrigin = 'scheme';

/**
 * The header on a record the ingress produced again: a resend of a message whose first attempt's records
 * may be out already (the ingress found its claim but no sign that they were produced). A service that
 * takes a shortcut safe only the first time it sees a transaction's record takes the long way here, as
 * it does for a record its consumer group may have handled before.
 */
export const resentHeader = 'rp-resent';
