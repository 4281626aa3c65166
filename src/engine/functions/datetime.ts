/**
 * Date and time accessors (SPARQL 1.1 section 17.4.5). The spec defines them on xsd:dateTime; we
 * also accept xsd:date for the date parts and xsd:time for the time parts, as XPath does.
 */
import type { Term } from '../../rdf/index.js';
import { ExpressionError, type FunctionContext } from './function-context.js';
import { Decimal } from './decimal.js';
import { numericLiteral } from './numeric.js';
import { dateToLexical, timezoneDuration, timezoneLexical, type TemporalKind, type TemporalValue } from './temporal.js';
import { xsd } from './xsd-types.js';
import { describe, integerLiteral, simpleLiteral, typed, valueOf } from './literal-values.js';

const DATE_PARTS: readonly TemporalKind[] = ['dateTime', 'date'];
const TIME_PARTS: readonly TemporalKind[] = ['dateTime', 'time'];
const ANY: readonly TemporalKind[] = ['dateTime', 'date', 'time'];

function temporalArgument(term: Term, kinds: readonly TemporalKind[]): TemporalValue {
  const v = valueOf(term);
  if (v?.kind === 'temporal' && kinds.includes(v.value.kind)) return v.value;
  throw new ExpressionError(`not an xsd:dateTime: ${describe(term)}`);
}

function seconds(v: TemporalValue): Decimal {
  return Decimal.parse(v.fraction ? `${v.second}.${v.fraction}` : String(v.second))!;
}

export const dateTimeFunctions: Record<string, (args: Term[], ctx: FunctionContext) => Term> = {
  year: ([a]) => integerLiteral(temporalArgument(a, DATE_PARTS).year),
  month: ([a]) => integerLiteral(temporalArgument(a, DATE_PARTS).month),
  day: ([a]) => integerLiteral(temporalArgument(a, DATE_PARTS).day),
  hours: ([a]) => integerLiteral(temporalArgument(a, TIME_PARTS).hour),
  minutes: ([a]) => integerLiteral(temporalArgument(a, TIME_PARTS).minute),
  seconds: ([a]) => numericLiteral({ type: 'decimal', value: seconds(temporalArgument(a, TIME_PARTS)) }),
  timezone: ([a]) => {
    const tz = temporalArgument(a, ANY).timezone;
    if (tz === undefined) throw new ExpressionError(`${describe(a)} has no time zone`);
    return typed(timezoneDuration(tz), xsd.dayTimeDuration);
  },
  tz: ([a]) => simpleLiteral(timezoneLexical(temporalArgument(a, ANY).timezone)),
  now: (_args, ctx) => typed(dateToLexical(ctx.now), xsd.dateTime),
};
