// Generated from avro/**/*.avsc by packages/contracts/scripts/generate.ts. Do not edit: change the .avsc
// files and run `npm run generate -w @rp/contracts`.

import type { DecimalString, IsoDate, IsoDateTime, Uuid } from '../scalars.ts';

/** An account as the CreditTransfer payload shows it (spec 2.4). */
export interface Account {
  identification: AccountIdentification;
  /** Account type, for example CODE CACC (current) or SVGS (savings). */
  type?: Code;
  /** ISO 4217 currency of the account. */
  currency?: string;
}

/** Identification of an account by number. */
export interface AccountIdentification {
  /** GENERIC (a local account number) as the spec shows. Open set: IBAN may follow. */
  schema: string;
  scheme?: AccountSchemeName;
  issuer?: string;
  /** The account number (ISO 20022 Max34Text). */
  value: string;
}

/** The scheme under which an account identification is issued (the spec's sample shows schema PROPRIETARY). */
export interface AccountSchemeName {
  /** PROPRIETARY or CODE (ISO 20022 ExternalAccountIdentification1Code). Open set. */
  schema: string;
  /** The scheme name, for example BBAN. */
  value: string;
}

/** Body of the engine's HTTP 202: the message is durably accepted (written to Kafka with acks=all). A resent message with the same messageIdentification and the same content gets the same acknowledgement: a DirectDebit or CreditTransfer always, any other message while the operator's idempotency retention (IDEMPOTENCY_RETENTION, unset by default) keeps its claim. */
export interface Acknowledgement {
  /** messageIdentifiers.messageIdentification of the accepted message. */
  messageIdentification: string;
  /** The transaction's UETR. */
  uetr: Uuid;
  /** When the engine first accepted the message. */
  receivedAt: IsoDateTime;
}

/** Postal address (ISO 20022 PostalAddress). Every member is optional. buildingNumber, floor, postBox and postCode are JSON numbers as the spec shows them; integers are chosen (a post code with leading zeros belongs in addressLine). */
export interface Address {
  /** ISO 20022 AddressType2Code; the spec's samples show ADDR. Open set. */
  addressType?: string;
  department?: string;
  streetName?: string;
  buildingName?: string;
  townName?: string;
  townLocationName?: string;
  districtName?: string;
  countrySubDivision?: string;
  /** ISO 3166-1 alpha-2 country code. */
  country?: string;
  buildingNumber?: number;
  floor?: number;
  postBox?: number;
  postCode?: number;
  /** Free-form address lines, each a string or a number as the spec shows (at most 7, ISO 20022). */
  addressLine?: (string | number)[];
}

/** A financial institution as the CreditTransfer payload shows it (spec 2.4). */
export interface Agent {
  /** Business identifier code (ISO 9362), 8 or 11 characters. */
  bicfi?: string;
  /** Clearing system member identification (the participant's member id). */
  memberId?: string;
  name?: string;
  branch?: BranchIdentification;
}

/** A monetary amount in a currency. The value is exact: Avro decimal (precision 18, scale 5) on the wire, a decimal string in TypeScript, a JSON number in HTTP bodies. Its decimal places may not exceed the currency's ISO 4217 minor units (ZAR 2, JPY 0, BHD 3). */
export interface Amount {
  /** The amount. Scale 5 holds every ISO 4217 currency's minor units (at most 4) and leaves 13 integer digits (up to 9999999999999.99999). */
  value: DecimalString;
  /** ISO 4217 alphabetic currency code. */
  currency: string;
}

/** A branch of a financial institution. */
export interface BranchIdentification {
  /** Branch code, for example the 6-digit South African branch code. */
  identification?: string;
  name?: string;
  address?: Address;
}

/** Identification of an institution within a clearing system. */
export interface ClearingSystemMemberIdentification {
  /** ISO 20022 ExternalClearingSystemIdentification1Code, for example ZANCC (South African National Clearing Code). */
  clearingSystem?: string;
  memberId: string;
}

/** A coded value: an ISO 20022 external code (schema CODE) or a proprietary one (schema PROPRIETARY). */
export interface Code {
  /** How to read value. The spec's samples show CODE; PROPRIETARY is the ISO 20022 alternative. Open set. */
  schema: string;
  /** The code. */
  value: string;
}

/** How to reach a party. */
export interface ContactDetails {
  phoneNumber?: string;
  mobileNumber?: string;
  emailAddress?: string;
}

/** A reference the creditor gave to the debtor so that it can match the payment. */
export interface CreditorReference {
  type?: DocumentType;
  reference?: string;
}

/** A credit transfer (spec 2.4): the inboundCreditTransferAuthorization the engine receives and the payload of its TRANSACTION_STATE postings. The spec does not show which members are required: schema, messageIdentifiers, paymentScheme, transactionIdentifiers, amounts and the parties, accounts and agents a credit cannot do without (creditor, creditorAccount, creditorAgent, debtor, debtorAgent) are; the rest are optional. */
export interface CreditTransfer {
  /** Always CreditTransfer. */
  schema: 'CreditTransfer';
  messageIdentifiers: MessageIdentifiers;
  paymentScheme: PaymentScheme;
  transactionIdentifiers: TransactionIdentifiers;
  amounts: TransactionAmounts;
  paymentTypeInformation?: PaymentTypeInformation;
  creditor: Party;
  debtor: Party;
  creditorAccount: Account;
  debtorAccount?: Account;
  creditorAgent: Agent;
  debtorAgent: Agent;
  instructingAgent?: Agent;
  instructedAgent?: Agent;
  instructionForCreditorAgent?: InstructionForCreditorAgent[];
  /** At most 3, as in ISO 20022. */
  intermediaryAgents?: Agent[];
  /** At most 3, as in ISO 20022. */
  previousInstructingAgents?: Agent[];
  purpose?: Code;
  remittanceInformation?: RemittanceInformation;
  tax?: TaxInformation;
}

