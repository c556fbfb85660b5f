// Generated from avro/**/*.avsc by packages/contracts/scripts/generate.ts. Do not edit.

import type { AvroFile } from '../avro/raw-schema.ts';

export const avroFiles: readonly AvroFile[] = [
  {
    "path": "types/Account.avsc",
    "schema": {
      "type": "record",
      "name": "Account",
      "namespace": "za.rp.v1",
      "doc": "An account as the CreditTransfer payload shows it (spec 2.4).",
      "fields": [
        {
          "name": "identification",
          "type": "za.rp.v1.AccountIdentification"
        },
        {
          "name": "type",
          "doc": "Account type, for example CODE CACC (current) or SVGS (savings).",
          "type": [
            "null",
            "za.rp.v1.Code"
          ],
          "default": null
        },
        {
          "name": "currency",
          "doc": "ISO 4217 currency of the account.",
          "type": [
            "null",
            {
              "type": "string",
              "pattern": "^[A-Z]{3}$"
            }
          ],
          "default": null
        }
      ]
    }
  },
  {
    "path": "types/AccountIdentification.avsc",
    "schema": {
      "type": "record",
      "name": "AccountIdentification",
      "namespace": "za.rp.v1",
      "doc": "Identification of an account by number.",
      "fields": [
        {
          "name": "schema",
          "doc": "GENERIC (a local account number) as the spec shows. Open set: IBAN may follow.",
          "type": {
            "type": "string",
            "minLength": 1,
            "maxLength": 35,
            "examples": [
              "GENERIC"
            ]
          }
        },
        {
          "name": "scheme",
          "type": [
            "null",
            "za.rp.v1.AccountSchemeName"
          ],
          "default": null
        },
        {
          "name": "issuer",
          "type": [
            "null",
            {
              "type": "string",
              "minLength": 1,
              "maxLength": 35
            }
          ],
          "default": null
        },
        {
          "name": "value",
          "doc": "The account number (ISO 20022 Max34Text).",
          "type": {
            "type": "string",
            "minLength": 1,
            "maxLength": 34
          }
        }
      ]
    }
  },
  {
    "path": "types/AccountSchemeName.avsc",
    "schema": {
      "type": "record",
      "name": "AccountSchemeName",
      "namespace": "za.rp.v1",
      "doc": "The scheme under which an account identification is issued (the spec's sample shows schema PROPRIETARY).",
      "fields": [
        {
          "name": "schema",
          "doc": "PROPRIETARY or CODE (ISO 20022 ExternalAccountIdentification1Code). Open set.",
          "type": {
            "type": "string",
            "minLength": 1,
            "maxLength": 35,
            "examples": [
              "PROPRIETARY",
              "CODE"
            ]
          }
        },
        {
          "name": "value",
          "doc": "The scheme name, for example BBAN.",
          "type": {
            "type": "string",
            "minLength": 1,
            "maxLength": 35
          }
        }
      ]
    }
  },
  {
    "path": "types/Address.avsc",
    "schema": {
      "type": "record",
      "name": "Address",
      "namespace": "za.rp.v1",
      "doc": "Postal address (ISO 20022 PostalAddress). Every member is optional. buildingNumber, floor, postBox and postCode are JSON numbers as the spec shows them; integers are chosen (a post code with leading zeros belongs in addressLine).",
      "fields": [
        {
          "name": "addressType",
          "doc": "ISO 20022 AddressType2Code; the spec's samples show ADDR. Open set.",
          "type": [
            "null",
            {
              "type": "string",
              "minLength": 1,
              "maxLength": 4,
              "examples": [
                "ADDR",
                "PBOX",
                "HOME",
                "BIZZ",
                "MLTO",
                "DLVY"
              ]
            }
          ],
          "default": null
        },
        {
          "name": "department",
          "type": [
            "null",
            {
              "type": "string",
              "minLength": 1,
              "maxLength": 70
            }
          ],
          "default": null
        },
        {
          "name": "streetName",
          "type": [
            "null",
            {
              "type": "string",
              "minLength": 1,
              "maxLength": 70
            }
          ],
          "default": null
        },
        {
          "name": "buildingName",
          "type": [
            "null",
            {
              "type": "string",
              "minLength": 1,
              "maxLength": 35
            }
          ],
          "default": null
        },
        {
          "name": "townName",
          "type": [
            "null",
            {
              "type": "string",
              "minLength": 1,
              "maxLength": 35
            }
          ],
          "default": null
        },
        {
          "name": "townLocationName",
          "type": [
            "null",
            {
              "type": "string",
              "minLength": 1,
              "maxLength": 35
            }
          ],
          "default": null
        },
        {
          "name": "districtName",
          "type": [
            "null",
            {
              "type": "string",
              "minLength": 1,
              "maxLength": 35
            }
          ],
          "default": null
        },
        {
          "name": "countrySubDivision",
          "type": [
            "null",
            {
              "type": "string",
              "minLength": 1,
              "maxLength": 35
            }
          ],
          "default": null
        },
        {
          "name": "country",
          "doc": "ISO 3166-1 alpha-2 country code.",
          "type": [
            "null",
            {
              "type": "string",
              "pattern": "^[A-Z]{2}$"
            }
          ],
          "default": null
        },
        {
          "name": "buildingNumber",
          "type": [
            "null",
            {
              "type": "long",
              "minimum": 0
            }
          ],
          "default": null
        },
        {
          "name": "floor",
          "type": [
            "null",
            {
              "type": "long"
            }
          ],
          "default": null
        },
        {
          "name": "postBox",
          "type": [
            "null",
            {
              "type": "long",
              "minimum": 0
            }
          ],
          "default": null
        },
        {
          "name": "postCode",
          "type": [
            "null",
            {
              "type": "long",
              "minimum": 0
            }
          ],
          "default": null
        },
        {
          "name": "addressLine",
          "doc": "Free-form address lines, each a string or a number as the spec shows (at most 7, ISO 20022).",
          "type": [
            "null",
            {
              "type": "array",
              "maxItems": 7,
              "items": [
                {
                  "type": "string",
                  "minLength": 1,
                  "maxLength": 70
                },
                "long"
              ]
            }
          ],
          "default": null
        }
      ]
    }
  },
  {
    "path": "types/Agent.avsc",
    "schema": {
      "type": "record",
      "name": "Agent",
      "namespace": "za.rp.v1",
      "doc": "A financial institution as the CreditTransfer payload shows it (spec 2.4).",
      "fields": [
        {
          "name": "bicfi",
          "doc": "Business identifier code (ISO 9362), 8 or 11 characters.",
          "type": [
            "null",
            {
              "type": "string",
              "pattern": "^[A-Z0-9]{4}[A-Z]{2}[A-Z0-9]{2}([A-Z0-9]{3})?$"
            }
          ],
          "default": null
        },
        {
          "name": "memberId",
          "doc": "Clearing system member identification (the participant's member id).",
          "type": [
            "null",
            {
              "type": "string",
              "minLength": 1,
              "maxLength": 35
            }
          ],
          "default": null
        },
        {
          "name": "name",
          "type": [
            "null",
            {
              "type": "string",
              "minLength": 1,
              "maxLength": 140
            }
          ],
          "default": null
        },
        {
          "name": "branch",
          "type": [
            "null",
            "za.rp.v1.BranchIdentification"
          ],
          "default": null
        }
      ]
    }
  },
  {
    "path": "types/Amount.avsc",
    "schema": {
      "type": "record",
      "name": "Amount",
      "namespace": "za.rp.v1",
      "doc": "A monetary amount in a currency. The value is exact: Avro decimal (precision 18, scale 5) on the wire, a decimal string in TypeScript, a JSON number in HTTP bodies. Its decimal places may not exceed the currency's ISO 4217 minor units (ZAR 2, JPY 0, BHD 3).",
      "currencyAmount": {
        "value": "value",
        "currency": "currency"
      },
      "fields": [
        {
          "name": "value",
          "doc": "The amount. Scale 5 holds every ISO 4217 currency's minor units (at most 4) and leaves 13 integer digits (up to 9999999999999.99999).",
          "type": {
            "type": "bytes",
            "logicalType": "decimal",
            "precision": 18,
            "scale": 5,
            "minimum": 0
          }
        },
        {
          "name": "currency",
          "doc": "ISO 4217 alphabetic currency code.",
          "type": {
            "type": "string",
            "pattern": "^[A-Z]{3}$",
            "examples": [
              "ZAR"
            ]
          }
        }
      ]
    }
  },
  {
    "path": "types/BranchIdentification.avsc",
    "schema": {
      "type": "record",
      "name": "BranchIdentification",
      "namespace": "za.rp.v1",
      "doc": "A branch of a financial institution.",
      "fields": [
        {
          "name": "identification",
          "doc": "Branch code, for example the 6-digit South African branch code.",
          "type": [
            "null",
            {
              "type": "string",
              "minLength": 1,
              "maxLength": 35
            }
          ],
          "default": null
        },
        {
          "name": "name",
          "type": [
            "null",
            {
              "type": "string",
              "minLength": 1,
              "maxLength": 140
            }
          ],
          "default": null
        },
        {
          "name": "address",
          "type": [
            "null",
            "za.rp.v1.Address"
          ],
          "default": null
        }
      ]
    }
  },
  {
    "path": "types/ClearingSystemMemberIdentification.avsc",
    "schema": {
      "type": "record",
      "name": "ClearingSystemMemberIdentification",
      "namespace": "za.rp.v1",
      "doc": "Identification of an institution within a clearing system.",
      "fields": [
        {
          "name": "clearingSystem",
          "doc": "ISO 20022 ExternalClearingSystemIdentification1Code, for example ZANCC (South African National Clearing Code).",
          "type": [
            "null",
            {
              "type": "string",
              "minLength": 1,
              "maxLength": 5,
              "examples": [
                "ZANCC"
              ]
            }
          ],
          "default": null
        },
        {
          "name": "memberId",
          "type": {
            "type": "string",
            "minLength": 1,
            "maxLength": 35
          }
        }
      ]
    }
  },
  {
    "path": "types/Code.avsc",
    "schema": {
      "type": "record",
      "name": "Code",
      "namespace": "za.rp.v1",
      "doc": "A coded value: an ISO 20022 external code (schema CODE) or a proprietary one (schema PROPRIETARY).",
      "fields": [
        {
          "name": "schema",
          "doc": "How to read value. The spec's samples show CODE; PROPRIETARY is the ISO 20022 alternative. Open set.",
          "type": {
            "type": "string",
            "minLength": 1,
            "maxLength": 35,
            "examples": [
              "CODE",
              "PROPRIETARY"
            ]
          }
        },
        {
          "name": "value",
          "doc": "The code.",
          "type": {
            "type": "string",
            "minLength": 1,
            "maxLength": 35
          }
        }
      ]
    }
  },
  {
    "path": "types/ContactDetails.avsc",
    "schema": {
      "type": "record",
      "name": "ContactDetails",
      "namespace": "za.rp.v1",
      "doc": "How to reach a party.",
      "fields": [
        {
          "name": "phoneNumber",
          "type": [
            "null",
            {
              "type": "string",
              "minLength": 1,
              "maxLength": 35
            }
          ],
          "default": null
        },
        {
          "name": "mobileNumber",
          "type": [
            "null",
            {
              "type": "string",
              "minLength": 1,
              "maxLength": 35
            }
          ],
          "default": null
        },
        {
          "name": "emailAddress",
          "type": [
            "null",
            {
              "type": "string",
              "minLength": 3,
              "maxLength": 256
            }
          ],
          "default": null
        }
      ]
    }
  },
  {
    "path": "types/CreditorReference.avsc",
    "schema": {
      "type": "record",
      "name": "CreditorReference",
      "namespace": "za.rp.v1",
      "doc": "A reference the creditor gave to the debtor so that it can match the payment.",
      "fields": [
        {
          "name": "type",
          "type": [
            "null",
            "za.rp.v1.DocumentType"
          ],
          "default": null
        },
        {
          "name": "reference",
          "type": [
            "null",
            {
              "type": "string",
              "minLength": 1,
              "maxLength": 35
            }
          ],
          "default": null
        }
      ]
    }
  },
  {
    "path": "types/DeliveryError.avsc",
    "schema": {
      "type": "record",
      "name": "DeliveryError",
      "namespace": "za.rp.v1",
      "doc": "Why an attempt got no HTTP status: a transport error or a timeout.",
      "fields": [
        {
          "name": "code",
          "doc": "Error code, for example TIMEOUT, ECONNREFUSED, ECONNRESET. Open set.",
          "type": {
            "type": "string",
            "minLength": 1,
            "maxLength": 70,
            "examples": [
              "TIMEOUT",
              "ECONNREFUSED"
            ]
          }
        },
        {
          "name": "message",
          "type": {
            "type": "string",
            "maxLength": 1000
          }
        }
      ]
    }
  },
  {
    "path": "types/DeliveryOperation.avsc",
    "schema": {
      "type": "enum",
      "name": "DeliveryOperation",
      "namespace": "za.rp.v1",
      "doc": "The call the engine made on a bank, named as the spec names operations; eventPosting is POST /events. UNKNOWN is the reader-side fallback for a symbol added later and is never valid in JSON.",
      "symbols": [
        "eventPosting",
        "outboundDirectDebitResponse",
        "inboundDirectDebit",
        "inboundCreditTransferAuthorization",
        "UNKNOWN"
      ],
      "default": "UNKNOWN"
    }
  },
  {
    "path": "types/DeliveryResult.avsc",
    "schema": {
      "type": "enum",
      "name": "DeliveryResult",
      "namespace": "za.rp.v1",
      "doc": "How one delivery attempt ended: ACKNOWLEDGED (the bank answered 202), RETRYABLE_FAILURE (no response, timeout, 5xx, 408, 425, 429) or FINAL_FAILURE (any other 4xx: retrying cannot help). UNKNOWN is the reader-side fallback for a symbol added later and is never valid in JSON.",
      "symbols": [
        "ACKNOWLEDGED",
        "RETRYABLE_FAILURE",
        "FINAL_FAILURE",
        "UNKNOWN"
      ],
      "default": "UNKNOWN"
    }
  },
  {
    "path": "types/Direction.avsc",
    "schema": {
      "type": "enum",
      "name": "Direction",
      "namespace": "za.rp.v1",
      "doc": "Direction of a transaction as the receiving participant sees it: INBOUND (coming to the bank) or OUTBOUND (sent by the bank). A closed set.",
      "symbols": [
        "INBOUND",
        "OUTBOUND"
      ]
    }
  },
  {
    "path": "types/DocumentType.avsc",
    "schema": {
      "type": "record",
      "name": "DocumentType",
      "namespace": "za.rp.v1",
      "doc": "The type of a referred document or of a creditor reference: { issuer, schema, value } as the spec shows.",
      "fields": [
        {
          "name": "issuer",
          "type": [
            "null",
            {
              "type": "string",
              "minLength": 1,
              "maxLength": 35
            }
          ],
          "default": null
        },
        {
          "name": "schema",
          "doc": "CODE or PROPRIETARY. Open set.",
          "type": [
            "null",
            {
              "type": "string",
              "minLength": 1,
              "maxLength": 35,
              "examples": [
                "CODE",
                "PROPRIETARY"
              ]
            }
          ],
          "default": null
        },
        {
          "name": "value",
          "doc": "For example CINV (commercial invoice) or SCOR (structured creditor reference).",
          "type": {
            "type": "string",
            "minLength": 1,
            "maxLength": 35
          }
        }
      ]
    }
  },
  {
    "path": "types/EsmTransactionState.avsc",
    "schema": {
      "type": "enum",
      "name": "EsmTransactionState",
      "namespace": "za.rp.v1",
      "doc": "ESM_STATE processing state of a transaction. UNKNOWN is the reader-side fallback for a symbol added later and is never valid in JSON.",
      "symbols": [
        "RECEIVE_PENDING",
        "RECEIVED",
        "RECEIVE_ERROR",
        "CANCELLED",
        "SEND_PENDING",
        "SENT",
        "SEND_ERROR",
        "ON_HOLD",
        "UNKNOWN"
      ],
      "default": "UNKNOWN"
    }
  },
  {
    "path": "types/EventEsmIdentifiers.avsc",
    "schema": {
      "type": "record",
      "name": "EventEsmIdentifiers",
      "namespace": "za.rp.v1",
      "doc": "Identifiers of the transaction or of an individual message that is part of it (spec 2.1, EventEsmIdentifiers). The spec does not show which are required; uetr is.",
      "fields": [
        {
          "name": "endToEndIdentification",
          "type": [
            "null",
            {
              "type": "string",
              "minLength": 1,
              "maxLength": 35
            }
          ],
          "default": null
        },
        {
          "name": "matchingKey",
          "doc": "Derived from the EFT record's fields so that a bank can match the posting with its own record.",
          "type": [
            "null",
            {
              "type": "string",
              "minLength": 1,
              "maxLength": 140
            }
          ],
          "default": null
        },
        {
          "name": "transactionIdentification",
          "type": [
            "null",
            {
              "type": "string",
              "minLength": 1,
              "maxLength": 35
            }
          ],
          "default": null
        },
        {
          "name": "uetr",
          "type": {
            "type": "string",
            "logicalType": "uuid"
          }
        }
      ]
    }
  },
  {
    "path": "types/EventEsmState.avsc",
    "schema": {
      "type": "record",
      "name": "EventEsmState",
      "namespace": "za.rp.v1",
      "doc": "State information of an event posting (spec 2.1, EventEsmState).",
      "fields": [
        {
          "name": "financialTransactionState",
          "type": "za.rp.v1.FinancialTransactionState"
        },
        {
          "name": "transactionState",
          "type": "za.rp.v1.EsmTransactionState"
        }
      ]
    }
  },
  {
    "path": "types/EventEsmTransactionInfo.avsc",
    "schema": {
      "type": "record",
      "name": "EventEsmTransactionInfo",
      "namespace": "za.rp.v1",
      "doc": "Transaction information of an event posting (spec 2.1, EventEsmTransactionInfo). The spec shows one sample value of each member and not the full sets, so the members other than direction are open strings.",
      "fields": [
        {
          "name": "direction",
          "type": "za.rp.v1.Direction"
        },
        {
          "name": "paymentType",
          "type": {
            "type": "string",
            "minLength": 1,
            "maxLength": 35,
            "examples": [
              "CREDIT",
              "DEBIT"
            ]
          }
        },
        {
          "name": "recordType",
          "type": {
            "type": "string",
            "minLength": 1,
            "maxLength": 35,
            "examples": [
              "PAYMENT"
            ]
          }
        },
        {
          "name": "returnType",
          "doc": "Only for returns.",
          "type": [
            "null",
            {
              "type": "string",
              "minLength": 1,
              "maxLength": 35,
              "examples": [
                "DISPUTE"
              ]
            }
          ],
          "default": null
        },
        {
          "name": "subService",
          "type": [
            "null",
            {
              "type": "string",
              "minLength": 1,
              "maxLength": 35,
              "examples": [
                "SAME_DAY",
                "ONE_DAY"
              ]
            }
          ],
          "default": null
        }
      ]
    }
  },
  {
    "path": "types/FinancialTransactionState.avsc",
    "schema": {
      "type": "enum",
      "name": "FinancialTransactionState",
      "namespace": "za.rp.v1",
      "doc": "ESM_STATE financial state of a transaction. UNKNOWN is the reader-side fallback for a symbol added later and is never valid in JSON.",
      "symbols": [
        "IN_PROGRESS",
        "ACTIONED",
        "UNPAID",
        "ERROR",
        "UNMATCHED",
        "UNKNOWN"
      ],
      "default": "UNKNOWN"
    }
  },
  {
    "path": "types/GenericIdentification.avsc",
    "schema": {
      "type": "record",
      "name": "GenericIdentification",
      "namespace": "za.rp.v1",
      "doc": "One identifier of a party (identity number, passport, registration number) with who issued it and under which scheme.",
      "fields": [
        {
          "name": "identification",
          "type": {
            "type": "string",
            "minLength": 1,
            "maxLength": 35
          }
        },
        {
          "name": "issuer",
          "type": [
            "null",
            {
              "type": "string",
              "minLength": 1,
              "maxLength": 35
            }
          ],
          "default": null
        },
        {
          "name": "scheme",
          "doc": "Identification scheme, for example CODE NIDN (national identity number).",
          "type": [
            "null",
            "za.rp.v1.Code"
          ],
          "default": null
        }
      ]
    }
  },
  {
    "path": "types/InstitutionIdentification.avsc",
    "schema": {
      "type": "record",
      "name": "InstitutionIdentification",
      "namespace": "za.rp.v1",
      "doc": "A financial institution (agent) in a DirectDebit or PaymentStatusReport. Every member is optional; which ones a scheme needs is a business rule of the validator, not of the schema.",
      "fields": [
        {
          "name": "bicfi",
          "doc": "Business identifier code (ISO 9362), 8 or 11 characters.",
          "type": [
            "null",
            {
              "type": "string",
              "pattern": "^[A-Z0-9]{4}[A-Z]{2}[A-Z0-9]{2}([A-Z0-9]{3})?$"
            }
          ],
          "default": null
        },
        {
          "name": "memberId",
          "doc": "The participant's member id: how the engine finds the bank to deliver to.",
          "type": [
            "null",
            {
              "type": "string",
              "minLength": 1,
              "maxLength": 35
            }
          ],
          "default": null
        },
        {
          "name": "name",
          "type": [
            "null",
            {
              "type": "string",
              "minLength": 1,
              "maxLength": 140
            }
          ],
          "default": null
        },
        {
          "name": "branch",
          "type": [
            "null",
            "za.rp.v1.BranchIdentification"
          ],
          "default": null
        },
        {
          "name": "clearingSystemMemberId",
          "type": [
            "null",
            "za.rp.v1.ClearingSystemMemberIdentification"
          ],
          "default": null
        },
        {
          "name": "lei",
          "doc": "Legal entity identifier (ISO 17442).",
          "type": [
            "null",
            {
              "type": "string",
              "pattern": "^[A-Z0-9]{18}[0-9]{2}$"
            }
          ],
          "default": null
        },
        {
          "name": "address",
          "type": [
            "null",
            "za.rp.v1.Address"
          ],
          "default": null
        }
      ]
    }
  },
  {
    "path": "types/InstructionForCreditorAgent.avsc",
    "schema": {
      "type": "record",
      "name": "InstructionForCreditorAgent",
      "namespace": "za.rp.v1",
      "doc": "An instruction for the creditor's agent (spec 2.4: { code, information }).",
      "fields": [
        {
          "name": "code",
          "doc": "ISO 20022 Instruction3Code, for example CHQB, HOLD, PHOB, TELB. Open set.",
          "type": [
            "null",
            {
              "type": "string",
              "minLength": 1,
              "maxLength": 4
            }
          ],
          "default": null
        },
        {
          "name": "information",
          "type": [
            "null",
            {
              "type": "string",
              "minLength": 1,
              "maxLength": 140
            }
          ],
          "default": null
        }
      ]
    }
  },
  {
    "path": "types/KeyValuePair.avsc",
    "schema": {
      "type": "record",
      "name": "KeyValuePair",
      "namespace": "za.rp.v1",
      "doc": "One entry of supplementaryData: a key-value pair of additional data.",
      "fields": [
        {
          "name": "key",
          "type": {
            "type": "string",
            "minLength": 1,
            "maxLength": 35
          }
        },
        {
          "name": "value",
          "type": {
            "type": "string",
            "maxLength": 350
          }
        }
      ]
    }
  },
  {
    "path": "types/MandateInformation.avsc",
    "schema": {
      "type": "record",
      "name": "MandateInformation",
      "namespace": "za.rp.v1",
      "doc": "The direct debit mandate signed between creditor and debtor. The spec marks this model as work in progress (no amendment properties yet); it is not relevant to ZA_EFT. Members beyond mandateIdentification are chosen from ISO 20022 MandateRelatedInformation and optional, so the model can grow without breaking readers.",
      "fields": [
        {
          "name": "mandateIdentification",
          "type": {
            "type": "string",
            "minLength": 1,
            "maxLength": 35
          }
        },
        {
          "name": "dateOfSignature",
          "type": [
            "null",
            {
              "type": "int",
              "logicalType": "date"
            }
          ],
          "default": null
        },
        {
          "name": "frequency",
          "doc": "ISO 20022 Frequency6Code. Open set.",
          "type": [
            "null",
            {
              "type": "string",
              "minLength": 4,
              "maxLength": 4,
              "examples": [
                "MNTH",
                "WEEK",
                "YEAR",
                "ADHO"
              ]
            }
          ],
          "default": null
        },
        {
          "name": "finalCollectionDate",
          "type": [
            "null",
            {
              "type": "int",
              "logicalType": "date"
            }
          ],
          "default": null
        }
      ]
    }
  },
  {
    "path": "types/MessageIdentifiers.avsc",
    "schema": {
      "type": "record",
      "name": "MessageIdentifiers",
      "namespace": "za.rp.v1",
      "doc": "Identifies one message, point to point. A resent message keeps its messageIdentification; the engine uses it as the idempotency key.",
      "fields": [
        {
          "name": "messageIdentification",
          "type": {
            "type": "string",
            "minLength": 1,
            "maxLength": 35
          }
        },
        {
          "name": "creationDateTime",
          "doc": "RFC 3339 date-time with an offset.",
          "type": {
            "type": "string",
            "format": "date-time"
          }
        }
      ]
    }
  },
  {
    "path": "types/OriginalTransactionData.avsc",
    "schema": {
      "type": "record",
      "name": "OriginalTransactionData",
      "namespace": "za.rp.v1",
      "doc": "Key elements of the original transaction a PaymentStatusReport refers to. Every member is optional.",
      "fields": [
        {
          "name": "amounts",
          "type": [
            "null",
            "za.rp.v1.TransactionAmounts"
          ],
          "default": null
        },
        {
          "name": "creditor",
          "type": [
            "null",
            "za.rp.v1.Party"
          ],
          "default": null
        },
        {
          "name": "creditorAccount",
          "type": [
            "null",
            "za.rp.v1.PaymentAccount"
          ],
          "default": null
        },
        {
          "name": "creditorAgent",
          "type": [
            "null",
            "za.rp.v1.InstitutionIdentification"
          ],
          "default": null
        },
        {
          "name": "debtor",
          "type": [
            "null",
            "za.rp.v1.Party"
          ],
          "default": null
        },
        {
          "name": "debtorAccount",
          "type": [
            "null",
            "za.rp.v1.PaymentAccount"
          ],
          "default": null
        },
        {
          "name": "debtorAgent",
          "type": [
            "null",
            "za.rp.v1.InstitutionIdentification"
          ],
          "default": null
        },
        {
          "name": "paymentMethod",
          "type": [
            "null",
            "za.rp.v1.PaymentMethod"
          ],
          "default": null
        },
        {
          "name": "paymentTypeInformation",
          "type": [
            "null",
            "za.rp.v1.PaymentTypeInformation"
          ],
          "default": null
        },
        {
          "name": "remittanceInformation",
          "type": [
            "null",
            "za.rp.v1.RemittanceInformation"
          ],
          "default": null
        },
        {
          "name": "settlementDate",
          "type": [
            "null",
            {
              "type": "int",
              "logicalType": "date"
            }
          ],
          "default": null
        },
        {
          "name": "supplementaryData",
          "type": [
            "null",
            {
              "type": "array",
              "maxItems": 20,
              "items": "za.rp.v1.KeyValuePair"
            }
          ],
          "default": null
        }
      ]
    }
  },
  {
    "path": "types/Party.avsc",
    "schema": {
      "type": "record",
      "name": "Party",
      "namespace": "za.rp.v1",
      "doc": "A basic party, expanded for a person or an organisation (creditor or debtor). name is not shown by the spec's Party table; it is ISO 20022's Nm and is added as optional.",
      "fields": [
        {
          "name": "name",
          "type": [
            "null",
            {
              "type": "string",
              "minLength": 1,
              "maxLength": 140
            }
          ],
          "default": null
        },
        {
          "name": "address",
          "type": [
            "null",
            "za.rp.v1.Address"
          ],
          "default": null
        },
        {
          "name": "contactDetails",
          "type": [
            "null",
            "za.rp.v1.ContactDetails"
          ],
          "default": null
        },
        {
          "name": "countryOfResidence",
          "doc": "ISO 3166-1 alpha-2 country code.",
          "type": [
            "null",
            {
              "type": "string",
              "pattern": "^[A-Z]{2}$"
            }
          ],
          "default": null
        },
        {
          "name": "identification",
          "type": [
            "null",
            "za.rp.v1.PartyIdentification"
          ],
          "default": null
        }
      ]
    }
  },
  {
    "path": "types/PartyIdentification.avsc",
    "schema": {
      "type": "record",
      "name": "PartyIdentification",
      "namespace": "za.rp.v1",
      "doc": "Identification of a person or an organisation.",
      "fields": [
        {
          "name": "schema",
          "doc": "PERSON or ORGANISATION.",
          "type": "za.rp.v1.PartyKind"
        },
        {
          "name": "identifiers",
          "type": [
            "null",
            {
              "type": "array",
              "minItems": 1,
              "maxItems": 10,
              "items": "za.rp.v1.GenericIdentification"
            }
          ],
          "default": null
        }
      ]
    }
  },
  {
    "path": "types/PartyKind.avsc",
    "schema": {
      "type": "enum",
      "name": "PartyKind",
      "namespace": "za.rp.v1",
      "doc": "Whether a party is a person or an organisation (the spec's sample shows PERSON). UNKNOWN is the reader-side fallback for a symbol added later and is never valid in JSON.",
      "symbols": [
        "PERSON",
        "ORGANISATION",
        "UNKNOWN"
      ],
      "default": "UNKNOWN"
    }
  },
  {
    "path": "types/PaymentAccount.avsc",
    "schema": {
      "type": "record",
      "name": "PaymentAccount",
      "namespace": "za.rp.v1",
      "doc": "The creditor's or debtor's account in a DirectDebit. At least one of identification and proxy is required.",
      "atLeastOneOf": [
        "identification",
        "proxy"
      ],
      "fields": [
        {
          "name": "identification",
          "type": [
            "null",
            "za.rp.v1.AccountIdentification"
          ],
          "default": null
        },
        {
          "name": "proxy",
          "type": [
            "null",
            "za.rp.v1.ProxyAccountIdentification"
          ],
          "default": null
        },
        {
          "name": "name",
          "doc": "Name of the account as the account holder knows it.",
          "type": [
            "null",
            {
              "type": "string",
              "minLength": 1,
              "maxLength": 70
            }
          ],
          "default": null
        },
        {
          "name": "type",
          "doc": "Account type, for example CODE CACC (current) or SVGS (savings).",
          "type": [
            "null",
            "za.rp.v1.Code"
          ],
          "default": null
        },
        {
          "name": "currency",
          "doc": "ISO 4217 currency of the account.",
          "type": [
            "null",
            {
              "type": "string",
              "pattern": "^[A-Z]{3}$"
            }
          ],
          "default": null
        }
      ]
    }
  },
  {
    "path": "types/PaymentMethod.avsc",
    "schema": {
      "type": "enum",
      "name": "PaymentMethod",
      "namespace": "za.rp.v1",
      "doc": "The kind of the original transaction. UNKNOWN is the reader-side fallback for a symbol added later and is never valid in JSON.",
      "symbols": [
        "CreditTransfer",
        "DirectDebit",
        "UNKNOWN"
      ],
      "default": "UNKNOWN"
    }
  },
  {
    "path": "types/PaymentRecord.avsc",
    "schema": {
      "type": "record",
      "name": "PaymentRecord",
      "namespace": "za.rp.v1",
      "doc": "An EFT data record (spec 2.3, eftDataRecord; EventEsmPayload in 2.1). The spec does not show which members are required: schema, recordIdentifier, actionDate and amount are, the rest are optional. Lengths follow the EFT record layout.",
      "fields": [
        {
          "name": "schema",
          "type": {
            "type": "string",
            "const": "PaymentRecord"
          }
        },
        {
          "name": "recordIdentifier",
          "doc": "Kind of EFT record. Open set.",
          "type": {
            "type": "string",
            "minLength": 1,
            "maxLength": 35,
            "examples": [
              "CREDIT",
              "DEBIT",
              "UNPAID_CREDIT",
              "CREDIT_RECALL"
            ]
          }
        },
        {
          "name": "actionDate",
          "type": {
            "type": "int",
            "logicalType": "date"
          }
        },
        {
          "name": "amount",
          "doc": "The amount in rand (a JSON number, at most 2 decimal places).",
          "type": {
            "type": "bytes",
            "logicalType": "decimal",
            "precision": 18,
            "scale": 5,
            "minimum": 0,
            "maxDecimalPlaces": 2
          }
        },
        {
          "name": "sequenceNumber",
          "doc": "The record's sequence number in its EFT file.",
          "type": [
            "null",
            {
              "type": "long",
              "minimum": 0
            }
          ],
          "default": null
        },
        {
          "name": "homingAccount",
          "type": [
            "null",
            {
              "type": "string",
              "pattern": "^[0-9]{1,11}$"
            }
          ],
          "default": null
        },
        {
          "name": "homingAccountName",
          "type": [
            "null",
            {
              "type": "string",
              "minLength": 1,
              "maxLength": 30
            }
          ],
          "default": null
        },
        {
          "name": "homingBranch",
          "type": [
            "null",
            {
              "type": "string",
              "pattern": "^[0-9]{6}$"
            }
          ],
          "default": null
        },
        {
          "name": "homingInstitution",
          "type": [
            "null",
            {
              "type": "string",
              "minLength": 1,
              "maxLength": 35
            }
          ],
          "default": null
        },
        {
          "name": "nonStandardHomingAccount",
          "type": [
            "null",
            {
              "type": "string",
              "minLength": 1,
              "maxLength": 20
            }
          ],
          "default": null
        },
        {
          "name": "userAccount",
          "type": [
            "null",
            {
              "type": "string",
              "pattern": "^[0-9]{1,11}$"
            }
          ],
          "default": null
        },
        {
          "name": "userBranch",
          "type": [
            "null",
            {
              "type": "string",
              "pattern": "^[0-9]{6}$"
            }
          ],
          "default": null
        },
        {
          "name": "userCode",
          "type": [
            "null",
            {
              "type": "string",
              "minLength": 1,
              "maxLength": 4
            }
          ],
          "default": null
        },
        {
          "name": "userReference",
          "type": [
            "null",
            {
              "type": "string",
              "minLength": 1,
              "maxLength": 30
            }
          ],
          "default": null
        },
        {
          "name": "accountType",
          "doc": "Open set.",
          "type": [
            "null",
            {
              "type": "string",
              "minLength": 1,
              "maxLength": 35,
              "examples": [
                "OTHER",
                "CURRENT",
                "SAVINGS",
                "TRANSMISSION"
              ]
            }
          ],
          "default": null
        },
        {
          "name": "entryClass",
          "doc": "Open set.",
          "type": [
            "null",
            {
              "type": "string",
              "minLength": 1,
              "maxLength": 35,
              "examples": [
                "CONTRAS"
              ]
            }
          ],
          "default": null
        },
        {
          "name": "filler1",
          "type": [
            "null",
            {
              "type": "string",
              "maxLength": 35
            }
          ],
          "default": null
        },
        {
          "name": "filler2",
          "type": [
            "null",
            {
              "type": "string",
              "maxLength": 35
            }
          ],
          "default": null
        },
        {
          "name": "filler3",
          "type": [
            "null",
            {
              "type": "string",
              "maxLength": 35
            }
          ],
          "default": null
        },
        {
          "name": "filler4",
          "type": [
            "null",
            {
              "type": "string",
              "maxLength": 35
            }
          ],
          "default": null
        },
        {
          "name": "taxCode",
          "doc": "Open set.",
          "type": [
            "null",
            {
              "type": "string",
              "minLength": 1,
              "maxLength": 35
            }
          ],
          "default": null
        }
      ]
    }
  },
  {
    "path": "types/PaymentScheme.avsc",
    "schema": {
      "type": "record",
      "name": "PaymentScheme",
      "namespace": "za.rp.v1",
      "doc": "Designates the scheme and gives scheme-specific information. One type serves the spec's DirectDebitPaymentScheme, PaymentStatusReportPaymentScheme and the CreditTransfer's paymentScheme, which have the same shape.",
      "fields": [
        {
          "name": "schema",
          "doc": "The scheme code.",
          "type": "za.rp.v1.PaymentSchemeCode"
        },
        {
          "name": "schemeData",
          "type": [
            "null",
            "za.rp.v1.PaymentSchemeData"
          ],
          "default": null
        }
      ]
    }
  },
  {
    "path": "types/PaymentSchemeCode.avsc",
    "schema": {
      "type": "enum",
      "name": "PaymentSchemeCode",
      "namespace": "za.rp.v1",
      "doc": "Payment scheme code. ZA_EFT is the South African EFT scheme that on-us debits use; ZA_RTC, ZA_RPP, ZA_AC and ZA_RMS are the other South African schemes and CBPR_PLUS is cross-border. UNKNOWN is the reader-side fallback for a scheme added later and is never valid in JSON.",
      "symbols": [
        "ZA_EFT",
        "ZA_RTC",
        "ZA_RPP",
        "ZA_AC",
        "ZA_RMS",
        "CBPR_PLUS",
        "UNKNOWN"
      ],
      "default": "UNKNOWN"
    }
  },
  {
    "path": "types/PaymentSchemeData.avsc",
    "schema": {
      "type": "record",
      "name": "PaymentSchemeData",
      "namespace": "za.rp.v1",
      "doc": "Scheme-specific information. One record for every scheme, each member optional: which members a scheme needs is a business rule (ZA_EFT debits need userReference and the shortened account numbers). userReference, originatorEchoData and businessReference are shown by the spec (2.4); the shortened account numbers come from the ZA_EFT scheme.",
      "fields": [
        {
          "name": "userReference",
          "doc": "EFT user reference; its first 10 characters are the bank's clearing user code.",
          "type": [
            "null",
            {
              "type": "string",
              "minLength": 1,
              "maxLength": 30
            }
          ],
          "default": null
        },
        {
          "name": "originatorEchoData",
          "type": [
            "null",
            {
              "type": "string",
              "minLength": 1,
              "maxLength": 140
            }
          ],
          "default": null
        },
        {
          "name": "businessReference",
          "type": [
            "null",
            {
              "type": "string",
              "minLength": 1,
              "maxLength": 35
            }
          ],
          "default": null
        },
        {
          "name": "shortenedCreditorAccountNumber",
          "doc": "ZA_EFT: the creditor's account number in the 11-character EFT field.",
          "type": [
            "null",
            {
              "type": "string",
              "pattern": "^[0-9]{11}$"
            }
          ],
          "default": null
        },
        {
          "name": "shortenedDebtorAccountNumber",
          "doc": "ZA_EFT: the debtor's account number in the 11-character EFT field.",
          "type": [
            "null",
            {
              "type": "string",
              "pattern": "^[0-9]{11}$"
            }
          ],
          "default": null
        }
      ]
    }
  },
  {
    "path": "types/PaymentStatusCode.avsc",
    "schema": {
      "type": "enum",
      "name": "PaymentStatusCode",
      "namespace": "za.rp.v1",
      "doc": "ISO 20022 transaction status: ACTC technically accepted, ACCP accepted (customer profile), ACSP settlement in process, ACSC settlement completed, ACCC credited, PDNG pending, RJCT rejected. The engine answers an outbound DirectDebit with ACCP or RJCT; the actioning bank answers an inbound DirectDebit with ACSC (debited) or RJCT (unpaid). UNKNOWN is the reader-side fallback for a symbol added later and is never valid in JSON.",
      "symbols": [
        "ACTC",
        "ACCP",
        "ACSP",
        "ACSC",
        "ACCC",
        "PDNG",
        "RJCT",
        "UNKNOWN"
      ],
      "default": "UNKNOWN"
    }
  },
  {
    "path": "types/PaymentTypeInformation.avsc",
    "schema": {
      "type": "record",
      "name": "PaymentTypeInformation",
      "namespace": "za.rp.v1",
      "doc": "Further specifies the type of payment. The spec shows localInstrument (2.4); serviceLevel and categoryPurpose are ISO 20022 PaymentTypeInformation members added as optional.",
      "fields": [
        {
          "name": "localInstrument",
          "type": [
            "null",
            "za.rp.v1.Code"
          ],
          "default": null
        },
        {
          "name": "serviceLevel",
          "type": [
            "null",
            "za.rp.v1.Code"
          ],
          "default": null
        },
        {
          "name": "categoryPurpose",
          "type": [
            "null",
            "za.rp.v1.Code"
          ],
          "default": null
        }
      ]
    }
  },
  {
    "path": "types/ProxyAccountIdentification.avsc",
    "schema": {
      "type": "record",
      "name": "ProxyAccountIdentification",
      "namespace": "za.rp.v1",
      "doc": "An alias that resolves to an account (mobile number, e-mail address, ...), ISO 20022 ProxyAccountIdentification1.",
      "fields": [
        {
          "name": "type",
          "doc": "Kind of proxy, for example CODE TELE or EMAL.",
          "type": [
            "null",
            "za.rp.v1.Code"
          ],
          "default": null
        },
        {
          "name": "identification",
          "type": {
            "type": "string",
            "minLength": 1,
            "maxLength": 2048
          }
        }
      ]
    }
  },
  {
    "path": "types/ReconciliationCode.avsc",
    "schema": {
      "type": "enum",
      "name": "ReconciliationCode",
      "namespace": "za.rp.v1",
      "doc": "Which row of the spec's error table (section 7) makes a transaction a reconciliation item; the row numbers and texts are in @rp/contracts (reconciliation.ts). UNKNOWN is the reader-side fallback for a symbol added later and is never valid in JSON.",
      "symbols": [
        "OUTBOUND_DEBIT_NO_RESPONSE",
        "OUTBOUND_DEBIT_NEGATIVE_ACKNOWLEDGEMENT",
        "UNRECOVERABLE_ERROR",
        "STATUS_REPORT_NOT_SENT",
        "STATUS_REPORT_NOT_ACKNOWLEDGED",
        "ACCOUNT_VALIDATION_REJECTED",
        "INBOUND_DEBIT_NO_RESPONSE",
        "INBOUND_DEBIT_NEGATIVE_ACKNOWLEDGEMENT",
        "INBOUND_STATUS_REPORT_MISSING",
        "INBOUND_STATUS_REPORT_NOT_ACKNOWLEDGED",
        "UNKNOWN"
      ],
      "default": "UNKNOWN"
    }
  },
  {
    "path": "types/ReconciliationWindow.avsc",
    "schema": {
      "type": "record",
      "name": "ReconciliationWindow",
      "namespace": "za.rp.v1",
      "doc": "The reconciliation window whose close left the transaction unresolved.",
      "fields": [
        {
          "name": "businessDate",
          "doc": "Business day of the window (Africa/Johannesburg).",
          "type": {
            "type": "int",
            "logicalType": "date"
          }
        },
        {
          "name": "opensAt",
          "type": [
            "null",
            {
              "type": "string",
              "format": "date-time"
            }
          ],
          "default": null
        },
        {
          "name": "closesAt",
          "type": {
            "type": "string",
            "format": "date-time"
          }
        }
      ]
    }
  },
  {
    "path": "types/ReferredDocument.avsc",
    "schema": {
      "type": "record",
      "name": "ReferredDocument",
      "namespace": "za.rp.v1",
      "doc": "A document the payment settles (an invoice, a credit note).",
      "fields": [
        {
          "name": "type",
          "type": [
            "null",
            "za.rp.v1.DocumentType"
          ],
          "default": null
        },
        {
          "name": "documentIdentifier",
          "type": [
            "null",
            {
              "type": "string",
              "minLength": 1,
              "maxLength": 35
            }
          ],
          "default": null
        }
      ]
    }
  },
  {
    "path": "types/ReferredDocumentAmount.avsc",
    "schema": {
      "type": "record",
      "name": "ReferredDocumentAmount",
      "namespace": "za.rp.v1",
      "doc": "Amounts of the referred documents.",
      "fields": [
        {
          "name": "duePayableAmount",
          "type": [
            "null",
            "za.rp.v1.Amount"
          ],
          "default": null
        },
        {
          "name": "remittedAmount",
          "type": [
            "null",
            "za.rp.v1.Amount"
          ],
          "default": null
        }
      ]
    }
  },
  {
    "path": "types/RemittanceInformation.avsc",
    "schema": {
      "type": "record",
      "name": "RemittanceInformation",
      "namespace": "za.rp.v1",
      "doc": "Information that lets the creditor match the payment with what it settles: free text, structured references, or both.",
      "fields": [
        {
          "name": "unstructured",
          "type": [
            "null",
            {
              "type": "array",
              "maxItems": 10,
              "items": {
                "type": "string",
                "minLength": 1,
                "maxLength": 140
              }
            }
          ],
          "default": null
        },
        {
          "name": "structured",
          "type": [
            "null",
            {
              "type": "array",
              "maxItems": 10,
              "items": "za.rp.v1.StructuredRemittanceInformation"
            }
          ],
          "default": null
        }
      ]
    }
  },
  {
    "path": "types/SequenceType.avsc",
    "schema": {
      "type": "enum",
      "name": "SequenceType",
      "namespace": "za.rp.v1",
      "doc": "Direct debit sequence (SequenceTypeCode): FRST first, RCUR recurring, FNAL final, OOFF one-off, RPRE represented. UNKNOWN is the reader-side fallback for a symbol added later and is never valid in JSON.",
      "symbols": [
        "FRST",
        "RCUR",
        "FNAL",
        "OOFF",
        "RPRE",
        "UNKNOWN"
      ],
      "default": "UNKNOWN"
    }
  },
  {
    "path": "types/StateChangeCause.avsc",
    "schema": {
      "type": "record",
      "name": "StateChangeCause",
      "namespace": "za.rp.v1",
      "doc": "The message that caused a state change: a bank's or scheme's message, a delivery outcome, or a timer (window opened or closed).",
      "fields": [
        {
          "name": "messageType",
          "doc": "What caused the change: a message name (DirectDebit, PaymentStatusReport, CreditTransfer, DeliveryOutcome) or a timer (DebitWindowOpened, ReconciliationWindowClosed). Open set.",
          "type": {
            "type": "string",
            "minLength": 1,
            "maxLength": 70,
            "examples": [
              "DirectDebit",
              "PaymentStatusReport",
              "DeliveryOutcome",
              "ReconciliationWindowClosed"
            ]
          }
        },
        {
          "name": "messageIdentification",
          "doc": "messageIdentification of the causing message, when it has one.",
          "type": [
            "null",
            {
              "type": "string",
              "minLength": 1,
              "maxLength": 35
            }
          ],
          "default": null
        },
        {
          "name": "topic",
          "doc": "Kafka topic the causing record was read from, when it was.",
          "type": [
            "null",
            {
              "type": "string",
              "minLength": 1,
              "maxLength": 249
            }
          ],
          "default": null
        },
        {
          "name": "partition",
          "type": [
            "null",
            {
              "type": "int",
              "minimum": 0
            }
          ],
          "default": null
        },
        {
          "name": "offset",
          "doc": "Kafka offset as a decimal string (64-bit).",
          "type": [
            "null",
            {
              "type": "string",
              "pattern": "^[0-9]{1,19}$"
            }
          ],
          "default": null
        }
      ]
    }
  },
  {
    "path": "types/StateHistoryEntry.avsc",
    "schema": {
      "type": "record",
      "name": "StateHistoryEntry",
      "namespace": "za.rp.v1",
      "doc": "One state a transaction reached, in a TransactionStatus's history.",
      "fields": [
        {
          "name": "seq",
          "doc": "The transaction's state sequence number: 1 for its first state, one more for each change (stageVersion in event postings).",
          "type": {
            "type": "long",
            "minimum": 1
          }
        },
        {
          "name": "state",
          "doc": "The state the transaction moved to.",
          "type": "za.rp.v1.TransactionState"
        },
        {
          "name": "eventType",
          "doc": "The event type of the change (the TRANSACTION_STATE posting's type).",
          "type": "za.rp.v1.TransactionEventType"
        },
        {
          "name": "at",
          "doc": "When the change happened (RFC 3339).",
          "type": {
            "type": "string",
            "format": "date-time"
          }
        }
      ]
    }
  },
  {
    "path": "types/Status.avsc",
    "schema": {
      "type": "record",
      "name": "Status",
      "namespace": "za.rp.v1",
      "doc": "The status a PaymentStatusReport carries, with its reasons (a rejection carries at least one in practice).",
      "fields": [
        {
          "name": "status",
          "type": "za.rp.v1.PaymentStatusCode"
        },
        {
          "name": "reasonInfo",
          "type": [
            "null",
            {
              "type": "array",
              "minItems": 1,
              "maxItems": 10,
              "items": "za.rp.v1.StatusReasonInformation"
            }
          ],
          "default": null
        }
      ]
    }
  },
  {
    "path": "types/StatusReason.avsc",
    "schema": {
      "type": "record",
      "name": "StatusReason",
      "namespace": "za.rp.v1",
      "doc": "Why a transaction has its status.",
      "fields": [
        {
          "name": "code",
          "doc": "ISO 20022 ExternalStatusReason1Code. The engine uses AC01 incorrect account number, AC03 invalid creditor account, AC04 closed account, AC06 blocked account, AG01 transaction forbidden, AG02 invalid bank operation code, AM02 amount above maximum, AM03 currency not allowed, AM04 insufficient funds, AM05 duplicate, BE01 inconsistent with end customer, DT01 invalid date, FF01 invalid file format, MD01 no mandate, MS03 not specified, NARR narrative; a bank may send any code of the list.",
          "type": {
            "type": "string",
            "pattern": "^[A-Z0-9]{4}$",
            "examples": [
              "AC01",
              "AM04",
              "MS03"
            ]
          }
        }
      ]
    }
  },
  {
    "path": "types/StatusReasonInformation.avsc",
    "schema": {
      "type": "record",
      "name": "StatusReasonInformation",
      "namespace": "za.rp.v1",
      "doc": "A reason for the status with optional free text.",
      "fields": [
        {
          "name": "reason",
          "type": "za.rp.v1.StatusReason"
        },
        {
          "name": "additionalInfo",
          "doc": "Further details (ISO 20022 AddtlInf: up to 105 characters each).",
          "type": [
            "null",
            {
              "type": "array",
              "minItems": 1,
              "maxItems": 10,
              "items": {
                "type": "string",
                "minLength": 1,
                "maxLength": 105
              }
            }
          ],
          "default": null
        }
      ]
    }
  },
  {
    "path": "types/StructuredRemittanceInformation.avsc",
    "schema": {
      "type": "record",
      "name": "StructuredRemittanceInformation",
      "namespace": "za.rp.v1",
      "doc": "Structured remittance information (spec 2.4).",
      "fields": [
        {
          "name": "referredDocuments",
          "type": [
            "null",
            {
              "type": "array",
              "maxItems": 10,
              "items": "za.rp.v1.ReferredDocument"
            }
          ],
          "default": null
        },
        {
          "name": "referredDocumentAmount",
          "type": [
            "null",
            "za.rp.v1.ReferredDocumentAmount"
          ],
          "default": null
        },
        {
          "name": "creditorReference",
          "type": [
            "null",
            "za.rp.v1.CreditorReference"
          ],
          "default": null
        },
        {
          "name": "additionalRemittanceInformation",
          "type": [
            "null",
            {
              "type": "array",
              "maxItems": 3,
              "items": {
                "type": "string",
                "minLength": 1,
                "maxLength": 140
              }
            }
          ],
          "default": null
        }
      ]
    }
  },
  {
    "path": "types/TaxInformation.avsc",
    "schema": {
      "type": "record",
      "name": "TaxInformation",
      "namespace": "za.rp.v1",
      "doc": "Tax details of a credit transfer (spec 2.4 shows totalAmount).",
      "fields": [
        {
          "name": "totalAmount",
          "type": [
            "null",
            "za.rp.v1.Amount"
          ],
          "default": null
        }
      ]
    }
  },
  {
    "path": "types/TranInfo.avsc",
    "schema": {
      "type": "record",
      "name": "TranInfo",
      "namespace": "za.rp.v1",
      "doc": "Transaction information of a TRANSACTION_STATE posting (spec 2.2, tranInfo).",
      "fields": [
        {
          "name": "tranUetr",
          "doc": "The transaction's UETR.",
          "type": {
            "type": "string",
            "logicalType": "uuid"
          }
        },
        {
          "name": "direction",
          "type": "za.rp.v1.Direction"
        },
        {
          "name": "paymentScheme",
          "type": "za.rp.v1.PaymentSchemeCode"
        },
        {
          "name": "service",
          "doc": "Service code; the spec does not list them. The engine sends CREDIT_TRANSFER or DIRECT_DEBIT. Open set.",
          "type": {
            "type": "string",
            "minLength": 1,
            "maxLength": 35,
            "examples": [
              "CREDIT_TRANSFER",
              "DIRECT_DEBIT"
            ]
          }
        }
      ]
    }
  },
  {
    "path": "types/TransactionAmounts.avsc",
    "schema": {
      "type": "record",
      "name": "TransactionAmounts",
      "namespace": "za.rp.v1",
      "doc": "The amounts of a transaction. bankSettlementAmount is required (ISO 20022 makes the interbank settlement amount mandatory); instructedAmount is optional.",
      "fields": [
        {
          "name": "bankSettlementAmount",
          "doc": "Amount moved between the agents.",
          "type": "za.rp.v1.Amount"
        },
        {
          "name": "instructedAmount",
          "doc": "Amount as instructed by the initiating party, before charges.",
          "type": [
            "null",
            "za.rp.v1.Amount"
          ],
          "default": null
        }
      ]
    }
  },
  {
    "path": "types/TransactionEventType.avsc",
    "schema": {
      "type": "enum",
      "name": "TransactionEventType",
      "namespace": "za.rp.v1",
      "doc": "TRANSACTION_STATE event type: the processing stage a transaction reached. The catalogue in @rp/contracts (event-types.ts) gives each one's trigger, emitting service and direction. UNKNOWN is the reader-side fallback for a type added later and is never valid in JSON.",
      "symbols": [
        "DEBIT_REQUEST_RECEIVED",
        "DEBIT_REQUEST_ACCEPTED",
        "DEBIT_REQUEST_REJECTED",
        "DEBIT_STATUS_DELIVERY_PENDING",
        "DEBIT_STATUS_DELIVERED",
        "DEBIT_STATUS_DELIVERY_FAILURE",
        "DEBIT_QUEUED",
        "DEBIT_DELIVERY_PENDING",
        "DEBIT_DELIVERED",
        "DEBIT_DELIVERY_FAILURE",
        "DEBIT_RESPONSE_ACCEPTED",
        "DEBIT_COMPLETED",
        "DEBIT_UNPAID",
        "CREDIT_AUTH_RECEIVED",
        "CREDIT_AUTH_ACCEPTED",
        "CREDIT_AUTH_REJECTED",
        "CREDIT_AUTH_DELIVERY_PENDING",
        "CREDIT_AUTH_DELIVERED",
        "CREDIT_AUTH_DELIVERY_FAILURE",
        "CREDIT_AUTH_RESPONSE_ACCEPTED",
        "RECONCILIATION_REQUIRED",
        "UNKNOWN"
      ],
      "default": "UNKNOWN"
    }
  },
  {
    "path": "types/TransactionIdentifiers.avsc",
    "schema": {
      "type": "record",
      "name": "TransactionIdentifiers",
      "namespace": "za.rp.v1",
      "doc": "Identifiers of the transaction, or of one message that is part of it. The uetr is the transaction's key everywhere in the engine (Kafka key, MongoDB _id).",
      "fields": [
        {
          "name": "endToEndIdentification",
          "type": {
            "type": "string",
            "minLength": 1,
            "maxLength": 35
          }
        },
        {
          "name": "instructionIdentification",
          "type": [
            "null",
            {
              "type": "string",
              "minLength": 1,
              "maxLength": 35
            }
          ],
          "default": null
        },
        {
          "name": "transactionIdentification",
          "type": [
            "null",
            {
              "type": "string",
              "minLength": 1,
              "maxLength": 35
            }
          ],
          "default": null
        },
        {
          "name": "uetr",
          "doc": "Unique end-to-end transaction reference (UUID, RFC 9562).",
          "type": {
            "type": "string",
            "logicalType": "uuid"
          }
        }
      ]
    }
  },
  {
    "path": "types/TransactionState.avsc",
    "schema": {
      "type": "enum",
      "name": "TransactionState",
      "namespace": "za.rp.v1",
      "doc": "Where a transaction is in the engine. The allowed transitions between states, and the event type each emits, are the transition table in @rp/contracts (event-types.ts). UNKNOWN is the reader-side fallback for a state added later and is never valid in JSON.",
      "symbols": [
        "DEBIT_RECEIVED",
        "DEBIT_ACCEPTED",
        "DEBIT_REJECTED",
        "DEBIT_ACCEPTANCE_DELIVERY_PENDING",
        "DEBIT_ACCEPTANCE_DELIVERED",
        "DEBIT_REJECTION_DELIVERY_PENDING",
        "DEBIT_REJECTION_DELIVERED",
        "DEBIT_STATUS_DELIVERY_FAILED",
        "DEBIT_QUEUED",
        "DEBIT_DELIVERY_PENDING",
        "DEBIT_DELIVERED",
        "DEBIT_DELIVERY_FAILED",
        "DEBIT_RESPONSE_ACCEPTED",
        "DEBIT_COMPLETED",
        "DEBIT_UNPAID",
        "CREDIT_AUTH_RECEIVED",
        "CREDIT_AUTH_ACCEPTED",
        "CREDIT_AUTH_REJECTED",
        "CREDIT_AUTH_DELIVERY_PENDING",
        "CREDIT_AUTH_DELIVERED",
        "CREDIT_AUTH_DELIVERY_FAILED",
        "CREDIT_AUTH_RESPONSE_ACCEPTED",
        "RECONCILIATION_REQUIRED",
        "UNKNOWN"
      ],
      "default": "UNKNOWN"
    }
  },
  {
    "path": "types/TransactionType.avsc",
    "schema": {
      "type": "enum",
      "name": "TransactionType",
      "namespace": "za.rp.v1",
      "doc": "What kind of transaction it is, by the message that started it: DIRECT_DEBIT (a DirectDebit, on-us or inbound off-us) or CREDIT_TRANSFER (a CreditTransfer authorisation), as tranInfo.service names it in event postings. UNKNOWN is the reader-side fallback for a type added later and is never valid in JSON.",
      "symbols": [
        "DIRECT_DEBIT",
        "CREDIT_TRANSFER",
        "UNKNOWN"
      ],
      "default": "UNKNOWN"
    }
  },
  {
    "path": "http/Acknowledgement.avsc",
    "schema": {
      "type": "record",
      "name": "Acknowledgement",
      "namespace": "za.rp.v1",
      "doc": "Body of the engine's HTTP 202: the message is durably accepted (written to Kafka with acks=all). A resent message with the same messageIdentification and the same content gets the same acknowledgement: a DirectDebit or CreditTransfer always, any other message while the operator's idempotency retention (IDEMPOTENCY_RETENTION, unset by default) keeps its claim.",
      "fields": [
        {
          "name": "messageIdentification",
          "doc": "messageIdentifiers.messageIdentification of the accepted message.",
          "type": {
            "type": "string",
            "minLength": 1,
            "maxLength": 35
          }
        },
        {
          "name": "uetr",
          "doc": "The transaction's UETR.",
          "type": {
            "type": "string",
            "logicalType": "uuid"
          }
        },
        {
          "name": "receivedAt",
          "doc": "When the engine first accepted the message.",
          "type": {
            "type": "string",
            "format": "date-time"
          }
        }
      ]
    }
  },
  {
    "path": "http/FieldError.avsc",
    "schema": {
      "type": "record",
      "name": "FieldError",
      "namespace": "za.rp.v1",
      "doc": "One invalid member of a request body.",
      "fields": [
        {
          "name": "pointer",
          "doc": "JSON Pointer (RFC 6901) to the member, for example /debtorAccount/identification; empty for the whole body.",
          "type": {
            "type": "string",
            "maxLength": 2048
          }
        },
        {
          "name": "detail",
          "doc": "What is wrong with it.",
          "type": {
            "type": "string",
            "minLength": 1,
            "maxLength": 1000
          }
        }
      ]
    }
  },
  {
    "path": "http/ProblemDetails.avsc",
    "schema": {
      "type": "record",
      "name": "ProblemDetails",
      "namespace": "za.rp.v1",
      "doc": "An error response body, RFC 9457 application/problem+json. errors lists every invalid member of a 422.",
      "fields": [
        {
          "name": "type",
          "doc": "URI identifying the problem type (problemTypes in @rp/contracts).",
          "type": {
            "type": "string",
            "minLength": 1,
            "maxLength": 2048,
            "format": "uri-reference"
          }
        },
        {
          "name": "title",
          "doc": "Short summary of the problem type.",
          "type": {
            "type": "string",
            "minLength": 1,
            "maxLength": 200
          }
        },
        {
          "name": "status",
          "doc": "The HTTP status code.",
          "type": {
            "type": "int",
            "minimum": 400,
            "maximum": 599
          }
        },
        {
          "name": "detail",
          "doc": "Explanation specific to this occurrence.",
          "type": [
            "null",
            {
              "type": "string",
              "maxLength": 2000
            }
          ],
          "default": null
        },
        {
          "name": "instance",
          "doc": "URI reference identifying this occurrence.",
          "type": [
            "null",
            {
              "type": "string",
              "maxLength": 2048,
              "format": "uri-reference"
            }
          ],
          "default": null
        },
        {
          "name": "errors",
          "doc": "Every invalid member (422).",
          "type": [
            "null",
            {
              "type": "array",
              "items": "za.rp.v1.FieldError"
            }
          ],
          "default": null
        }
      ]
    }
  },
  {
    "path": "http/TransactionStatus.avsc",
    "schema": {
      "type": "record",
      "name": "TransactionStatus",
      "namespace": "za.rp.v1",
      "doc": "Body of the engine's HTTP 200 to GET /transactions/{uetr}: where a transaction the calling bank is party to stands, from the engine's record of it. Only a party's view: no other party's messages and nothing of how the engine delivers them.",
      "fields": [
        {
          "name": "uetr",
          "doc": "The transaction's UETR.",
          "type": {
            "type": "string",
            "logicalType": "uuid"
          }
        },
        {
          "name": "transactionType",
          "doc": "DIRECT_DEBIT or CREDIT_TRANSFER: the message that started the transaction.",
          "type": "za.rp.v1.TransactionType"
        },
        {
          "name": "state",
          "doc": "The transaction's current state.",
          "type": "za.rp.v1.TransactionState"
        },
        {
          "name": "final",
          "doc": "Whether the state is final: no further change will follow.",
          "type": "boolean"
        },
        {
          "name": "endToEndIdentification",
          "doc": "transactionIdentifiers.endToEndIdentification of the message that started the transaction.",
          "type": {
            "type": "string",
            "minLength": 1,
            "maxLength": 35
          }
        },
        {
          "name": "instructingAgentMemberId",
          "doc": "instructingAgent.memberId of the message that started the transaction, when it names one.",
          "type": [
            "null",
            {
              "type": "string",
              "minLength": 1,
              "maxLength": 35
            }
          ],
          "default": null
        },
        {
          "name": "instructedAgentMemberId",
          "doc": "instructedAgent.memberId of the message that started the transaction, when it names one.",
          "type": [
            "null",
            {
              "type": "string",
              "minLength": 1,
              "maxLength": 35
            }
          ],
          "default": null
        },
        {
          "name": "debtorAgentMemberId",
          "doc": "debtorAgent.memberId of the message that started the transaction, when it names one.",
          "type": [
            "null",
            {
              "type": "string",
              "minLength": 1,
              "maxLength": 35
            }
          ],
          "default": null
        },
        {
          "name": "creditorAgentMemberId",
          "doc": "creditorAgent.memberId of the message that started the transaction, when it names one.",
          "type": [
            "null",
            {
              "type": "string",
              "minLength": 1,
              "maxLength": 35
            }
          ],
          "default": null
        },
        {
          "name": "amount",
          "doc": "amounts.bankSettlementAmount of the message that started the transaction: its exact value (a JSON number never rounded through a binary float; trailing zeros of the fraction are not kept).",
          "type": "za.rp.v1.Amount"
        },
        {
          "name": "createdAt",
          "doc": "When the engine recorded the transaction's first state (RFC 3339).",
          "type": {
            "type": "string",
            "format": "date-time"
          }
        },
        {
          "name": "updatedAt",
          "doc": "When the engine recorded its latest change (RFC 3339).",
          "type": {
            "type": "string",
            "format": "date-time"
          }
        },
        {
          "name": "history",
          "doc": "Every state the transaction reached, in order (ascending seq); the last one is the current state.",
          "type": {
            "type": "array",
            "items": "za.rp.v1.StateHistoryEntry"
          }
        }
      ]
    }
  },
  {
    "path": "CreditTransfer.avsc",
    "schema": {
      "type": "record",
      "name": "CreditTransfer",
      "namespace": "za.rp.v1",
      "doc": "A credit transfer (spec 2.4): the inboundCreditTransferAuthorization the engine receives and the payload of its TRANSACTION_STATE postings. The spec does not show which members are required: schema, messageIdentifiers, paymentScheme, transactionIdentifiers, amounts and the parties, accounts and agents a credit cannot do without (creditor, creditorAccount, creditorAgent, debtor, debtorAgent) are; the rest are optional.",
      "fields": [
        {
          "name": "schema",
          "doc": "Always CreditTransfer.",
          "type": {
            "type": "string",
            "const": "CreditTransfer"
          }
        },
        {
          "name": "messageIdentifiers",
          "type": "za.rp.v1.MessageIdentifiers"
        },
        {
          "name": "paymentScheme",
          "type": "za.rp.v1.PaymentScheme"
        },
        {
          "name": "transactionIdentifiers",
          "type": "za.rp.v1.TransactionIdentifiers"
        },
        {
          "name": "amounts",
          "type": "za.rp.v1.TransactionAmounts"
        },
        {
          "name": "paymentTypeInformation",
          "type": [
            "null",
            "za.rp.v1.PaymentTypeInformation"
          ],
          "default": null
        },
        {
          "name": "creditor",
          "type": "za.rp.v1.Party"
        },
        {
          "name": "debtor",
          "type": "za.rp.v1.Party"
        },
        {
          "name": "creditorAccount",
          "type": "za.rp.v1.Account"
        },
        {
          "name": "debtorAccount",
          "type": [
            "null",
            "za.rp.v1.Account"
          ],
          "default": null
        },
        {
          "name": "creditorAgent",
          "type": "za.rp.v1.Agent"
        },
        {
          "name": "debtorAgent",
          "type": "za.rp.v1.Agent"
        },
        {
          "name": "instructingAgent",
          "type": [
            "null",
            "za.rp.v1.Agent"
          ],
          "default": null
        },
        {
          "name": "instructedAgent",
          "type": [
            "null",
            "za.rp.v1.Agent"
          ],
          "default": null
        },
        {
          "name": "instructionForCreditorAgent",
          "type": [
            "null",
            {
              "type": "array",
              "minItems": 1,
              "maxItems": 10,
              "items": "za.rp.v1.InstructionForCreditorAgent"
            }
          ],
          "default": null
        },
        {
          "name": "intermediaryAgents",
          "doc": "At most 3, as in ISO 20022.",
          "type": [
            "null",
            {
              "type": "array",
              "minItems": 1,
              "maxItems": 3,
              "items": "za.rp.v1.Agent"
            }
          ],
          "default": null
        },
        {
          "name": "previousInstructingAgents",
          "doc": "At most 3, as in ISO 20022.",
          "type": [
            "null",
            {
              "type": "array",
              "minItems": 1,
              "maxItems": 3,
              "items": "za.rp.v1.Agent"
            }
          ],
          "default": null
        },
        {
          "name": "purpose",
          "type": [
            "null",
            "za.rp.v1.Code"
          ],
          "default": null
        },
        {
          "name": "remittanceInformation",
          "type": [
            "null",
            "za.rp.v1.RemittanceInformation"
          ],
          "default": null
        },
        {
          "name": "tax",
          "type": [
            "null",
            "za.rp.v1.TaxInformation"
          ],
          "default": null
        }
      ]
    }
  },
  {
    "path": "DeliveryOutcome.avsc",
    "schema": {
      "type": "record",
      "name": "DeliveryOutcome",
      "namespace": "za.rp.v1",
      "doc": "The outcome of one attempt to deliver a message to a bank (topic rp.delivery.outcome.v1, keyed by uetr). At least one of httpStatus and error is present: the status the bank answered with, or the transport error that kept it from answering.",
      "atLeastOneOf": [
        "httpStatus",
        "error"
      ],
      "fields": [
        {
          "name": "uetr",
          "type": {
            "type": "string",
            "logicalType": "uuid"
          }
        },
        {
          "name": "messageIdentification",
          "doc": "messageIdentification of the delivered message (for eventPosting: the posting's messageInfo.messageIdentification).",
          "type": {
            "type": "string",
            "minLength": 1,
            "maxLength": 35
          }
        },
        {
          "name": "targetBank",
          "doc": "Member id of the bank called.",
          "type": {
            "type": "string",
            "minLength": 1,
            "maxLength": 35
          }
        },
        {
          "name": "operation",
          "type": "za.rp.v1.DeliveryOperation"
        },
        {
          "name": "attempt",
          "doc": "1 for the first attempt.",
          "type": {
            "type": "int",
            "minimum": 1
          }
        },
        {
          "name": "attemptedAt",
          "type": {
            "type": "string",
            "format": "date-time"
          }
        },
        {
          "name": "httpStatus",
          "doc": "The bank's HTTP status, when it answered.",
          "type": [
            "null",
            {
              "type": "int",
              "minimum": 100,
              "maximum": 599
            }
          ],
          "default": null
        },
        {
          "name": "error",
          "doc": "Why there was no HTTP status.",
          "type": [
            "null",
            "za.rp.v1.DeliveryError"
          ],
          "default": null
        },
        {
          "name": "latencyMs",
          "doc": "From sending the request to the end of the response or the error, in milliseconds.",
          "type": {
            "type": "int",
            "minimum": 0
          }
        },
        {
          "name": "result",
          "type": "za.rp.v1.DeliveryResult"
        },
        {
          "name": "final",
          "doc": "True when no further attempt follows: acknowledged, a final failure, or retries stopped at the reconciliation window's close.",
          "type": "boolean"
        },
        {
          "name": "nextAttemptAt",
          "doc": "When the next attempt is due, when one follows.",
          "type": [
            "null",
            {
              "type": "string",
              "format": "date-time"
            }
          ],
          "default": null
        }
      ]
    }
  },
  {
    "path": "DirectDebit.avsc",
    "schema": {
      "type": "record",
      "name": "DirectDebit",
      "namespace": "za.rp.v1",
      "doc": "A direct debit (spec 2.5), used for outboundDirectDebit (bank to engine) and inboundDirectDebit (engine to bank). The spec lists the nested objects by type only; their property names (messageIdentifiers, supplementaryData, ...) are the domain notes' mapping, documented in avro/README.md.",
      "fields": [
        {
          "name": "messageIdentifiers",
          "doc": "MessageIdentifiers: this message's point-to-point identification and creation date-time.",
          "type": "za.rp.v1.MessageIdentifiers"
        },
        {
          "name": "supplementaryData",
          "doc": "SupplementaryData: key-value pairs with additional data.",
          "type": [
            "null",
            {
              "type": "array",
              "maxItems": 20,
              "items": "za.rp.v1.KeyValuePair"
            }
          ],
          "default": null
        },
        {
          "name": "transactionIdentifiers",
          "doc": "TransactionIdentifiers.",
          "type": "za.rp.v1.TransactionIdentifiers"
        },
        {
          "name": "amounts",
          "doc": "TransactionAmounts.",
          "type": "za.rp.v1.TransactionAmounts"
        },
        {
          "name": "creditor",
          "doc": "Party: the creditor, who collects the money.",
          "type": "za.rp.v1.Party"
        },
        {
          "name": "creditorAccount",
          "doc": "PaymentAccount of the creditor (optional in the spec).",
          "type": [
            "null",
            "za.rp.v1.PaymentAccount"
          ],
          "default": null
        },
        {
          "name": "creditorAgent",
          "doc": "InstitutionIdentification of the creditor's bank.",
          "type": "za.rp.v1.InstitutionIdentification"
        },
        {
          "name": "debtor",
          "doc": "Party: the debtor, whose account is debited.",
          "type": "za.rp.v1.Party"
        },
        {
          "name": "debtorAccount",
          "doc": "PaymentAccount of the debtor.",
          "type": "za.rp.v1.PaymentAccount"
        },
        {
          "name": "debtorAgent",
          "doc": "InstitutionIdentification of the debtor's bank.",
          "type": "za.rp.v1.InstitutionIdentification"
        },
        {
          "name": "instructingAgent",
          "doc": "InstitutionIdentification of the agent that instructs the next party in the chain.",
          "type": [
            "null",
            "za.rp.v1.InstitutionIdentification"
          ],
          "default": null
        },
        {
          "name": "instructedAgent",
          "doc": "InstitutionIdentification of the agent that is instructed.",
          "type": [
            "null",
            "za.rp.v1.InstitutionIdentification"
          ],
          "default": null
        },
        {
          "name": "intermediaryAgents",
          "doc": "Agents between the debtor's agent and the creditor's agent, at most 3; the first is the one next to the debtor's agent.",
          "type": [
            "null",
            {
              "type": "array",
              "minItems": 1,
              "maxItems": 3,
              "items": "za.rp.v1.InstitutionIdentification"
            }
          ],
          "default": null
        },
        {
          "name": "mandateInformation",
          "doc": "MandateInformation (work in progress in the spec; not relevant to ZA_EFT).",
          "type": [
            "null",
            "za.rp.v1.MandateInformation"
          ],
          "default": null
        },
        {
          "name": "paymentScheme",
          "doc": "DirectDebitPaymentScheme: the scheme and its scheme-specific data.",
          "type": "za.rp.v1.PaymentScheme"
        },
        {
          "name": "paymentTypeInformation",
          "doc": "PaymentTypeInformation.",
          "type": [
            "null",
            "za.rp.v1.PaymentTypeInformation"
          ],
          "default": null
        },
        {
          "name": "purpose",
          "doc": "PurposeType: the underlying reason for the payment (ISO 20022 ExternalPurpose1Code).",
          "type": [
            "null",
            "za.rp.v1.Code"
          ],
          "default": null
        },
        {
          "name": "remittanceInformation",
          "doc": "RemittanceInformation.",
          "type": [
            "null",
            "za.rp.v1.RemittanceInformation"
          ],
          "default": null
        },
        {
          "name": "requestedCollectionDate",
          "doc": "Date on which the creditor asks for the money to be collected from the debtor.",
          "type": [
            "null",
            {
              "type": "int",
              "logicalType": "date"
            }
          ],
          "default": null
        },
        {
          "name": "schema",
          "doc": "Always DirectDebit.",
          "type": {
            "type": "string",
            "const": "DirectDebit"
          }
        },
        {
          "name": "sequenceType",
          "doc": "SequenceTypeCode.",
          "type": [
            "null",
            "za.rp.v1.SequenceType"
          ],
          "default": null
        },
        {
          "name": "settlementDate",
          "doc": "Date on which the money ceases to be available to the agent that owes it and becomes available to the agent it is due to.",
          "type": [
            "null",
            {
              "type": "int",
              "logicalType": "date"
            }
          ],
          "default": null
        }
      ]
    }
  },
  {
    "path": "EsmStatePosting.avsc",
    "schema": {
      "type": "record",
      "name": "EsmStatePosting",
      "namespace": "za.rp.v1",
      "doc": "An event posting of class ESM_STATE (spec 2.1, 2.3): sent for ZA_EFT transactions to banks that subscribe to the class.",
      "fields": [
        {
          "name": "apiVersion",
          "doc": "Version of the Regulated Payments Events API the posting conforms to: <major>.<minor>.<patch> (eventsApiVersion in @rp/contracts).",
          "type": {
            "type": "string",
            "pattern": "^[0-9]+\\.[0-9]+\\.[0-9]+$"
          }
        },
        {
          "name": "class",
          "doc": "Always ESM_STATE.",
          "type": {
            "type": "string",
            "const": "ESM_STATE"
          }
        },
        {
          "name": "actionDate",
          "doc": "Date at which the transaction should take effect.",
          "type": {
            "type": "int",
            "logicalType": "date"
          }
        },
        {
          "name": "creationDateTime",
          "doc": "When the event was created, in the sender's local time zone or UTC (RFC 3339 with offset).",
          "type": {
            "type": "string",
            "format": "date-time"
          }
        },
        {
          "name": "eftDataRecord",
          "doc": "The transaction payload (EventEsmPayload).",
          "type": [
            "null",
            "za.rp.v1.PaymentRecord"
          ],
          "default": null
        },
        {
          "name": "identifiers",
          "type": "za.rp.v1.EventEsmIdentifiers"
        },
        {
          "name": "state",
          "type": "za.rp.v1.EventEsmState"
        },
        {
          "name": "transactionInfo",
          "type": "za.rp.v1.EventEsmTransactionInfo"
        }
      ]
    }
  },
  {
    "path": "EventPosting.avsc",
    "schema": [
      "za.rp.v1.TransactionStatePosting",
      "za.rp.v1.EsmStatePosting"
    ]
  },
  {
    "path": "PaymentStatusReport.avsc",
    "schema": {
      "type": "record",
      "name": "PaymentStatusReport",
      "namespace": "za.rp.v1",
      "doc": "A status report (spec 2.6), used for outboundDirectDebitResponse (engine to bank: ACCP or RJCT) and inboundDirectDebitResponse (bank to engine: ACSC or RJCT). Property names of the nested objects follow the domain notes, documented in avro/README.md.",
      "fields": [
        {
          "name": "messageIdentifiers",
          "doc": "MessageIdentifiers of this report.",
          "type": "za.rp.v1.MessageIdentifiers"
        },
        {
          "name": "supplementaryData",
          "doc": "SupplementaryData: key-value pairs.",
          "type": [
            "null",
            {
              "type": "array",
              "maxItems": 20,
              "items": "za.rp.v1.KeyValuePair"
            }
          ],
          "default": null
        },
        {
          "name": "originalMessageIdentifiers",
          "doc": "MessageIdentifiers of the message this report answers.",
          "type": "za.rp.v1.MessageIdentifiers"
        },
        {
          "name": "transactionIdentifiers",
          "doc": "TransactionIdentifiers of the original transaction.",
          "type": "za.rp.v1.TransactionIdentifiers"
        },
        {
          "name": "instructingAgent",
          "type": [
            "null",
            "za.rp.v1.InstitutionIdentification"
          ],
          "default": null
        },
        {
          "name": "instructedAgent",
          "type": [
            "null",
            "za.rp.v1.InstitutionIdentification"
          ],
          "default": null
        },
        {
          "name": "originalTransactionData",
          "doc": "Key elements of the original transaction.",
          "type": [
            "null",
            "za.rp.v1.OriginalTransactionData"
          ],
          "default": null
        },
        {
          "name": "paymentScheme",
          "doc": "PaymentStatusReportPaymentScheme: the scheme and its scheme-specific data.",
          "type": "za.rp.v1.PaymentScheme"
        },
        {
          "name": "status",
          "doc": "The status code (for example RJCT) and its reasons.",
          "type": "za.rp.v1.Status"
        },
        {
          "name": "schema",
          "doc": "Always PaymentStatusReport.",
          "type": {
            "type": "string",
            "const": "PaymentStatusReport"
          }
        }
      ]
    }
  },
  {
    "path": "ReconciliationItem.avsc",
    "schema": {
      "type": "record",
      "name": "ReconciliationItem",
      "namespace": "za.rp.v1",
      "doc": "A transaction left unresolved when the reconciliation window closed (topic rp.reconciliation.v1, keyed by uetr), with the row of the spec's error table (section 7) that applies.",
      "fields": [
        {
          "name": "uetr",
          "type": {
            "type": "string",
            "logicalType": "uuid"
          }
        },
        {
          "name": "row",
          "doc": "Row of the spec's section 7 table, 1 to 10.",
          "type": {
            "type": "int",
            "minimum": 1,
            "maximum": 10
          }
        },
        {
          "name": "code",
          "doc": "The row as a code.",
          "type": "za.rp.v1.ReconciliationCode"
        },
        {
          "name": "text",
          "doc": "The row's condition in words.",
          "type": {
            "type": "string",
            "minLength": 1,
            "maxLength": 500
          }
        },
        {
          "name": "stateAtClose",
          "doc": "The transaction's state when the window closed.",
          "type": "za.rp.v1.TransactionState"
        },
        {
          "name": "sequenceAtClose",
          "doc": "The transaction's state sequence number when the window closed.",
          "type": {
            "type": "long",
            "minimum": 1
          }
        },
        {
          "name": "messageIdentification",
          "doc": "messageIdentification of the transaction's original message.",
          "type": [
            "null",
            {
              "type": "string",
              "minLength": 1,
              "maxLength": 35
            }
          ],
          "default": null
        },
        {
          "name": "window",
          "type": "za.rp.v1.ReconciliationWindow"
        },
        {
          "name": "detectedAt",
          "type": {
            "type": "string",
            "format": "date-time"
          }
        }
      ]
    }
  },
  {
    "path": "TransactionStateChanged.avsc",
    "schema": {
      "type": "record",
      "name": "TransactionStateChanged",
      "namespace": "za.rp.v1",
      "doc": "Internal record a service emits each time it moves a transaction to a new state (topic rp.transaction.state.v1, keyed by uetr). The event-publisher turns each one into a posting; the store projects it into the transaction's snapshot.",
      "fields": [
        {
          "name": "uetr",
          "type": {
            "type": "string",
            "logicalType": "uuid"
          }
        },
        {
          "name": "sequence",
          "doc": "The transaction's state sequence number: 1 for its first state, one more for each change. Emitters leave it null: several services move one transaction (and a bank's report can race the engine's own record of the bank's 202), so only the tracker, the single consumer of the transaction's partition, orders the changes, refuses illegal ones and assigns the number it puts on the postings (stageVersion) and the snapshot.",
          "type": [
            "null",
            {
              "type": "long",
              "minimum": 1
            }
          ],
          "default": null
        },
        {
          "name": "fromState",
          "doc": "The state left; absent for the first state.",
          "type": [
            "null",
            "za.rp.v1.TransactionState"
          ],
          "default": null
        },
        {
          "name": "toState",
          "type": "za.rp.v1.TransactionState"
        },
        {
          "name": "eventType",
          "doc": "The event type the transition emits (from the transition table).",
          "type": "za.rp.v1.TransactionEventType"
        },
        {
          "name": "occurredAt",
          "doc": "When the change happened (RFC 3339).",
          "type": {
            "type": "string",
            "format": "date-time"
          }
        },
        {
          "name": "emittedBy",
          "doc": "The service that made the change.",
          "type": {
            "type": "string",
            "pattern": "^[a-z][a-z0-9-]{0,62}$",
            "examples": [
              "ingress",
              "validator",
              "scheduler",
              "dispatcher"
            ]
          }
        },
        {
          "name": "causedBy",
          "type": "za.rp.v1.StateChangeCause"
        },
        {
          "name": "transaction",
          "doc": "Snapshot of the transaction payload after the change. Null when the change leaves the payload as the transaction's earlier changes carried it and the emitter does not hold it (the dispatcher delivering the engine's status report, the ingress taking a bank's report, the validator applying the actioning bank's report): the tracker, which sequences the changes, fills it in from what it recorded.",
          "type": [
            "null",
            "za.rp.v1.CreditTransfer",
            "za.rp.v1.DirectDebit"
          ],
          "default": null
        },
        {
          "name": "statusReport",
          "doc": "The transaction's latest status report, when it has one (the engine's ACCP or RJCT, or the actioning bank's ACSC or RJCT).",
          "type": [
            "null",
            "za.rp.v1.PaymentStatusReport"
          ],
          "default": null
        }
      ]
    }
  },
  {
    "path": "TransactionStatePosting.avsc",
    "schema": {
      "type": "record",
      "name": "TransactionStatePosting",
      "namespace": "za.rp.v1",
      "doc": "An event posting of class TRANSACTION_STATE (spec 2.1, 2.2, section 6): sent to a bank's /events each time one of its transactions moves to a different state. The members the spec's TRANSACTION_STATE sample shows are required. actionDate, creationDateTime, identifiers, state and transactionInfo are required by the generic event posting table (2.1) but not shown in the TRANSACTION_STATE sample, so they are optional here; the engine fills them.",
      "fields": [
        {
          "name": "name",
          "doc": "class and type joined by an underscore: TRANSACTION_STATE_<type>.",
          "type": {
            "type": "string",
            "pattern": "^TRANSACTION_STATE_[A-Z][A-Z0-9_]*$",
            "maxLength": 140
          }
        },
        {
          "name": "apiVersion",
          "doc": "Version of the Regulated Payments Events API the posting conforms to: <major>.<minor>.<patch> (eventsApiVersion in @rp/contracts).",
          "type": {
            "type": "string",
            "pattern": "^[0-9]+\\.[0-9]+\\.[0-9]+$"
          }
        },
        {
          "name": "class",
          "doc": "Always TRANSACTION_STATE.",
          "type": {
            "type": "string",
            "const": "TRANSACTION_STATE"
          }
        },
        {
          "name": "type",
          "doc": "The processing stage that caused the posting.",
          "type": "za.rp.v1.TransactionEventType"
        },
        {
          "name": "stageVersion",
          "doc": "The transaction's state sequence number (TransactionStateChanged.sequence): 1 for its first posting, one more for each state change, so a bank can order postings and drop a redelivered one.",
          "type": {
            "type": "int",
            "minimum": 1
          }
        },
        {
          "name": "tranInfo",
          "type": "za.rp.v1.TranInfo"
        },
        {
          "name": "messageInfo",
          "doc": "Identifies this posting: messageIdentification is stable across redeliveries (the event id) and creationDateTime is when the engine created it.",
          "type": "za.rp.v1.MessageIdentifiers"
        },
        {
          "name": "payload",
          "doc": "The transaction payload as it was at the time of the event; its schema member names its type. Required for this class because every TRANSACTION_STATE posting embeds the payload (spec 1.6), although 2.1 marks payload optional for event postings in general. The engine embeds the DirectDebit for debit stages and the CreditTransfer for credit stages.",
          "type": [
            "za.rp.v1.CreditTransfer",
            "za.rp.v1.DirectDebit"
          ]
        },
        {
          "name": "actionDate",
          "doc": "Date at which the transaction should take effect.",
          "type": [
            "null",
            {
              "type": "int",
              "logicalType": "date"
            }
          ],
          "default": null
        },
        {
          "name": "creationDateTime",
          "doc": "When the event was created (same instant as messageInfo.creationDateTime).",
          "type": [
            "null",
            {
              "type": "string",
              "format": "date-time"
            }
          ],
          "default": null
        },
        {
          "name": "identifiers",
          "type": [
            "null",
            "za.rp.v1.EventEsmIdentifiers"
          ],
          "default": null
        },
        {
          "name": "state",
          "doc": "The ESM-style state the event type maps to (see the event type catalogue).",
          "type": [
            "null",
            "za.rp.v1.EventEsmState"
          ],
          "default": null
        },
        {
          "name": "transactionInfo",
          "type": [
            "null",
            "za.rp.v1.EventEsmTransactionInfo"
          ],
          "default": null
        }
      ]
    }
  }
];
