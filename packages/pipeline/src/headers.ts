/**
 * The header on flow records of a direct debit that came from a clearing house (an inbound off-us debit)
 * rather than from a participating bank. Such a debit has no initiating bank among the participants: no
 * status report goes back, and it joins the debit queue as soon as it is accepted.
 */
export const originHeader = 'rp-origin';

/** The value of `originHeader` for a message a payment scheme (clearing house) sent. */
export const schemeOrigin = 'scheme';