/** Why an attempt got no HTTP status: a transport error or a timeout. */
export interface DeliveryError {
  /** Error code, for example TIMEOUT, ECONNREFUSED, ECONNRESET. Open set. */
  code: string;
  message: string;
}

/** The call the engine made on a bank, named as the spec names operations; eventPosting is POST /events. UNKNOWN is the reader-side fallback for a symbol added later and is never valid in JSON. */
export type DeliveryOperation = 'eventPosting' | 'outboundDirectDebitResponse' | 'inboundDirectDebit' | 'inboundCreditTransferAuthorization' | 'UNKNOWN';

export const deliveryOperationSymbols = ['eventPosting', 'outboundDirectDebitResponse', 'inboundDirectDebit', 'inboundCreditTransferAuthorization', 'UNKNOWN'] as const satisfies readonly DeliveryOperation[];

/** The outcome of one attempt to deliver a message to a bank (topic rp.delivery.outcome.v1, keyed by uetr). At least one of httpStatus and error is present: the status the bank answered with, or the transport error that kept it from answering. */
export interface DeliveryOutcome {
  uetr: Uuid;
  /** messageIdentification of the delivered message (for eventPosting: the posting's messageInfo.messageIdentification). */
  messageIdentification: string;
  /** Member id of the bank called. */
  targetBank: string;
  operation: DeliveryOperation;
  /** 1 for the first attempt. */
  attempt: number;
  attemptedAt: IsoDateTime;
  /** The bank's HTTP status, when it answered. */
  httpStatus?: number;
  /** Why there was no HTTP status. */
  error?: DeliveryError;
  /** From sending the request to the end of the response or the error, in milliseconds. */
  latencyMs: number;
  result: DeliveryResult;
  /** True when no further attempt follows: acknowledged, a final failure, or retries stopped at the reconciliation window's close. */
  final: boolean;
  /** When the next attempt is due, when one follows. */
  nextAttemptAt?: IsoDateTime;
}

/** How one delivery attempt ended: ACKNOWLEDGED (the bank answered 202), RETRYABLE_FAILURE (no response, timeout, 5xx, 408, 425, 429) or FINAL_FAILURE (any other 4xx: retrying cannot help). UNKNOWN is the reader-side fallback for a symbol added later and is never valid in JSON. */
export type DeliveryResult = 'ACKNOWLEDGED' | 'RETRYABLE_FAILURE' | 'FINAL_FAILURE' | 'UNKNOWN';

export const deliveryResultSymbols = ['ACKNOWLEDGED', 'RETRYABLE_FAILURE', 'FINAL_FAILURE', 'UNKNOWN'] as const satisfies readonly DeliveryResult[];

/** A direct debit (spec 2.5), used for outboundDirectDebit (bank to engine) and inboundDirectDebit (engine to bank). The spec lists the nested objects by type only; their property names (messageIdentifiers, supplementaryData, ...) are the domain notes' mapping, documented in avro/README.md. */
export interface DirectDebit {
  /** MessageIdentifiers: this message's point-to-point identification and creation date-time. */
  messageIdentifiers: MessageIdentifiers;
  /** SupplementaryData: key-value pairs with additional data. */
  supplementaryData?: KeyValuePair[];
  /** TransactionIdentifiers. */
  transactionIdentifiers: TransactionIdentifiers;
  /** TransactionAmounts. */
  amounts: TransactionAmounts;
  /** Party: the creditor, who collects the money. */
  creditor: Party;
  /** PaymentAccount of the creditor (optional in the spec). */
  creditorAccount?: PaymentAccount;
  /** InstitutionIdentification of the creditor's bank. */
  creditorAgent: InstitutionIdentification;
  /** Party: the debtor, whose account is debited. */
  debtor: Party;
  /** PaymentAccount of the debtor. */
  debtorAccount: PaymentAccount;
  /** InstitutionIdentification of the debtor's bank. */
  debtorAgent: InstitutionIdentification;
  /** InstitutionIdentification of the agent that instructs the next party in the chain. */
  instructingAgent?: InstitutionIdentification;
  /** InstitutionIdentification of the agent that is instructed. */
  instructedAgent?: InstitutionIdentification;
  /** Agents between the debtor's agent and the creditor's agent, at most 3; the first is the one next to the debtor's agent. */
  intermediaryAgents?: InstitutionIdentification[];
  /** MandateInformation (work in progress in the spec; not relevant to ZA_EFT). */
  mandateInformation?: MandateInformation;
  /** DirectDebitPaymentScheme: the scheme and its scheme-specific data. */
  paymentScheme: PaymentScheme;
  /** PaymentTypeInformation. */
  paymentTypeInformation?: PaymentTypeInformation;
  /** PurposeType: the underlying reason for the payment (ISO 20022 ExternalPurpose1Code). */
  purpose?: Code;
  /** RemittanceInformation. */
  remittanceInformation?: RemittanceInformation;
  /** Date on which the creditor asks for the money to be collected from the debtor. */
  requestedCollectionDate?: IsoDate;
  /** Always DirectDebit. */
  schema: 'DirectDebit';
  /** SequenceTypeCode. */
  sequenceType?: SequenceType;
  /** Date on which the money ceases to be available to the agent that owes it and becomes available to the agent it is due to. */
  settlementDate?: IsoDate;
}

/** Direction of a transaction as the receiving participant sees it: INBOUND (coming to the bank) or OUTBOUND (sent by the bank). A closed set. */
export type Direction = 'INBOUND' | 'OUTBOUND';

export const directionSymbols = ['INBOUND', 'OUTBOUND'] as const satisfies readonly Direction[];

