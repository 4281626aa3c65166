/**
 * The XSD datatypes the function library knows, and how each maps to a primitive value space.
 * Types derived from xsd:integer (xsd:int, xsd:byte, xsd:nonNegativeInteger...) all behave as
 * xsd:integer in arithmetic, but their literals must respect the type's range to be valid.
 */
import { XSD, xsd, rdf } from '../../rdf/index.js';

export { xsd, rdf };

export type NumericType = 'integer' | 'decimal' | 'float' | 'double';

interface IntegerRange {
  min?: bigint;
  max?: bigint;
}

const INTEGER_RANGES: Record<string, IntegerRange> = {
  [`${XSD}integer`]: {},
  [`${XSD}nonPositiveInteger`]: { max: 0n },
  [`${XSD}negativeInteger`]: { max: -1n },
  [`${XSD}nonNegativeInteger`]: { min: 0n },
  [`${XSD}positiveInteger`]: { min: 1n },
  [`${XSD}long`]: { min: -(2n ** 63n), max: 2n ** 63n - 1n },
  [`${XSD}int`]: { min: -(2n ** 31n), max: 2n ** 31n - 1n },
  [`${XSD}short`]: { min: -32768n, max: 32767n },
  [`${XSD}byte`]: { min: -128n, max: 127n },
  [`${XSD}unsignedLong`]: { min: 0n, max: 2n ** 64n - 1n },
  [`${XSD}unsignedInt`]: { min: 0n, max: 2n ** 32n - 1n },
  [`${XSD}unsignedShort`]: { min: 0n, max: 65535n },
  [`${XSD}unsignedByte`]: { min: 0n, max: 255n },
};

/** xsd:integer and every datatype derived from it. */
export function isIntegerDatatype(datatype: string): boolean {
  return datatype in INTEGER_RANGES;
}

export function integerInRange(datatype: string, value: bigint): boolean {
  const range = INTEGER_RANGES[datatype];
  if (!range) return false;
  return (range.min === undefined || value >= range.min) && (range.max === undefined || value <= range.max);
}

/** The promotion type of a numeric datatype, or undefined when the datatype is not numeric. */
export function numericTypeOf(datatype: string): NumericType | undefined {
  switch (datatype) {
    case xsd.decimal:
      return 'decimal';
    case xsd.float:
      return 'float';
    case xsd.double:
      return 'double';
    default:
      return isIntegerDatatype(datatype) ? 'integer' : undefined;
  }
}

export const NUMERIC_TYPE_IRI: Record<NumericType, string> = {
  integer: xsd.integer,
  decimal: xsd.decimal,
  float: xsd.float,
  double: xsd.double,
};

export const TEMPORAL_DATATYPES = new Set<string>([xsd.dateTime, xsd.date, xsd.time, `${XSD}dateTimeStamp`]);
export const DURATION_DATATYPES = new Set<string>([xsd.duration, xsd.dayTimeDuration, xsd.yearMonthDuration]);
