/**
 * Values of xsd:dateTime, xsd:date, xsd:time and the duration types: parsing, the position on the
 * time line, and comparison by the XSD rules (a value without a time zone may lie anywhere
 * between +14:00 and -14:00, so comparing it with a zoned value can be indeterminate).
 */
import { Decimal } from './decimal.js';

export type TemporalKind = 'dateTime' | 'date' | 'time';

export interface TemporalValue {
  kind: TemporalKind;
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  /** Whole seconds. */
  second: number;
  /** Fractional-second digits without trailing zeros ("" when none). */
  fraction: string;
  /** Offset from UTC in minutes; undefined when the value has no time zone. */
  timezone: number | undefined;
  /** Whole seconds on the time line (UTC when zoned, the local reading otherwise). */
  instant: number;
}

const DATE_TIME = /^(-?\d{4,})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(Z|[+-]\d{2}:\d{2})?$/;
const DATE = /^(-?\d{4,})-(\d{2})-(\d{2})(Z|[+-]\d{2}:\d{2})?$/;
const TIME = /^(\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(Z|[+-]\d{2}:\d{2})?$/;

/** Fourteen hours: the widest time zone offset XSD allows. */
const MAX_OFFSET_SECONDS = 14 * 3600;

export function parseTemporal(kind: TemporalKind, lexical: string): TemporalValue | undefined {
  switch (kind) {
    case 'dateTime': {
      const m = DATE_TIME.exec(lexical);
      if (!m) return undefined;
      return build(kind, m[1], m[2], m[3], m[4], m[5], m[6], m[7], m[8]);
    }
    case 'date': {
      const m = DATE.exec(lexical);
      if (!m) return undefined;
      return build(kind, m[1], m[2], m[3], '00', '00', '00', undefined, m[4]);
    }
    case 'time': {
      const m = TIME.exec(lexical);
      if (!m) return undefined;
      return build(kind, '1972', '12', '31', m[1], m[2], m[3], m[4], m[5]);
    }
  }
}

function build(
  kind: TemporalKind,
  y: string,
  mo: string,
  d: string,
  h: string,
  mi: string,
  s: string,
  frac: string | undefined,
  tz: string | undefined,
): TemporalValue | undefined {
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const hour = Number(h);
  const minute = Number(mi);
  const second = Number(s);
  const fraction = (frac ?? '').replace(/0+$/, '');
  const yearDigits = y.replace('-', '');
  if (yearDigits.length > 4 && yearDigits.startsWith('0')) return undefined;
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined;
  if (hour === 24) {
    if (minute !== 0 || second !== 0 || fraction !== '') return undefined;
  } else if (hour > 23 || minute > 59 || second > 59) {
    return undefined;
  }
  const timezone = tz === undefined ? undefined : parseTimezone(tz);
  if (timezone !== undefined && Math.abs(timezone) > 14 * 60) return undefined;
  const days = daysFromCivil(year, month, day);
  const instant = days * 86400 + hour * 3600 + minute * 60 + second - (timezone ?? 0) * 60;
  if (hour === 24 && kind !== 'time') {
    // 24:00:00 is midnight at the end of the day: the accessors see 00:00:00 of the next one.
    const next = civilFromDays(days + 1);
    return { kind, ...next, hour: 0, minute, second, fraction, timezone, instant };
  }
  return { kind, year, month, day, hour: hour % 24, minute, second, fraction, timezone, instant };
}

function parseTimezone(tz: string): number {
  if (tz === 'Z') return 0;
  const sign = tz[0] === '-' ? -1 : 1;
  return sign * (Number(tz.slice(1, 3)) * 60 + Number(tz.slice(4, 6)));
}

function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

export function daysInMonth(year: number, month: number): number {
  return month === 2 ? (isLeapYear(year) ? 29 : 28) : [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1];
}

/** Days since 1970-01-01 in the proleptic Gregorian calendar, for any year (Howard Hinnant's algorithm). */
export function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const mp = (month + 9) % 12;
  const doy = Math.floor((153 * mp + 2) / 5) + day - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

export function civilFromDays(days: number): { year: number; month: number; day: number } {
  const z = days + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  return { year: yoe + era * 400 + (month <= 2 ? 1 : 0), month, day };
}

function compareFraction(a: string, b: string): number {
  const len = Math.max(a.length, b.length);
  const pa = a.padEnd(len, '0');
  const pb = b.padEnd(len, '0');
  return pa < pb ? -1 : pa > pb ? 1 : 0;
}

function compareInstants(aInstant: number, aFraction: string, bInstant: number, bFraction: string): number {
  if (aInstant !== bInstant) return aInstant < bInstant ? -1 : 1;
  return compareFraction(aFraction, bFraction);
}

/**
 * Order of two values of the same kind: negative, zero or positive; undefined when one has a
 * time zone, the other has none, and they lie within fourteen hours of each other.
 */
export function compareTemporal(a: TemporalValue, b: TemporalValue): number | undefined {
  if ((a.timezone === undefined) === (b.timezone === undefined)) {
    return compareInstants(a.instant, a.fraction, b.instant, b.fraction);
  }
  if (a.timezone !== undefined) return compareZonedWithLocal(a, b);
  const r = compareZonedWithLocal(b, a);
  return r === undefined ? undefined : -r;
}

function compareZonedWithLocal(zoned: TemporalValue, local: TemporalValue): number | undefined {
  if (compareInstants(zoned.instant, zoned.fraction, local.instant - MAX_OFFSET_SECONDS, local.fraction) < 0) return -1;
  if (compareInstants(zoned.instant, zoned.fraction, local.instant + MAX_OFFSET_SECONDS, local.fraction) > 0) return 1;
  return undefined;
}

/** A total order for ORDER BY: values without a time zone are read as UTC. */
export function compareTemporalTotal(a: TemporalValue, b: TemporalValue): number {
  return compareInstants(a.instant, a.fraction, b.instant, b.fraction);
}

/** The xsd:dayTimeDuration lexical form of a time zone offset, as TIMEZONE() returns it. */
export function timezoneDuration(offsetMinutes: number): string {
  if (offsetMinutes === 0) return 'PT0S';
  const abs = Math.abs(offsetMinutes);
  const hours = Math.floor(abs / 60);
  const minutes = abs % 60;
  return (offsetMinutes < 0 ? '-' : '') + 'PT' + (hours ? `${hours}H` : '') + (minutes ? `${minutes}M` : '');
}

/** The time zone as it is written in a lexical form ("Z", "-08:00"), as TZ() returns it. */
export function timezoneLexical(offsetMinutes: number | undefined): string {
  if (offsetMinutes === undefined) return '';
  if (offsetMinutes === 0) return 'Z';
  const abs = Math.abs(offsetMinutes);
  return (offsetMinutes < 0 ? '-' : '+') + pad2(Math.floor(abs / 60)) + ':' + pad2(abs % 60);
}

function pad2(n: number): string {
  return String(n).padStart(2, '0');
}

/** The lexical form of a JS date as a zoned xsd:dateTime (NOW()). */
export function dateToLexical(date: Date): string {
  return date.toISOString();
}

// ---------------------------------------------------------------------------------------------
// Durations

export interface DurationValue {
  /** Signed total months. */
  months: number;
  /** Signed total seconds. */
  seconds: Decimal;
}

const DURATION = /^(-?)P(?:(\d+)Y)?(?:(\d+)M)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d*)?|\.\d+)S)?)?$/;