/** The type of a referred document or of a creditor reference: { issuer, schema, value } as the spec shows. */
export interface DocumentType {
  issuer?: string;
  /** CODE or PROPRIETARY. Open set. */
  schema?: string;
  /** For example CINV (commercial invoice) or SCOR (structured creditor reference). */
  value: string;
}

/** An event posting of class ESM_STATE (spec 2.1, 2.3): sent for ZA_EFT transactions to banks that subscribe to the class. */
export interface EsmStatePosting {
  /** Version of the Regulated Payments Events API the posting conforms to: <major>.<minor>.<patch> (eventsApiVersion in @rp/contracts). */
  apiVersion: string;
  /** Always ESM_STATE. */
  class: 'ESM_STATE';
  /** Date at which the transaction should take effect. */
  actionDate: IsoDate;
  /** When the event was created, in the sender's local time zone or UTC (RFC 3339 with offset). */
  creationDateTime: IsoDateTime;
  /** The transaction payload (EventEsmPayload). */
  eftDataRecord?: PaymentRecord;
  identifiers: EventEsmIdentifiers;
  state: EventEsmState;
  transactionInfo: EventEsmTransactionInfo;
}

/** ESM_STATE processing state of a transaction. UNKNOWN is the reader-side fallback for a symbol added later and is never valid in JSON. */
export type EsmTransactionState = 'RECEIVE_PENDING' | 'RECEIVED' | 'RECEIVE_ERROR' | 'CANCELLED' | 'SEND_PENDING' | 'SENT' | 'SEND_ERROR' | 'ON_HOLD' | 'UNKNOWN';

export const esmTransactionStateSymbols = ['RECEIVE_PENDING', 'RECEIVED', 'RECEIVE_ERROR', 'CANCELLED', 'SEND_PENDING', 'SENT', 'SEND_ERROR', 'ON_HOLD', 'UNKNOWN'] as const satisfies readonly EsmTransactionState[];

/** Identifiers of the transaction or of an individual message that is part of it (spec 2.1, EventEsmIdentifiers). The spec does not show which are required; uetr is. */
export interface EventEsmIdentifiers {
  endToEndIdentification?: string;
  /** Derived from the EFT record's fields so that a bank can match the posting with its own record. */
  matchingKey?: string;
  transactionIdentification?: string;
  uetr: Uuid;
}

/** State information of an event posting (spec 2.1, EventEsmState). */
export interface EventEsmState {
  financialTransactionState: FinancialTransactionState;
  transactionState: EsmTransactionState;
}

/** Transaction information of an event posting (spec 2.1, EventEsmTransactionInfo). The spec shows one sample value of each member and not the full sets, so the members other than direction are open strings. */
export interface EventEsmTransactionInfo {
  direction: Direction;
  paymentType: string;
  recordType: string;
  /** Only for returns. */
  returnType?: string;
  subService?: string;
}

/** One invalid member of a request body. */
export interface FieldError {
  /** JSON Pointer (RFC 6901) to the member, for example /debtorAccount/identification; empty for the whole body. */
  pointer: string;
  /** What is wrong with it. */
  detail: string;
}

/** ESM_STATE financial state of a transaction. UNKNOWN is the reader-side fallback for a symbol added later and is never valid in JSON. */
export type FinancialTransactionState = 'IN_PROGRESS' | 'ACTIONED' | 'UNPAID' | 'ERROR' | 'UNMATCHED' | 'UNKNOWN';

export const financialTransactionStateSymbols = ['IN_PROGRESS', 'ACTIONED', 'UNPAID', 'ERROR', 'UNMATCHED', 'UNKNOWN'] as const satisfies readonly FinancialTransactionState[];

/** One identifier of a party (identity number, passport, registration number) with who issued it and under which scheme. */
export interface GenericIdentification {
  identification: string;
  issuer?: string;
  /** Identification scheme, for example CODE NIDN (national identity number). */
  scheme?: Code;
}

/** A financial institution (agent) in a DirectDebit or PaymentStatusReport. Every member is optional; which ones a scheme needs is a business rule of the validator, not of the schema. */
export interface InstitutionIdentification {
  /** Business identifier code (ISO 9362), 8 or 11 characters. */
  bicfi?: string;
  /** The participant's member id: how the engine finds the bank to deliver to. */
  memberId?: string;
  name?: string;
  branch?: BranchIdentification;
  clearingSystemMemberId?: ClearingSystemMemberIdentification;
  /** Legal entity identifier (ISO 17442). */
  lei?: string;
  address?: Address;
}

/** An instruction for the creditor's agent (spec 2.4: { code, information }). */
export interface InstructionForCreditorAgent {
  /** ISO 20022 Instruction3Code, for example CHQB, HOLD, PHOB, TELB. Open set. */
  code?: string;
  information?: string;
}

/** One entry of supplementaryData: a key-value pair of additional data. */
export interface KeyValuePair {
  key: string;
  value: string;
}

/** The direct debit mandate signed between creditor and debtor. The spec marks this model as work in progress (no amendment properties yet); it is not relevant to ZA_EFT. Members beyond mandateIdentification are chosen from ISO 20022 MandateRelatedInformation and optional, so the model can grow without breaking readers. */
export interface MandateInformation {
  mandateIdentification: string;
  dateOfSignature?: IsoDate;
  /** ISO 20022 Frequency6Code. Open set. */
  frequency?: string;
  finalCollectionDate?: IsoDate;
}

/** Identifies one message, point to point. A resent message keeps its messageIdentification; the engine uses it as the idempotency key. */
export interface MessageIdentifiers {
  messageIdentification: string;
  /** RFC 3339 date-time with an offset. */
  creationDateTime: IsoDateTime;
}

