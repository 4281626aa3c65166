/**
 * FILTER(?a = ?b) or sameTerm(?a, ?b) as a join: once one side is bound, the other is bound to the
 * same term, so the pattern that binds it looks that term up instead of enumerating every match
 * and leaving the filter to drop all but a few.
 *
 * sameTerm holds for exactly the same term. `=` compares values: two different terms can be equal
 * (1 and 1.0, two time zones of one instant), so a side is copied only when its term is one whose
 * value equality is term identity — an IRI, a blank node, a plain string. For other terms the
 * solution goes on unchanged and the pattern enumerates as before. The filter itself stays in the
 * plan after the pattern, so the answer is the plain path's either way.
 */
import { BatchWriter, type Batch } from '../batch.js';
import type { ExecContext } from '../exec-context.js';
import type { Term } from '../../rdf/index.js';
import { Operator, slotLabel } from './operator.js';

const XSD_STRING = 'http://www.w3.org/2001/XMLSchema#string';

export class EqualityBind extends Operator {
  readonly maybe: ReadonlySet<number>;
  readonly certain = new Set<number>();

  constructor(
    /** The slot bound before this step. */
    readonly from: number,
    /** The slot it binds (where the solution leaves it unbound). */
    readonly to: number,
    /** sameTerm: every term may be copied. */
    readonly sameTerm: boolean,
  ) {
    super();
    this.maybe = new Set([to]);
  }

  describe(slotNames: readonly string[]): string {
    const how = this.sameTerm ? 'sameTerm' : '= on IRIs, blank nodes and strings';
    return `${slotLabel(this.to, slotNames)} := ${slotLabel(this.from, slotNames)} (${how})`;
  }

  *execute(input: Iterable<Batch>, ctx: ExecContext): Iterable<Batch> {
    const width = ctx.width;
    const out = new BatchWriter(width, ctx.batchPool());
    const { from, to } = this;
    // Whether each ID met so far may be copied: a row's term is decoded once per distinct ID.
    const copyable = new Map<number, boolean>();
    for (const batch of input) {
      const data = batch.data;
      for (let row = 0; row < batch.length; row++) {
        const target = out.target();
        const r = target.appendCopy(batch, row);
        const id = data[row * width + from];
        if (id === 0 || data[row * width + to] !== 0) continue;
        let ok = this.sameTerm || copyable.get(id);
        if (ok === undefined) {
          ok = identityIsEquality(ctx.termOf(id));
          copyable.set(id, ok);
        }
        if (ok) target.data[r * width + to] = id;
      }
      if (out.pending) {
        ctx.checkpoint();
        yield* out.drainFull();
      }
    }
    yield* out.flush();
  }
}

/** Whether `=` on this term holds for exactly the same term (so a look-up by its ID finds all its equals). */
export function identityIsEquality(term: Term): boolean {
  if (term.termType === 'NamedNode' || term.termType === 'BlankNode') return true;
  return term.termType === 'Literal' && term.language === '' && term.datatype.value === XSD_STRING;
}
