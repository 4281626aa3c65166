/**
 * Date and time arithmetic, as the SPARQL 1.2 function drafts take it from XPath (op:subtract-dateTimes,
 * op:add-yearMonthDuration-to-dateTime, op:add-dayTimeDurations...), and as Oxigraph and Jena already do:
 *   dateTime - dateTime, date - date, time - time  → xsd:dayTimeDuration
 *   dateTime/date/time ± duration                  → the same kind (a time takes day and time parts only)
 *   duration ± duration of the same subtype        → that subtype
 * A value without a time zone is read on the time line as if it were UTC, as comparisons do
 * (temporal.ts); results keep the time zone of their date/time operand.
 */
import type { Term } from '../../rdf/index.js';
import { ExpressionError } from './function-context.js';
import { Decimal } from './decimal.js';
import { civilFromDays, daysFromCivil, daysInMonth, timezoneLexical, type DurationValue, type TemporalValue } from './temporal.js';
import { xsd } from './xsd-types.js';
import { describe, typed, valueOf, type LiteralValue } from './literal-values.js';

const DAY = 86400n;

/** The + or - of two terms when either is a date/time or a duration; undefined when neither is (numbers). */
export function temporalArithmetic(op: '+' | '-', a: Term, b: Term): Term | undefined {
  const va = valueOf(a);
  const vb = valueOf(b);
  if (!isTimeValue(va) && !isTimeValue(vb)) return undefined;
  if (va?.kind === 'temporal' && vb?.kind === 'temporal' && op === '-') return difference(va.value, vb.value, a, b);
  if (va?.kind === 'temporal' && vb?.kind === 'duration') return shifted(va.value, op === '-' ? negate(vb.value) : vb.value, a, b);
  if (va?.kind === 'duration' && vb?.kind === 'temporal' && op === '+') return shifted(vb.value, va.value, b, a);
  if (va?.kind === 'duration' && vb?.kind === 'duration' && va.datatype === vb.datatype && va.datatype !== xsd.duration) {
    const sum = {
      months: va.value.months + (op === '-' ? -vb.value.months : vb.value.months),
      seconds: op === '-' ? va.value.seconds.subtract(vb.value.seconds) : va.value.seconds.add(vb.value.seconds),
    };
    return typed(durationLexical(sum, va.datatype), va.datatype);
  }
  throw new ExpressionError(`cannot ${op === '+' ? 'add' : 'subtract'} ${describe(b)} ${op === '+' ? 'to' : 'from'} ${describe(a)}`);
}

function isTimeValue(v: LiteralValue | undefined): boolean {
  return v?.kind === 'temporal' || v?.kind === 'duration';
}

function negate(d: DurationValue): DurationValue {
  return { months: -d.months, seconds: d.seconds.negate() };
}

/** Seconds on the time line, with the fraction. */
function instantOf(t: TemporalValue): Decimal {
  return Decimal.fromBigInt(BigInt(t.instant)).add(Decimal.parse(`0.${t.fraction || '0'}`)!);
}

function difference(x: TemporalValue, y: TemporalValue, a: Term, b: Term): Term {
  if (x.kind !== y.kind) throw new ExpressionError(`cannot subtract ${describe(b)} from ${describe(a)}`);
  return typed(durationLexical({ months: 0, seconds: instantOf(x).subtract(instantOf(y)) }, xsd.dayTimeDuration), xsd.dayTimeDuration);
}

/** A date/time moved by a duration; a date or time keeps only its own fields of the result. */
function shifted(t: TemporalValue, d: DurationValue, temporal: Term, duration: Term): Term {
  if (t.kind === 'time' && d.months !== 0) throw new ExpressionError(`cannot add ${describe(duration)} to ${describe(temporal)}`);
  const offset = BigInt((t.timezone ?? 0) * 60);
  // The local reading (the fields as written), in seconds since 1970-01-01T00:00:00.
  let local = instantOf(t).add(Decimal.fromBigInt(offset));
  if (d.months !== 0) local = addMonths(local, d.months);
  local = local.add(d.seconds);
  const datatype = t.kind === 'dateTime' ? xsd.dateTime : t.kind === 'date' ? xsd.date : xsd.time;
  return typed(temporalLexical(t.kind, local, t.timezone), datatype);
}

/** XPath's month arithmetic: the day of the month is kept, or the last day of a shorter month. */
function addMonths(local: Decimal, months: number): Decimal {
  const whole = local.floor();
  const days = Number((whole - mod(whole, DAY)) / DAY);
  const { year, month, day } = civilFromDays(days);
  const total = year * 12 + (month - 1) + months;
  const newYear = Math.floor(total / 12);
  const newMonth = total - newYear * 12 + 1;
  const newDays = daysFromCivil(newYear, newMonth, Math.min(day, daysInMonth(newYear, newMonth)));
  return local.add(Decimal.fromBigInt(BigInt(newDays - days) * DAY));
}

function mod(a: bigint, m: bigint): bigint {
  return ((a % m) + m) % m;
}

function temporalLexical(kind: TemporalValue['kind'], local: Decimal, timezone: number | undefined): string {
  const whole = local.floor();
  const secondOfDay = Number(mod(whole, DAY));
  const { year, month, day } = civilFromDays(Number((whole - BigInt(secondOfDay)) / DAY));
  const fraction = local
    .subtract(Decimal.fromBigInt(whole))
    .toPlainString()
    .replace(/^0?\.?/, '')
    .replace(/0+$/, '');
  const date = `${yearLexical(year)}-${pad2(month)}-${pad2(day)}`;
  const time = `${pad2(Math.floor(secondOfDay / 3600))}:${pad2(Math.floor(secondOfDay / 60) % 60)}:${pad2(secondOfDay % 60)}${fraction ? '.' + fraction : ''}`;
  const zone = timezoneLexical(timezone);
  return (kind === 'dateTime' ? `${date}T${time}` : kind === 'date' ? date : time) + zone;
}

function yearLexical(year: number): string {
  return (year < 0 ? '-' : '') + String(Math.abs(year)).padStart(4, '0');
}

function pad2(n: number): string {
  return String(n).padStart(2, '0');
}

/** The canonical XSD lexical form of a duration of the given datatype ("P1Y2M", "-PT1.5S", "PT0S"). */
export function durationLexical(d: DurationValue, datatype: string): string {
  const negative = d.months < 0 || d.seconds.sign() < 0;
  if (d.months !== 0 && d.seconds.sign() !== 0 && d.months < 0 !== d.seconds.sign() < 0) {
    throw new ExpressionError('a duration cannot mix positive months and negative seconds');
  }
  const months = Math.abs(d.months);
  const seconds = d.seconds.abs();
  let text = '';
  if (months >= 12) text += `${Math.floor(months / 12)}Y`;
  if (months % 12) text += `${months % 12}M`;
  const whole = seconds.floor();
  const fraction = seconds.subtract(Decimal.fromBigInt(whole));
  if (whole >= DAY) text += `${whole / DAY}D`;
  let time = '';
  if ((whole % DAY) / 3600n) time += `${(whole % DAY) / 3600n}H`;
  if ((whole % 3600n) / 60n) time += `${(whole % 3600n) / 60n}M`;
  if (whole % 60n || !fraction.isZero())
    time += `${Decimal.fromBigInt(whole % 60n)
      .add(fraction)
      .toPlainString()}S`;
  if (time) text += `T${time}`;
  if (!text) return datatype === xsd.yearMonthDuration ? 'P0M' : 'PT0S';
  return (negative ? '-' : '') + 'P' + text;
}