/** Key elements of the original transaction a PaymentStatusReport refers to. Every member is optional. */
export interface OriginalTransactionData {
  amounts?: TransactionAmounts;
  creditor?: Party;
  creditorAccount?: PaymentAccount;
  creditorAgent?: InstitutionIdentification;
  debtor?: Party;
  debtorAccount?: PaymentAccount;
  debtorAgent?: InstitutionIdentification;
  paymentMethod?: PaymentMethod;
  paymentTypeInformation?: PaymentTypeInformation;
  remittanceInformation?: RemittanceInformation;
  settlementDate?: IsoDate;
  supplementaryData?: KeyValuePair[];
}

/** A basic party, expanded for a person or an organisation (creditor or debtor). name is not shown by the spec's Party table; it is ISO 20022's Nm and is added as optional. */
export interface Party {
  name?: string;
  address?: Address;
  contactDetails?: ContactDetails;
  /** ISO 3166-1 alpha-2 country code. */
  countryOfResidence?: string;
  identification?: PartyIdentification;
}

/** Identification of a person or an organisation. */
export interface PartyIdentification {
  /** PERSON or ORGANISATION. */
  schema: PartyKind;
  identifiers?: GenericIdentification[];
}

/** Whether a party is a person or an organisation (the spec's sample shows PERSON). UNKNOWN is the reader-side fallback for a symbol added later and is never valid in JSON. */
export type PartyKind = 'PERSON' | 'ORGANISATION' | 'UNKNOWN';

export const partyKindSymbols = ['PERSON', 'ORGANISATION', 'UNKNOWN'] as const satisfies readonly PartyKind[];

/** The creditor's or debtor's account in a DirectDebit. At least one of identification and proxy is required. */
export interface PaymentAccount {
  identification?: AccountIdentification;
  proxy?: ProxyAccountIdentification;
  /** Name of the account as the account holder knows it. */
  name?: string;
  /** Account type, for example CODE CACC (current) or SVGS (savings). */
  type?: Code;
  /** ISO 4217 currency of the account. */
  currency?: string;
}

/** The kind of the original transaction. UNKNOWN is the reader-side fallback for a symbol added later and is never valid in JSON. */
export type PaymentMethod = 'CreditTransfer' | 'DirectDebit' | 'UNKNOWN';

export const paymentMethodSymbols = ['CreditTransfer', 'DirectDebit', 'UNKNOWN'] as const satisfies readonly PaymentMethod[];

/** An EFT data record (spec 2.3, eftDataRecord; EventEsmPayload in 2.1). The spec does not show which members are required: schema, recordIdentifier, actionDate and amount are, the rest are optional. Lengths follow the EFT record layout. */
export interface PaymentRecord {
  schema: 'PaymentRecord';
  /** Kind of EFT record. Open set. */
  recordIdentifier: string;
  actionDate: IsoDate;
  /** The amount in rand (a JSON number, at most 2 decimal places). */
  amount: DecimalString;
  /** The record's sequence number in its EFT file. */
  sequenceNumber?: number;
  homingAccount?: string;
  homingAccountName?: string;
  homingBranch?: string;
  homingInstitution?: string;
  nonStandardHomingAccount?: string;
  userAccount?: string;
  userBranch?: string;
  userCode?: string;
  userReference?: string;
  /** Open set. */
  accountType?: string;
  /** Open set. */
  entryClass?: string;
  filler1?: string;
  filler2?: string;
  filler3?: string;
  filler4?: string;
  /** Open set. */
  taxCode?: string;
}

/** Designates the scheme and gives scheme-specific information. One type serves the spec's DirectDebitPaymentScheme, PaymentStatusReportPaymentScheme and the CreditTransfer's paymentScheme, which have the same shape. */
export interface PaymentScheme {
  /** The scheme code. */
  schema: PaymentSchemeCode;
  schemeData?: PaymentSchemeData;
}

/** Payment scheme code. ZA_EFT is the South African EFT scheme that on-us debits use; ZA_RTC, ZA_RPP, ZA_AC and ZA_RMS are the other South African schemes and CBPR_PLUS is cross-border. UNKNOWN is the reader-side fallback for a scheme added later and is never valid in JSON. */
export type PaymentSchemeCode = 'ZA_EFT' | 'ZA_RTC' | 'ZA_RPP' | 'ZA_AC' | 'ZA_RMS' | 'CBPR_PLUS' | 'UNKNOWN';

export const paymentSchemeCodeSymbols = ['ZA_EFT', 'ZA_RTC', 'ZA_RPP', 'ZA_AC', 'ZA_RMS', 'CBPR_PLUS', 'UNKNOWN'] as const satisfies readonly PaymentSchemeCode[];

/** Scheme-specific information. One record for every scheme, each member optional: which members a scheme needs is a business rule (ZA_EFT debits need userReference and the shortened account numbers). userReference, originatorEchoData and businessReference are shown by the spec (2.4); the shortened account numbers come from the ZA_EFT scheme. */
export interface PaymentSchemeData {
  /** EFT user reference; its first 10 characters are the bank's clearing user code. */
  userReference?: string;
  originatorEchoData?: string;
  businessReference?: string;
  /** ZA_EFT: the creditor's account number in the 11-character EFT field. */
  shortenedCreditorAccountNumber?: string;
  /** ZA_EFT: the debtor's account number in the 11-character EFT field. */
  shortenedDebtorAccountNumber?: string;
}

/** ISO 20022 transaction status: ACTC technically accepted, ACCP accepted (customer profile), ACSP settlement in process, ACSC settlement completed, ACCC credited, PDNG pending, RJCT rejected. The engine answers an outbound DirectDebit with ACCP or RJCT; the actioning bank answers an inbound DirectDebit with ACSC (debited) or RJCT (unpaid). UNKNOWN is the reader-side fallback for a symbol added later and is never valid in JSON. */
export type PaymentStatusCode = 'ACTC' | 'ACCP' | 'ACSP' | 'ACSC' | 'ACCC' | 'PDNG' | 'RJCT' | 'UNKNOWN';

