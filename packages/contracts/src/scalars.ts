/**
 * String forms the generated message types use. They are plain strings at run time; the names say
 * what the schema guarantees once a value has passed validation.
 */

/** An exact decimal number in canonical form ("1234.5", "0.1", "-3"): see normalizeDecimal. */
export type DecimalString = string;

/** A calendar date, RFC 3339 full-date: "2025-03-14". Avro carries it as the date logical type. */
export type IsoDate = string;

/** An RFC 3339 date-time with an offset: "2025-03-14T09:30:00.000+02:00". */
export type IsoDateTime = string;

/** A UUID in its 36-character text form (RFC 9562). */
export type Uuid = string;
