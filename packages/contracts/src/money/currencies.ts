/**
 * ISO 4217 minor units: how many decimal places an amount in each active currency may have. Codes
 * absent here are refused as unknown currencies. Funds and precious-metal codes without a minor unit
 * (XAU, XXX, ...) are deliberately absent: no payment is made in them.
 */
const exceptions: Readonly<Record<string, number>> = {
  BHD: 3,
  BIF: 0,
  CLF: 4,
  CLP: 0,
  DJF: 0,
  GNF: 0,
  IQD: 3,
  ISK: 0,
  JOD: 3,
  JPY: 0,
  KMF: 0,
  KRW: 0,
  KWD: 3,
  LYD: 3,
  OMR: 3,
  PYG: 0,
  RWF: 0,
  TND: 3,
  UGX: 0,
  UYI: 0,
  UYW: 4,
  VND: 0,
  VUV: 0,
  XAF: 0,
  XOF: 0,
  XPF: 0,
};

const twoDecimalCodes = `AED AFN ALL AMD AOA ARS AUD AWG AZN BAM BBD BDT BGN BMD BND BOB BOV BRL BSD BTN BWP BYN BZD
CAD CDF CHE CHF CHW CNY COP COU CRC CUP CVE CZK DKK DOP DZD EGP ERN ETB EUR FJD FKP GBP GEL GHS GIP GMD GTQ
GYD HKD HNL HTG HUF IDR ILS INR IRR JMD KES KGS KHR KPW KYD KZT LAK LBP LKR LRD LSL MAD MDL MGA MKD MMK MNT
MOP MRU MUR MVR MWK MXN MXV MYR MZN NAD NGN NIO NOK NPR NZD PAB PEN PGK PHP PKR PLN QAR RON RSD RUB SAR SBD
SCR SDG SEK SGD SHP SLE SOS SRD SSP STN SVC SYP SZL THB TJS TMT TOP TRY TTD TWD TZS UAH USD USN UYU UZS VED
VES WST XCD XCG YER ZAR ZMW ZWG`;

const minorUnits: ReadonlyMap<string, number> = new Map([
  ...twoDecimalCodes
    .split(/\s+/)
    .filter((code) => code.length > 0)
    .map((code) => [code, 2] as const),
  ...Object.entries(exceptions),
]);

/** Decimal places allowed for an amount in `currency`, or undefined for a code ISO 4217 does not list. */
export function currencyMinorUnits(currency: string): number | undefined {
  return minorUnits.get(currency);
}