export const paymentStatusCodeSymbols = ['ACTC', 'ACCP', 'ACSP', 'ACSC', 'ACCC', 'PDNG', 'RJCT', 'UNKNOWN'] as const satisfies readonly PaymentStatusCode[];

/** A status report (spec 2.6), used for outboundDirectDebitResponse (engine to bank: ACCP or RJCT) and inboundDirectDebitResponse (bank to engine: ACSC or RJCT). Property names of the nested objects follow the domain notes, documented in avro/README.md. */
export interface PaymentStatusReport {
  /** MessageIdentifiers of this report. */
  messageIdentifiers: MessageIdentifiers;
  /** SupplementaryData: key-value pairs. */
  supplementaryData?: KeyValuePair[];
  /** MessageIdentifiers of the message this report answers. */
  originalMessageIdentifiers: MessageIdentifiers;
  /** TransactionIdentifiers of the original transaction. */
  transactionIdentifiers: TransactionIdentifiers;
  instructingAgent?: InstitutionIdentification;
  instructedAgent?: InstitutionIdentification;
  /** Key elements of the original transaction. */
  originalTransactionData?: OriginalTransactionData;
  /** PaymentStatusReportPaymentScheme: the scheme and its scheme-specific data. */
  paymentScheme: PaymentScheme;
  /** The status code (for example RJCT) and its reasons. */
  status: Status;
  /** Always PaymentStatusReport. */
  schema: 'PaymentStatusReport';
}

/** Further specifies the type of payment. The spec shows localInstrument (2.4); serviceLevel and categoryPurpose are ISO 20022 PaymentTypeInformation members added as optional. */
export interface PaymentTypeInformation {
  localInstrument?: Code;
  serviceLevel?: Code;
  categoryPurpose?: Code;
}

/** An error response body, RFC 9457 application/problem+json. errors lists every invalid member of a 422. */
export interface ProblemDetails {
  /** URI identifying the problem type (problemTypes in @rp/contracts). */
  type: string;
  /** Short summary of the problem type. */
  title: string;
  /** The HTTP status code. */
  status: number;
  /** Explanation specific to this occurrence. */
  detail?: string;
  /** URI reference identifying this occurrence. */
  instance?: string;
  /** Every invalid member (422). */
  errors?: FieldError[];
}

/** An alias that resolves to an account (mobile number, e-mail address, ...), ISO 20022 ProxyAccountIdentification1. */
export interface ProxyAccountIdentification {
  /** Kind of proxy, for example CODE TELE or EMAL. */
  type?: Code;
  identification: string;
}

/** Which row of the spec's error table (section 7) makes a transaction a reconciliation item; the row numbers and texts are in @rp/contracts (reconciliation.ts). UNKNOWN is the reader-side fallback for a symbol added later and is never valid in JSON. */
export type ReconciliationCode = 'OUTBOUND_DEBIT_NO_RESPONSE' | 'OUTBOUND_DEBIT_NEGATIVE_ACKNOWLEDGEMENT' | 'UNRECOVERABLE_ERROR' | 'STATUS_REPORT_NOT_SENT' | 'STATUS_REPORT_NOT_ACKNOWLEDGED' | 'ACCOUNT_VALIDATION_REJECTED' | 'INBOUND_DEBIT_NO_RESPONSE' | 'INBOUND_DEBIT_NEGATIVE_ACKNOWLEDGEMENT' | 'INBOUND_STATUS_REPORT_MISSING' | 'INBOUND_STATUS_REPORT_NOT_ACKNOWLEDGED' | 'UNKNOWN';

export const reconciliationCodeSymbols = ['OUTBOUND_DEBIT_NO_RESPONSE', 'OUTBOUND_DEBIT_NEGATIVE_ACKNOWLEDGEMENT', 'UNRECOVERABLE_ERROR', 'STATUS_REPORT_NOT_SENT', 'STATUS_REPORT_NOT_ACKNOWLEDGED', 'ACCOUNT_VALIDATION_REJECTED', 'INBOUND_DEBIT_NO_RESPONSE', 'INBOUND_DEBIT_NEGATIVE_ACKNOWLEDGEMENT', 'INBOUND_STATUS_REPORT_MISSING', 'INBOUND_STATUS_REPORT_NOT_ACKNOWLEDGED', 'UNKNOWN'] as const satisfies readonly ReconciliationCode[];

/** A transaction left unresolved when the reconciliation window closed (topic rp.reconciliation.v1, keyed by uetr), with the row of the spec's error table (section 7) that applies. */
export interface ReconciliationItem {
  uetr: Uuid;
  /** Row of the spec's section 7 table, 1 to 10. */
  row: number;
  /** The row as a code. */
  code: ReconciliationCode;
  /** The row's condition in words. */
  text: string;
  /** The transaction's state when the window closed. */
  stateAtClose: TransactionState;
  /** The transaction's state sequence number when the window closed. */
  sequenceAtClose: number;
  /** messageIdentification of the transaction's original message. */
  messageIdentification?: string;
  window: ReconciliationWindow;
  detectedAt: IsoDateTime;
}

/** The reconciliation window whose close left the transaction unresolved. */
export interface ReconciliationWindow {
  /** Business day of the window (Africa/Johannesburg). */
  businessDate: IsoDate;
  opensAt?: IsoDateTime;
  closesAt: IsoDateTime;
}

/** A document the payment settles (an invoice, a credit note). */
export interface ReferredDocument {
  type?: DocumentType;
  documentIdentifier?: string;
}

/** Amounts of the referred documents. */
export interface ReferredDocumentAmount {
  duePayableAmount?: Amount;
  remittedAmount?: Amount;
}