export type DurationKind = 'duration' | 'dayTimeDuration' | 'yearMonthDuration';

export function parseDuration(kind: DurationKind, lexical: string): DurationValue | undefined {
  const m = DURATION.exec(lexical);
  if (!m) return undefined;
  const [, sign, y, mo, d, h, mi, s] = m;
  if (y === undefined && mo === undefined && d === undefined && h === undefined && mi === undefined && s === undefined) {
    return undefined;
  }
  if (lexical.endsWith('T')) return undefined;
  if (kind === 'dayTimeDuration' && (y !== undefined || mo !== undefined)) return undefined;
  if (kind === 'yearMonthDuration' && (d !== undefined || h !== undefined || mi !== undefined || s !== undefined)) {
    return undefined;
  }
  const months = Number(y ?? 0) * 12 + Number(mo ?? 0);
  const wholeSeconds = BigInt(d ?? 0) * 86400n + BigInt(h ?? 0) * 3600n + BigInt(mi ?? 0) * 60n;
  const seconds = Decimal.fromBigInt(wholeSeconds).add(Decimal.parse(s ?? '0') ?? Decimal.fromBigInt(0n));
  const negative = sign === '-';
  return { months: negative ? -months : months, seconds: negative ? seconds.negate() : seconds };
}

export function durationsEqual(a: DurationValue, b: DurationValue): boolean {
  return a.months === b.months && a.seconds.compare(b.seconds) === 0;
}

/** Defined only when both durations are pure months or both pure seconds (XPath's two ordered subtypes). */
export function compareDurations(a: DurationValue, b: DurationValue): number | undefined {
  if (a.months === 0 && b.months === 0) return a.seconds.compare(b.seconds);
  if (a.seconds.isZero() && b.seconds.isZero()) return Math.sign(a.months - b.months);
  return undefined;
}