/** Information that lets the creditor match the payment with what it settles: free text, structured references, or both. */
export interface RemittanceInformation {
  unstructured?: string[];
  structured?: StructuredRemittanceInformation[];
}

/** Direct debit sequence (SequenceTypeCode): FRST first, RCUR recurring, FNAL final, OOFF one-off, RPRE represented. UNKNOWN is the reader-side fallback for a symbol added later and is never valid in JSON. */
export type SequenceType = 'FRST' | 'RCUR' | 'FNAL' | 'OOFF' | 'RPRE' | 'UNKNOWN';

export const sequenceTypeSymbols = ['FRST', 'RCUR', 'FNAL', 'OOFF', 'RPRE', 'UNKNOWN'] as const satisfies readonly SequenceType[];

/** The message that caused a state change: a bank's or scheme's message, a delivery outcome, or a timer (window opened or closed). */
export interface StateChangeCause {
  /** What caused the change: a message name (DirectDebit, PaymentStatusReport, CreditTransfer, DeliveryOutcome) or a timer (DebitWindowOpened, ReconciliationWindowClosed). Open set. */
  messageType: string;
  /** messageIdentification of the causing message, when it has one. */
  messageIdentification?: string;
  /** Kafka topic the causing record was read from, when it was. */
  topic?: string;
  partition?: number;
  /** Kafka offset as a decimal string (64-bit). */
  offset?: string;
}

/** One state a transaction reached, in a TransactionStatus's history. */
export interface StateHistoryEntry {
  /** The transaction's state sequence number: 1 for its first state, one more for each change (stageVersion in event postings). */
  seq: number;
  /** The state the transaction moved to. */
  state: TransactionState;
  /** The event type of the change (the TRANSACTION_STATE posting's type). */
  eventType: TransactionEventType;
  /** When the change happened (RFC 3339). */
  at: IsoDateTime;
}

/** The status a PaymentStatusReport carries, with its reasons (a rejection carries at least one in practice). */
export interface Status {
  status: PaymentStatusCode;
  reasonInfo?: StatusReasonInformation[];
}

/** Why a transaction has its status. */
export interface StatusReason {
  /** ISO 20022 ExternalStatusReason1Code. The engine uses AC01 incorrect account number, AC03 invalid creditor account, AC04 closed account, AC06 blocked account, AG01 transaction forbidden, AG02 invalid bank operation code, AM02 amount above maximum, AM03 currency not allowed, AM04 insufficient funds, AM05 duplicate, BE01 inconsistent with end customer, DT01 invalid date, FF01 invalid file format, MD01 no mandate, MS03 not specified, NARR narrative; a bank may send any code of the list. */
  code: string;
}

/** A reason for the status with optional free text. */
export interface StatusReasonInformation {
  reason: StatusReason;
  /** Further details (ISO 20022 AddtlInf: up to 105 characters each). */
  additionalInfo?: string[];
}

/** Structured remittance information (spec 2.4). */
export interface StructuredRemittanceInformation {
  referredDocuments?: ReferredDocument[];
  referredDocumentAmount?: ReferredDocumentAmount;
  creditorReference?: CreditorReference;
  additionalRemittanceInformation?: string[];
}

/** Tax details of a credit transfer (spec 2.4 shows totalAmount). */
export interface TaxInformation {
  totalAmount?: Amount;
}

/** Transaction information of a TRANSACTION_STATE posting (spec 2.2, tranInfo). */
export interface TranInfo {
  /** The transaction's UETR. */
  tranUetr: Uuid;
  direction: Direction;
  paymentScheme: PaymentSchemeCode;
  /** Service code; the spec does not list them. The engine sends CREDIT_TRANSFER or DIRECT_DEBIT. Open set. */
  service: string;
}

/** The amounts of a transaction. bankSettlementAmount is required (ISO 20022 makes the interbank settlement amount mandatory); instructedAmount is optional. */
export interface TransactionAmounts {
  /** Amount moved between the agents. */
  bankSettlementAmount: Amount;
  /** Amount as instructed by the initiating party, before charges. */
  instructedAmount?: Amount;
}

/** TRANSACTION_STATE event type: the processing stage a transaction reached. The catalogue in @rp/contracts (event-types.ts) gives each one's trigger, emitting service and direction. UNKNOWN is the reader-side fallback for a type added later and is never valid in JSON. */
export type TransactionEventType = 'DEBIT_REQUEST_RECEIVED' | 'DEBIT_REQUEST_ACCEPTED' | 'DEBIT_REQUEST_REJECTED' | 'DEBIT_STATUS_DELIVERY_PENDING' | 'DEBIT_STATUS_DELIVERED' | 'DEBIT_STATUS_DELIVERY_FAILURE' | 'DEBIT_QUEUED' | 'DEBIT_DELIVERY_PENDING' | 'DEBIT_DELIVERED' | 'DEBIT_DELIVERY_FAILURE' | 'DEBIT_RESPONSE_ACCEPTED' | 'DEBIT_COMPLETED' | 'DEBIT_UNPAID' | 'CREDIT_AUTH_RECEIVED' | 'CREDIT_AUTH_ACCEPTED' | 'CREDIT_AUTH_REJECTED' | 'CREDIT_AUTH_DELIVERY_PENDING' | 'CREDIT_AUTH_DELIVERED' | 'CREDIT_AUTH_DELIVERY_FAILURE' | 'CREDIT_AUTH_RESPONSE_ACCEPTED' | 'RECONCILIATION_REQUIRED' | 'UNKNOWN';

export const transactionEventTypeSymbols = ['DEBIT_REQUEST_RECEIVED', 'DEBIT_REQUEST_ACCEPTED', 'DEBIT_REQUEST_REJECTED', 'DEBIT_STATUS_DELIVERY_PENDING', 'DEBIT_STATUS_DELIVERED', 'DEBIT_STATUS_DELIVERY_FAILURE', 'DEBIT_QUEUED', 'DEBIT_DELIVERY_PENDING', 'DEBIT_DELIVERED', 'DEBIT_DELIVERY_FAILURE', 'DEBIT_RESPONSE_ACCEPTED', 'DEBIT_COMPLETED', 'DEBIT_UNPAID', 'CREDIT_AUTH_RECEIVED', 'CREDIT_AUTH_ACCEPTED', 'CREDIT_AUTH_REJECTED', 'CREDIT_AUTH_DELIVERY_PENDING', 'CREDIT_AUTH_DELIVERED', 'CREDIT_AUTH_DELIVERY_FAILURE', 'CREDIT_AUTH_RESPONSE_ACCEPTED', 'RECONCILIATION_REQUIRED', 'UNKNOWN'] as const satisfies readonly TransactionEventType[];

/** Identifiers of the transaction, or of one message that is part of it. The uetr is the transaction's key everywhere in the engine (Kafka key, MongoDB _id). */
export interface TransactionIdentifiers {
  endToEndIdentification: string;
  instructionIdentification?: string;
  transactionIdentification?: string;
  /** Unique end-to-end transaction reference (UUID, RFC 9562). */
  uetr: Uuid;
}

/** Where a transaction is in the engine. The allowed transitions between states, and the event type each emits, are the transition table in @rp/contracts (event-types.ts). UNKNOWN is the reader-side fallback for a state added later and is never valid in JSON. */
export type TransactionState = 'DEBIT_RECEIVED' | 'DEBIT_ACCEPTED' | 'DEBIT_REJECTED' | 'DEBIT_ACCEPTANCE_DELIVERY_PENDING' | 'DEBIT_ACCEPTANCE_DELIVERED' | 'DEBIT_REJECTION_DELIVERY_PENDING' | 'DEBIT_REJECTION_DELIVERED' | 'DEBIT_STATUS_DELIVERY_FAILED' | 'DEBIT_QUEUED' | 'DEBIT_DELIVERY_PENDING' | 'DEBIT_DELIVERED' | 'DEBIT_DELIVERY_FAILED' | 'DEBIT_RESPONSE_ACCEPTED' | 'DEBIT_COMPLETED' | 'DEBIT_UNPAID' | 'CREDIT_AUTH_RECEIVED' | 'CREDIT_AUTH_ACCEPTED' | 'CREDIT_AUTH_REJECTED' | 'CREDIT_AUTH_DELIVERY_PENDING' | 'CREDIT_AUTH_DELIVERED' | 'CREDIT_AUTH_DELIVERY_FAILED' | 'CREDIT_AUTH_RESPONSE_ACCEPTED' | 'RECONCILIATION_REQUIRED' | 'UNKNOWN';

export const transactionStateSymbols = ['DEBIT_RECEIVED', 'DEBIT_ACCEPTED', 'DEBIT_REJECTED', 'DEBIT_ACCEPTANCE_DELIVERY_PENDING', 'DEBIT_ACCEPTANCE_DELIVERED', 'DEBIT_REJECTION_DELIVERY_PENDING', 'DEBIT_REJECTION_DELIVERED', 'DEBIT_STATUS_DELIVERY_FAILED', 'DEBIT_QUEUED', 'DEBIT_DELIVERY_PENDING', 'DEBIT_DELIVERED', 'DEBIT_DELIVERY_FAILED', 'DEBIT_RESPONSE_ACCEPTED', 'DEBIT_COMPLETED', 'DEBIT_UNPAID', 'CREDIT_AUTH_RECEIVED', 'CREDIT_AUTH_ACCEPTED', 'CREDIT_AUTH_REJECTED', 'CREDIT_AUTH_DELIVERY_PENDING', 'CREDIT_AUTH_DELIVERED', 'CREDIT_AUTH_DELIVERY_FAILED', 'CREDIT_AUTH_RESPONSE_ACCEPTED', 'RECONCILIATION_REQUIRED', 'UNKNOWN'] as const satisfies readonly TransactionState[];

/** Internal record a service emits each time it moves a transaction to a new state (topic rp.transaction.state.v1, keyed by uetr). The event-publisher turns each one into a posting; the store projects it into the transaction's snapshot. */
export interface TransactionStateChanged {
  uetr: Uuid;
  /** The transaction's state sequence number: 1 for its first state, one more for each change. Emitters leave it null: several services move one transaction (and a bank's report can race the engine's own record of the bank's 202), so only the tracker, the single consumer of the transaction's partition, orders the changes, refuses illegal ones and assigns the number it puts on the postings (stageVersion) and the snapshot. */
  sequence?: number;
  /** The state left; absent for the first state. */
  fromState?: TransactionState;
  toState: TransactionState;
  /** The event type the transition emits (from the transition table). */
  eventType: TransactionEventType;
  /** When the change happened (RFC 3339). */
  occurredAt: IsoDateTime;
  /** The service that made the change. */
  emittedBy: string;
  causedBy: StateChangeCause;
  /** Snapshot of the transaction payload after the change. Null when the change leaves the payload as the transaction's earlier changes carried it and the emitter does not hold it (the dispatcher delivering the engine's status report, the ingress taking a bank's report, the validator applying the actioning bank's report): the tracker, which sequences the changes, fills it in from what it recorded. */
  transaction?: CreditTransfer | DirectDebit;
  /** The transaction's latest status report, when it has one (the engine's ACCP or RJCT, or the actioning bank's ACSC or RJCT). */
  statusReport?: PaymentStatusReport;
}

/** An event posting of class TRANSACTION_STATE (spec 2.1, 2.2, section 6): sent to a bank's /events each time one of its transactions moves to a different state. The members the spec's TRANSACTION_STATE sample shows are required. actionDate, creationDateTime, identifiers, state and transactionInfo are required by the generic event posting table (2.1) but not shown in the TRANSACTION_STATE sample, so they are optional here; the engine fills them. */
export interface TransactionStatePosting {
  /** class and type joined by an underscore: TRANSACTION_STATE_<type>. */
  name: string;
  /** Version of the Regulated Payments Events API the posting conforms to: <major>.<minor>.<patch> (eventsApiVersion in @rp/contracts). */
  apiVersion: string;
  /** Always TRANSACTION_STATE. */
  class: 'TRANSACTION_STATE';
  /** The processing stage that caused the posting. */
  type: TransactionEventType;
  /** The transaction's state sequence number (TransactionStateChanged.sequence): 1 for its first posting, one more for each state change, so a bank can order postings and drop a redelivered one. */
  stageVersion: number;
  tranInfo: TranInfo;
  /** Identifies this posting: messageIdentification is stable across redeliveries (the event id) and creationDateTime is when the engine created it. */
  messageInfo: MessageIdentifiers;
  /** The transaction payload as it was at the time of the event; its schema member names its type. Required for this class because every TRANSACTION_STATE posting embeds the payload (spec 1.6), although 2.1 marks payload optional for event postings in general. The engine embeds the DirectDebit for debit stages and the CreditTransfer for credit stages. */
  payload: CreditTransfer | DirectDebit;
  /** Date at which the transaction should take effect. */
  actionDate?: IsoDate;
  /** When the event was created (same instant as messageInfo.creationDateTime). */
  creationDateTime?: IsoDateTime;
  identifiers?: EventEsmIdentifiers;
  /** The ESM-style state the event type maps to (see the event type catalogue). */
  state?: EventEsmState;
  transactionInfo?: EventEsmTransactionInfo;
}

/** Body of the engine's HTTP 200 to GET /transactions/{uetr}: where a transaction the calling bank is party to stands, from the engine's record of it. Only a party's view: no other party's messages and nothing of how the engine delivers them. */
export interface TransactionStatus {
  /** The transaction's UETR. */
  uetr: Uuid;
  /** DIRECT_DEBIT or CREDIT_TRANSFER: the message that started the transaction. */
  transactionType: TransactionType;
  /** The transaction's current state. */
  state: TransactionState;
  /** Whether the state is final: no further change will follow. */
  final: boolean;
  /** transactionIdentifiers.endToEndIdentification of the message that started the transaction. */
  endToEndIdentification: string;
  /** instructingAgent.memberId of the message that started the transaction, when it names one. */
  instructingAgentMemberId?: string;
  /** instructedAgent.memberId of the message that started the transaction, when it names one. */
  instructedAgentMemberId?: string;
  /** debtorAgent.memberId of the message that started the transaction, when it names one. */
  debtorAgentMemberId?: string;
  /** creditorAgent.memberId of the message that started the transaction, when it names one. */
  creditorAgentMemberId?: string;
  /** amounts.bankSettlementAmount of the message that started the transaction: its exact value (a JSON number never rounded through a binary float; trailing zeros of the fraction are not kept). */
  amount: Amount;
  /** When the engine recorded the transaction's first state (RFC 3339). */
  createdAt: IsoDateTime;
  /** When the engine recorded its latest change (RFC 3339). */
  updatedAt: IsoDateTime;
  /** Every state the transaction reached, in order (ascending seq); the last one is the current state. */
  history: StateHistoryEntry[];
}

/** What kind of transaction it is, by the message that started it: DIRECT_DEBIT (a DirectDebit, on-us or inbound off-us) or CREDIT_TRANSFER (a CreditTransfer authorisation), as tranInfo.service names it in event postings. UNKNOWN is the reader-side fallback for a type added later and is never valid in JSON. */
export type TransactionType = 'DIRECT_DEBIT' | 'CREDIT_TRANSFER' | 'UNKNOWN';

export const transactionTypeSymbols = ['DIRECT_DEBIT', 'CREDIT_TRANSFER', 'UNKNOWN'] as const satisfies readonly TransactionType[];

/** One of: TransactionStatePosting, EsmStatePosting. */
export type EventPosting = TransactionStatePosting | EsmStatePosting;

/** Every top-level schema: Kafka messages (avro/*.avsc) and HTTP bodies (avro/http/*.avsc). */
export type MessageName = 'Acknowledgement' | 'FieldError' | 'ProblemDetails' | 'TransactionStatus' | 'CreditTransfer' | 'DeliveryOutcome' | 'DirectDebit' | 'EsmStatePosting' | 'EventPosting' | 'PaymentStatusReport' | 'ReconciliationItem' | 'TransactionStateChanged' | 'TransactionStatePosting';

export const messageNames = ['Acknowledgement', 'FieldError', 'ProblemDetails', 'TransactionStatus', 'CreditTransfer', 'DeliveryOutcome', 'DirectDebit', 'EsmStatePosting', 'EventPosting', 'PaymentStatusReport', 'ReconciliationItem', 'TransactionStateChanged', 'TransactionStatePosting'] as const satisfies readonly MessageName[];

/** The plain-JSON type of each message by name. */
export interface Messages {
  Acknowledgement: Acknowledgement;
  FieldError: FieldError;
  ProblemDetails: ProblemDetails;
  TransactionStatus: TransactionStatus;
  CreditTransfer: CreditTransfer;
  DeliveryOutcome: DeliveryOutcome;
  DirectDebit: DirectDebit;
  EsmStatePosting: EsmStatePosting;
  EventPosting: EventPosting;
  PaymentStatusReport: PaymentStatusReport;
  ReconciliationItem: ReconciliationItem;
  TransactionStateChanged: TransactionStateChanged;
  TransactionStatePosting: TransactionStatePosting;
}
